-- A search (GET /api/transactions?search=) had to test every row the
-- caller owns to count its matches: 9 ms over 50,000 rows on the
-- 1,000,000-row benchmark ledger even reading the index 0014 built, and
-- 2.5 ms more for the 4,000 rows shared with them, each a seek into the
-- table.  Trigram indexes and copies in shared_rows take that away.
--
-- transactions_search: a trigram index of the description and the bank's
-- merchant of every row; merchants_search: of the effective normalized
-- merchant, where a row has one.  The latter is apart because rules and
-- overrides rewrite it, often for tens of thousands of rows at once, and
-- re-indexing the whole row's texts each time doubled the time of a rule
-- run over 50,000 rows.  A row holding a term in one of its texts holds
-- every trigram of the term in one of the two indexes.
--
-- In both, the rowid is the owner's id times 2^40 plus the row's id, so
-- one owner's rows are one range of every trigram's list, and a search
-- reads only the caller's entries.  They are contentless (the texts live
-- in transactions) and keep no positions (detail=none), 37 MB on the
-- benchmark ledger: a match is a row holding every trigram of the term, a
-- superset the list narrows with the exact test (ledger_contains).  Only
-- trigrams of ASCII characters are looked up (txn_search.c): SQLite's
-- trigram folding is not ledger_fold's beyond ASCII.
--
-- The rowid has room for ids from 1 to 2^40 - 1 and owners below 2^23.
-- SQLite hands out ids one past the highest, so a trillion rows would be
-- needed to pass it; but a row written with an id of its own may (SQLite
-- picks ids at random once one is at 2^63 - 1).  Such a row is left out of
-- the indexes, and while one exists the list tests every row instead.
--
-- A merchant held in the description (as most are: "CARD PURCHASE
-- STARBUCKS 1234", "Starbucks") is not indexed again: a term in it is in
-- the description too (a quarter fewer trigrams on the benchmark ledger).
-- lower() lowers ASCII only, which is all the index is read for.
--
-- A contentless table forgets a row only when told the exact texts it was
-- given, so every entry is written from one view per index (the trigger
-- merchants_search_update restates its view in OLD and NEW: a rule run
-- rewrites the normalized merchant of every row it matches, and reading
-- the row again cost a third of what the index did), and the triggers and
-- the flush below are its only writers.
--
-- A new row is not indexed by its INSERT but listed in search_pending,
-- and the pending rows are indexed together when the transaction commits
-- (txn_search.c, called by ledger_commit).  FTS5 writes its pending terms
-- out at every statement that opens a savepoint (any that fires a
-- trigger), and a 10,000-row OFX import, a statement per row, took five
-- times as long writing one small segment per row.  Until then the list reads the pending rows as candidates too,
-- so a search never misses one, whoever wrote it.  A pending row is in
-- neither index; a row whose description, merchant, owner or id changes
-- leaves both and is pending again.  A change of the normalized merchant
-- alone is written to merchants_search at once: a rule run is one
-- statement.  The CSV commit (bulk_insert present, as in 0011) adds its
-- rows to transactions_search itself, at once; they have no normalized
-- merchant.  ledger-admin check compares the indexes' rowids with the
-- rows'.
CREATE VIRTUAL TABLE transactions_search USING fts5(
    description, merchant, content = '', detail = 'none', tokenize = 'trigram');
CREATE VIRTUAL TABLE merchants_search USING fts5(
    merchant_normalized, content = '', detail = 'none', tokenize = 'trigram');
CREATE TABLE search_pending (
    id  INTEGER PRIMARY KEY
);

CREATE VIEW search_entries AS
SELECT id, owner_id * 1099511627776 + id AS entry, description,
       CASE WHEN instr(lower(description), lower(merchant)) THEN NULL ELSE merchant END
           AS merchant
  FROM transactions
 WHERE id BETWEEN 1 AND 1099511627775 AND owner_id BETWEEN 1 AND 8388607;

CREATE VIEW merchant_search_entries AS
SELECT id, owner_id * 1099511627776 + id AS entry,
       COALESCE(override_merchant_normalized, merchant_normalized) AS merchant_normalized
  FROM transactions
 WHERE id BETWEEN 1 AND 1099511627775 AND owner_id BETWEEN 1 AND 8388607
   AND COALESCE(override_merchant_normalized, merchant_normalized) IS NOT NULL;

INSERT INTO transactions_search (rowid, description, merchant)
SELECT entry, description, merchant FROM search_entries;
INSERT INTO merchants_search (rowid, merchant_normalized)
SELECT entry, merchant_normalized FROM merchant_search_entries;

CREATE TRIGGER search_insert AFTER INSERT ON transactions
WHEN NOT EXISTS (SELECT 1 FROM bulk_insert)
BEGIN
    INSERT OR IGNORE INTO search_pending (id) VALUES (NEW.id);
END;

-- Out of both indexes before the row changes (unless pending) ...
CREATE TRIGGER search_update_old
BEFORE UPDATE OF id, owner_id, description, merchant ON transactions
WHEN (OLD.id IS NOT NEW.id OR OLD.owner_id IS NOT NEW.owner_id
      OR OLD.description IS NOT NEW.description OR OLD.merchant IS NOT NEW.merchant)
 AND NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id)
BEGIN
    INSERT INTO transactions_search (transactions_search, rowid, description, merchant)
    SELECT 'delete', entry, description, merchant FROM search_entries WHERE id = OLD.id;
    INSERT INTO merchants_search (merchants_search, rowid, merchant_normalized)
    SELECT 'delete', entry, merchant_normalized FROM merchant_search_entries WHERE id = OLD.id;
END;

-- ... and pending after.
CREATE TRIGGER search_update_new
AFTER UPDATE OF id, owner_id, description, merchant ON transactions
WHEN OLD.id IS NOT NEW.id OR OLD.owner_id IS NOT NEW.owner_id
  OR OLD.description IS NOT NEW.description OR OLD.merchant IS NOT NEW.merchant
BEGIN
    DELETE FROM search_pending WHERE id = OLD.id;
    INSERT OR IGNORE INTO search_pending (id) VALUES (NEW.id);
END;

CREATE TRIGGER search_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO transactions_search (transactions_search, rowid, description, merchant)
    SELECT 'delete', entry, description, merchant FROM search_entries
     WHERE id = OLD.id AND NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id);
    INSERT INTO merchants_search (merchants_search, rowid, merchant_normalized)
    SELECT 'delete', entry, merchant_normalized FROM merchant_search_entries
     WHERE id = OLD.id AND NOT EXISTS (SELECT 1 FROM search_pending WHERE id = OLD.id);
    DELETE FROM search_pending WHERE id = OLD.id;
END;

-- The normalized merchant alone: its entry is rewritten at once.
CREATE TRIGGER merchants_search_update
AFTER UPDATE OF merchant_normalized, override_merchant_normalized ON transactions
WHEN COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized)
     IS NOT COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized)
 AND OLD.id IS NEW.id AND OLD.owner_id IS NEW.owner_id
 AND OLD.description IS NEW.description AND OLD.merchant IS NEW.merchant
 AND NOT EXISTS (SELECT 1 FROM search_pending WHERE id = NEW.id)
BEGIN
    INSERT INTO merchants_search (merchants_search, rowid, merchant_normalized)
    SELECT 'delete', OLD.owner_id * 1099511627776 + OLD.id,
           COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized)
     WHERE OLD.id BETWEEN 1 AND 1099511627775 AND OLD.owner_id BETWEEN 1 AND 8388607
       AND COALESCE(OLD.override_merchant_normalized, OLD.merchant_normalized) IS NOT NULL;
    INSERT INTO merchants_search (rowid, merchant_normalized)
    SELECT NEW.owner_id * 1099511627776 + NEW.id,
           COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized)
     WHERE NEW.id BETWEEN 1 AND 1099511627775 AND NEW.owner_id BETWEEN 1 AND 8388607
       AND COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized) IS NOT NULL;
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
