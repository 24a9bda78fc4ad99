-- A search (GET /api/transactions?search=) had to test every row the
-- caller owns to count its matches: 9 ms over 50,000 rows on the
-- 1,000,000-row benchmark ledger even reading the index 0014 built, and
-- 2.5 ms more for the 4,000 rows shared with them, each a seek into the
-- table.  Two structures take that away.
--
-- transactions_search: a trigram index of the three searched texts of
-- every row (the description, the bank's merchant and the effective
-- normalized merchant).  Its rowid is the owner's id times 2^40 plus the
-- row's id, so one owner's rows are one range of every trigram's list, and
-- a search reads only the caller's entries.  It is contentless (the texts
-- live in transactions) and keeps no positions (detail=none), 42 MB on the
-- benchmark ledger: a match is a row holding every trigram of the term, a
-- superset the list narrows with the exact test (ledger_contains).  Only
-- pure-ASCII terms of three bytes or more use it (txn_list.c): SQLite's
-- trigram folding is not ledger_fold's beyond ASCII.  Ids stay below 2^40
-- (a trillion rows).
--
-- A contentless table forgets a row only when told the exact texts it was
-- given, so the triggers below are its only writers: every insert, every
-- change of a searched text or of the owner, every delete.  ledger-admin
-- check compares its rowids with the rows'.
CREATE VIRTUAL TABLE transactions_search USING fts5(
    description, merchant, merchant_normalized,
    content = '', detail = 'none', tokenize = 'trigram');

INSERT INTO transactions_search (rowid, description, merchant, merchant_normalized)
SELECT owner_id * 1099511627776 + id, description, merchant,
       COALESCE(override_merchant_normalized, merchant_normalized)
  FROM transactions;

CREATE TRIGGER transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, merchant, merchant_normalized)
    VALUES (NEW.owner_id * 1099511627776 + NEW.id, NEW.description, NEW.merchant,
            COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized));
END;

CREATE TRIGGER transactions_search_update
AFTER UPDATE OF id, owner_id, description, merchant, merchant_normalized,
                override_merchant_normalized ON transactions
WHEN OLD.id IS NOT NEW.id OR OLD.owner_id IS NOT NEW.owner_id
  OR OLD.description IS NOT NEW.description OR OLD.merchant IS NOT NEW.merchant
  OR COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized)
     IS NOT COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized)
BEGIN
    INSERT INTO transactions_search (transactions_search, rowid, description, merchant,
                                     merchant_normalized)
    VALUES ('delete', OLD.owner_id * 1099511627776 + OLD.id, OLD.description, OLD.merchant,
            COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized));
    INSERT INTO transactions_search (rowid, description, merchant, merchant_normalized)
    VALUES (NEW.owner_id * 1099511627776 + NEW.id, NEW.description, NEW.merchant,
            COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized));
END;

CREATE TRIGGER transactions_search_delete AFTER DELETE ON transactions BEGIN
    INSERT INTO transactions_search (transactions_search, rowid, description, merchant,
                                     merchant_normalized)
    VALUES ('delete', OLD.owner_id * 1099511627776 + OLD.id, OLD.description, OLD.merchant,
            COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized));
END;

-- shared_rows (0006) copies the searched texts too, with an index that
-- holds them and the sort keys, so the shared arm of a search walks that
-- index rather than seeking each shared row in the table (2.5 ms -> 0.5 ms
-- for 4,000 rows).  Its triggers are rebuilt to keep the copies; what they
-- do is otherwise unchanged.
ALTER TABLE shared_rows ADD COLUMN description TEXT;
ALTER TABLE shared_rows ADD COLUMN bank_merchant TEXT;
ALTER TABLE shared_rows ADD COLUMN merchant_normalized TEXT;
UPDATE shared_rows
   SET (description, bank_merchant, merchant_normalized) =
       (SELECT description, merchant, COALESCE(override_merchant_normalized, merchant_normalized)
          FROM transactions WHERE id = shared_rows.transaction_id);
CREATE INDEX shared_rows_search
    ON shared_rows(viewer_id, transaction_id, description, bank_merchant, merchant_normalized,
                   date, amount, created_at, merchant);

DROP TRIGGER shared_rows_split_insert;
DROP TRIGGER shared_rows_split_move;
DROP TRIGGER shared_rows_owner;
DROP TRIGGER shared_rows_keys;

CREATE VIEW shared_row_copy AS
SELECT id AS transaction_id, owner_id, date, amount, created_at, eff_merchant AS merchant,
       description, merchant AS bank_merchant,
       COALESCE(override_merchant_normalized, merchant_normalized) AS merchant_normalized
  FROM transactions;

CREATE TRIGGER shared_rows_split_insert AFTER INSERT ON splits BEGIN
    INSERT INTO shared_rows (transaction_id, viewer_id, date, amount, created_at, merchant,
                             description, bank_merchant, merchant_normalized)
    SELECT transaction_id, NEW.participant_id, date, amount, created_at, merchant,
           description, bank_merchant, merchant_normalized
      FROM shared_row_copy
     WHERE transaction_id = NEW.transaction_id AND owner_id <> NEW.participant_id;
END;

CREATE TRIGGER shared_rows_split_move AFTER UPDATE OF transaction_id, participant_id ON splits BEGIN
    DELETE FROM shared_rows
     WHERE transaction_id = OLD.transaction_id AND viewer_id = OLD.participant_id;
    INSERT INTO shared_rows (transaction_id, viewer_id, date, amount, created_at, merchant,
                             description, bank_merchant, merchant_normalized)
    SELECT transaction_id, NEW.participant_id, date, amount, created_at, merchant,
           description, bank_merchant, merchant_normalized
      FROM shared_row_copy
     WHERE transaction_id = NEW.transaction_id AND owner_id <> NEW.participant_id;
END;

CREATE TRIGGER shared_rows_owner AFTER UPDATE OF owner_id ON transactions BEGIN
    DELETE FROM shared_rows WHERE transaction_id = NEW.id;
    INSERT INTO shared_rows (transaction_id, viewer_id, date, amount, created_at, merchant,
                             description, bank_merchant, merchant_normalized)
    SELECT c.transaction_id, s.participant_id, c.date, c.amount, c.created_at, c.merchant,
           c.description, c.bank_merchant, c.merchant_normalized
      FROM splits s JOIN shared_row_copy c ON c.transaction_id = s.transaction_id
     WHERE c.transaction_id = NEW.id AND s.participant_id <> c.owner_id;
END;

CREATE TRIGGER shared_rows_keys
AFTER UPDATE OF date, amount, created_at, eff_merchant, description, merchant, merchant_normalized,
                override_merchant_normalized ON transactions
WHEN EXISTS (SELECT 1 FROM shared_rows WHERE transaction_id = NEW.id) BEGIN
    UPDATE shared_rows
       SET (date, amount, created_at, merchant, description, bank_merchant, merchant_normalized) =
           (SELECT date, amount, created_at, merchant, description, bank_merchant,
                   merchant_normalized
              FROM shared_row_copy WHERE transaction_id = NEW.id)
     WHERE transaction_id = NEW.id;
END;
