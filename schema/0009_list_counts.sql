-- Two more keys for visible_count (schema 0005), and list indexes that
-- cover the list's own filters.
--
-- visible_count answered the list's `total` for date, category and type
-- filters only.  Counting the rows for bank_names[]=Manual or has_split
-- visited every row the user owns (50,000 on the 1,000,000-row benchmark
-- ledger: 70 ms for Manual, 40 ms for has_split).  Both are properties a
-- cell can carry: `manual` (statement_id IS NULL, which never changes on a
-- row) and `split` (the row has at least one split).  A row shared with a
-- viewer has a split by definition, so its cells always have split = 1.
--
-- The split key moves when a row gets its first split or loses its last,
-- so the split triggers below also move the owner's cell then.  A row
-- deleted with its splits is taken out before the delete, as before; the
-- cascade then finds no row and the split triggers do nothing.
DROP TRIGGER visible_count_insert;
DROP TRIGGER visible_count_update_old;
DROP TRIGGER visible_count_update_new;
DROP TRIGGER visible_count_delete;
DROP TRIGGER visible_count_split_insert;
DROP TRIGGER visible_count_split_delete;
DROP TRIGGER visible_count_split_move_old;
DROP TRIGGER visible_count_split_move_new;
DROP VIEW visible_rows;
DROP TABLE visible_count;

CREATE TABLE visible_count (
    viewer_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month      TEXT NOT NULL,       -- YYYY-MM
    category   TEXT NOT NULL,       -- '' for none
    type       TEXT NOT NULL,       -- transaction_type
    manual     INTEGER NOT NULL,    -- 1: statement_id IS NULL
    split      INTEGER NOT NULL,    -- 1: the row has a split
    n          INTEGER NOT NULL,
    PRIMARY KEY (viewer_id, month, category, type, manual, split)
) WITHOUT ROWID;

CREATE VIEW visible_rows AS
SELECT id, owner_id AS viewer_id, substr(date, 1, 7) AS month,
       COALESCE(override_category, category, '') AS category, transaction_type AS type,
       statement_id IS NULL AS manual,
       EXISTS (SELECT 1 FROM splits s WHERE s.transaction_id = transactions.id) AS split
  FROM transactions
 WHERE reconciled_with_id IS NULL
UNION ALL
SELECT t.id, s.participant_id, substr(t.date, 1, 7), COALESCE(t.override_category, t.category, ''),
       t.transaction_type, t.statement_id IS NULL, 1
  FROM splits s JOIN transactions t ON t.id = s.transaction_id
 WHERE t.reconciled_with_id IS NULL AND s.participant_id <> t.owner_id;

INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
SELECT viewer_id, month, category, type, manual, split, COUNT(*)
  FROM visible_rows GROUP BY 1, 2, 3, 4, 5, 6;

-- Taking a row out is an upsert of -1, for the reason 0005 gives.
CREATE TRIGGER visible_count_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, 1 FROM visible_rows WHERE id = NEW.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_update_old
BEFORE UPDATE OF owner_id, date, category, override_category, transaction_type,
                 reconciled_with_id, statement_id
ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, -1 FROM visible_rows WHERE id = OLD.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_update_new
AFTER UPDATE OF owner_id, date, category, override_category, transaction_type,
                reconciled_with_id, statement_id
ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, 1 FROM visible_rows WHERE id = NEW.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, -1 FROM visible_rows WHERE id = OLD.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

-- The owner's cell of a row whose split key just changed: -1 under the old
-- key and +1 under the new.  `cells` is the row's (owner, month, category,
-- type, manual) when it is visible; `moved` says whether its split state
-- changed, which the callers decide from the number of splits left.
CREATE VIEW owner_cells AS
SELECT id, owner_id AS viewer_id, substr(date, 1, 7) AS month,
       COALESCE(override_category, category, '') AS category, transaction_type AS type,
       statement_id IS NULL AS manual
  FROM transactions
 WHERE reconciled_with_id IS NULL;

CREATE TRIGGER visible_count_split_insert AFTER INSERT ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT NEW.participant_id, month, category, type, manual, 1, 1
      FROM owner_cells WHERE id = NEW.transaction_id AND viewer_id <> NEW.participant_id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
    -- The first split: the owner's row moves from unsplit to split.
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, k.split, k.n
      FROM owner_cells, (SELECT 0 AS split, -1 AS n UNION ALL SELECT 1, 1) k
     WHERE id = NEW.transaction_id
       AND (SELECT COUNT(*) FROM splits WHERE transaction_id = NEW.transaction_id) = 1
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_delete AFTER DELETE ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT OLD.participant_id, month, category, type, manual, 1, -1
      FROM owner_cells WHERE id = OLD.transaction_id AND viewer_id <> OLD.participant_id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
    -- The last split: the owner's row moves back to unsplit.
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, k.split, k.n
      FROM owner_cells, (SELECT 1 AS split, -1 AS n UNION ALL SELECT 0, 1) k
     WHERE id = OLD.transaction_id
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id)
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_move_old
BEFORE UPDATE OF transaction_id, participant_id ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT OLD.participant_id, month, category, type, manual, 1, -1
      FROM owner_cells WHERE id = OLD.transaction_id AND viewer_id <> OLD.participant_id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_count_split_move_new
AFTER UPDATE OF transaction_id, participant_id ON splits BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT NEW.participant_id, month, category, type, manual, 1, 1
      FROM owner_cells WHERE id = NEW.transaction_id AND viewer_id <> NEW.participant_id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
    -- A split moved to another row: the old row may have lost its last
    -- split and the new one gained its first.
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, k.split, k.n
      FROM owner_cells, (SELECT 1 AS split, -1 AS n UNION ALL SELECT 0, 1) k
     WHERE id = OLD.transaction_id AND OLD.transaction_id <> NEW.transaction_id
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id)
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, k.split, k.n
      FROM owner_cells, (SELECT 0 AS split, -1 AS n UNION ALL SELECT 1, 1) k
     WHERE id = NEW.transaction_id AND OLD.transaction_id <> NEW.transaction_id
       AND (SELECT COUNT(*) FROM splits WHERE transaction_id = NEW.transaction_id) = 1
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

-- The date and amount indexes walk a user's rows in order for a page and
-- count them for a total; with the columns every list query tests (the
-- effective category for the hidden transfers, reconciliation, the
-- statement for bank_names[]) in the index, neither reads the rows.  They
-- follow id, so the order the page relies on is unchanged.
DROP INDEX transactions_owner_date;
CREATE INDEX transactions_owner_date
    ON transactions(owner_id, date, id, eff_category, reconciled_with_id, statement_id);
DROP INDEX transactions_owner_amount;
CREATE INDEX transactions_owner_amount
    ON transactions(owner_id, amount, id, eff_category, reconciled_with_id, statement_id);
