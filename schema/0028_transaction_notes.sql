-- A transaction's notes: the text a bank export keeps beside the
-- description (a CSV import's notes or memo column: Mint's Notes, Venmo's
-- and PayPal's Note), or what the row's owner writes about it.  Free
-- text, shown and exported; never matched, summed or searched, so no
-- derived table or index counts it.
ALTER TABLE transactions ADD COLUMN notes TEXT;
