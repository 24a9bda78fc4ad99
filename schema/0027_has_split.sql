-- Whether a row has a split, kept by triggers on splits: the rows a user
-- has split are then one partial index away (their balances with each
-- participant, basis=mine, whom they share with), rather than a probe of
-- splits for every row they own (50,000 probes for a five-year ledger,
-- most of a basis=mine report's 44 ms and of the participants list).
ALTER TABLE transactions ADD COLUMN has_split INTEGER NOT NULL DEFAULT 0;
UPDATE transactions SET has_split = 1 WHERE id IN (SELECT transaction_id FROM splits);
-- By id, for the balances' walk in id order (no sort), with the date for
-- basis=mine's range.
CREATE INDEX transactions_owner_split ON transactions(owner_id, id, date) WHERE has_split;

-- Only the flag moves: no trigger on transactions names has_split.
CREATE TRIGGER has_split_insert AFTER INSERT ON splits BEGIN
    UPDATE transactions SET has_split = 1 WHERE id = NEW.transaction_id AND has_split = 0;
END;
CREATE TRIGGER has_split_delete AFTER DELETE ON splits BEGIN
    UPDATE transactions SET has_split = 0
     WHERE id = OLD.transaction_id AND has_split = 1
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id);
END;
CREATE TRIGGER has_split_move AFTER UPDATE OF transaction_id ON splits BEGIN
    UPDATE transactions SET has_split = 1 WHERE id = NEW.transaction_id AND has_split = 0;
    UPDATE transactions SET has_split = 0
     WHERE id = OLD.transaction_id AND has_split = 1
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id);
END;
