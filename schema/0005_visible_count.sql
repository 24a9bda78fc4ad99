-- How many rows each user sees in the transaction list, per month,
-- effective category and transaction type, kept by triggers.  The list's
-- `total` is an exact count, and counting tens of thousands of index
-- entries (plus a row lookup for every row shared through a split) cost
-- 20 ms a page on a 1,000,000-row ledger.  For the default list, category
-- and type filters and date ranges the total is now a sum over this table
-- plus a count of the rows in the range's two edge months.  Other filters
-- still count the rows.
--
-- A user sees a row they own, and a row someone else owns that has a split
-- naming them (the list's two arms, ARM_OWN and ARM_SHARED in
-- lib/txn_list.c); a row hidden by reconciliation is seen by nobody.  A row
-- without a category is kept under '', so the key is never NULL; it is the
-- value the list's exclude filter compares too.  t/0010 checks after every
-- kind of write that this table equals a recount.
CREATE TABLE visible_count (
    viewer_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month      TEXT NOT NULL,       -- YYYY-MM
    category   TEXT NOT NULL,
    type       TEXT NOT NULL,       -- transaction_type
    n          INTEGER NOT NULL,
    PRIMARY KEY (viewer_id, month, category, type)
) WITHOUT ROWID;

CREATE VIEW visible_rows AS
SELECT id, owner_id AS viewer_id, substr(date, 1, 7) AS month,
       COALESCE(override_category, category, '') AS category, transaction_type AS type
  FROM transactions
 WHERE reconciled_with_id IS NULL
UNION ALL
SELECT t.id, s.participant_id, substr(t.date, 1, 7), COALESCE(t.override_category, t.category, ''),
       t.transaction_type
  FROM splits s JOIN transactions t ON t.id = s.transaction_id
 WHERE t.reconciled_with_id IS NULL AND s.participant_id <> t.owner_id;

INSERT INTO visible_count (viewer_id, month, category, type, n)
SELECT viewer_id, month, category, type, COUNT(*) FROM visible_rows GROUP BY 1, 2, 3, 4;

-- Each viewer sees a row once (splits' key is (transaction, participant)
-- and the owner is left out of the split arm), so a row counts 1 in one
-- cell per viewer.  Taking it out is an upsert of -1: an UPDATE with a
-- row-value condition would be matched on viewer_id alone and read every
-- cell of the viewer for each row written (500 us a row), where the upsert
-- finds the cell by its whole key.  The cell always exists then, so its
-- insert branch never runs (t/0010 would see the -1 if it did).
CREATE TRIGGER visible_count_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT viewer_id, month, category, type, 1 FROM visible_rows WHERE id = NEW.id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_update_old
BEFORE UPDATE OF owner_id, date, category, override_category, transaction_type, reconciled_with_id
ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT viewer_id, month, category, type, -1 FROM visible_rows WHERE id = OLD.id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_update_new
AFTER UPDATE OF owner_id, date, category, override_category, transaction_type, reconciled_with_id
ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT viewer_id, month, category, type, 1 FROM visible_rows WHERE id = NEW.id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

-- Before the delete, while the splits still name the row's viewers.  The
-- splits then go by cascade after the row is gone, so the split triggers
-- below find no row and do nothing.
CREATE TRIGGER visible_count_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT viewer_id, month, category, type, -1 FROM visible_rows WHERE id = OLD.id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_insert AFTER INSERT ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT NEW.participant_id, substr(date, 1, 7), COALESCE(override_category, category, ''),
           transaction_type, 1
      FROM transactions
     WHERE id = NEW.transaction_id AND reconciled_with_id IS NULL AND owner_id <> NEW.participant_id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_delete AFTER DELETE ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT OLD.participant_id, substr(date, 1, 7), COALESCE(override_category, category, ''),
           transaction_type, -1
      FROM transactions
     WHERE id = OLD.transaction_id AND reconciled_with_id IS NULL AND owner_id <> OLD.participant_id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_move_old
BEFORE UPDATE OF transaction_id, participant_id ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT OLD.participant_id, substr(date, 1, 7), COALESCE(override_category, category, ''),
           transaction_type, -1
      FROM transactions
     WHERE id = OLD.transaction_id AND reconciled_with_id IS NULL AND owner_id <> OLD.participant_id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_move_new
AFTER UPDATE OF transaction_id, participant_id ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, n)
    SELECT NEW.participant_id, substr(date, 1, 7), COALESCE(override_category, category, ''),
           transaction_type, 1
      FROM transactions
     WHERE id = NEW.transaction_id AND reconciled_with_id IS NULL AND owner_id <> NEW.participant_id
    ON CONFLICT (viewer_id, month, category, type) DO UPDATE SET n = n + excluded.n;
END;
