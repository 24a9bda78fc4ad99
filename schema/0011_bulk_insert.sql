-- A bulk insert (a CSV commit of up to 100,000 rows) may add its rows to
-- the two summaries once, grouped, instead of through a trigger per row:
-- the per-row upserts into spend_monthly and visible_count were half of
-- the time such a commit took.  While the single row of bulk_insert
-- exists, the insert triggers of both summaries do nothing; the writer
-- that set it adds the new rows' grouped counts itself, from the same
-- views the triggers read (spend_contribution, visible_own_rows), before
-- deleting the row again, all in the same transaction (csv_import.c).
-- Only inserts are deferred: every update, delete and split write keeps
-- its trigger.  Nothing commits with the row present: t/0008 and t/0010
-- recount after a CSV commit.
-- New rows have no splits yet, so only the owner's arm of visible_rows
-- counts them; that arm is its own view so the grouped count can find the
-- rows by id (SQLite does not push an IN list into a compound view, and
-- would read every row).
DROP VIEW visible_rows;
CREATE VIEW visible_own_rows AS
SELECT id, owner_id AS viewer_id, substr(date, 1, 7) AS month,
       COALESCE(override_category, category, '') AS category, transaction_type AS type,
       statement_id IS NULL AS manual,
       EXISTS (SELECT 1 FROM splits s WHERE s.transaction_id = transactions.id) AS split
  FROM transactions
 WHERE reconciled_with_id IS NULL;
CREATE VIEW visible_rows AS
SELECT * FROM visible_own_rows
UNION ALL
SELECT t.id, s.participant_id, substr(t.date, 1, 7), COALESCE(t.override_category, t.category, ''),
       t.transaction_type, t.statement_id IS NULL, 1
  FROM splits s JOIN transactions t ON t.id = s.transaction_id
 WHERE t.reconciled_with_id IS NULL AND s.participant_id <> t.owner_id;

CREATE TABLE bulk_insert (
    only_row  INTEGER PRIMARY KEY CHECK (only_row = 1)
);

DROP TRIGGER spend_monthly_insert;
CREATE TRIGGER spend_monthly_insert AFTER INSERT ON transactions
WHEN NOT EXISTS (SELECT 1 FROM bulk_insert)
BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, cents FROM spend_contribution WHERE id = NEW.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

DROP TRIGGER visible_count_insert;
CREATE TRIGGER visible_count_insert AFTER INSERT ON transactions
WHEN NOT EXISTS (SELECT 1 FROM bulk_insert)
BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, 1 FROM visible_rows WHERE id = NEW.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;
