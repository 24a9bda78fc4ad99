-- visible_count (schemas 0005, 0009) without the month: how many rows each
-- user sees, per effective category, type, Manual and split state.  The
-- list's default page (every month, transfers hidden) summed all of a
-- user's visible_count cells for its `total`: 4,735 cells on the
-- 1,000,000-row benchmark ledger, 0.4 ms, half of the page's time in the
-- library.  Here the same sum is some tens of cells.
--
-- It is kept from visible_count itself, not from the rows: every path that
-- changes visible_count (the row and split triggers, the CSV commit's
-- grouped upserts, a merge) changes it through these three triggers, so
-- the two cannot disagree about what a user sees.  A cell taken out is an
-- UPDATE, not an upsert: when a user is deleted the cascade may remove
-- this table's cells before visible_count's, and an upsert would then
-- insert a cell for a user who is gone.
CREATE TABLE visible_total (
    viewer_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category   TEXT NOT NULL,       -- '' for none
    type       TEXT NOT NULL,       -- transaction_type
    manual     INTEGER NOT NULL,    -- 1: statement_id IS NULL
    split      INTEGER NOT NULL,    -- 1: the row has a split
    n          INTEGER NOT NULL,
    PRIMARY KEY (viewer_id, category, type, manual, split)
) WITHOUT ROWID;

INSERT INTO visible_total (viewer_id, category, type, manual, split, n)
SELECT viewer_id, category, type, manual, split, SUM(n) FROM visible_count GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER visible_total_insert AFTER INSERT ON visible_count BEGIN
    INSERT INTO visible_total (viewer_id, category, type, manual, split, n)
    VALUES (NEW.viewer_id, NEW.category, NEW.type, NEW.manual, NEW.split, NEW.n)
    ON CONFLICT (viewer_id, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

-- visible_count's cells change only in n (every writer upserts by the
-- whole key): one UPDATE by the difference.  A change of key, which no
-- writer makes today, is followed all the same.
CREATE TRIGGER visible_total_update AFTER UPDATE ON visible_count
WHEN NEW.viewer_id = OLD.viewer_id AND NEW.category = OLD.category AND NEW.type = OLD.type
     AND NEW.manual = OLD.manual AND NEW.split = OLD.split
BEGIN
    UPDATE visible_total SET n = n + NEW.n - OLD.n
     WHERE viewer_id = NEW.viewer_id AND category = NEW.category AND type = NEW.type
       AND manual = NEW.manual AND split = NEW.split;
END;

CREATE TRIGGER visible_total_rekey AFTER UPDATE ON visible_count
WHEN NOT (NEW.viewer_id = OLD.viewer_id AND NEW.category = OLD.category AND NEW.type = OLD.type
          AND NEW.manual = OLD.manual AND NEW.split = OLD.split)
BEGIN
    UPDATE visible_total SET n = n - OLD.n
     WHERE viewer_id = OLD.viewer_id AND category = OLD.category AND type = OLD.type
       AND manual = OLD.manual AND split = OLD.split;
    INSERT INTO visible_total (viewer_id, category, type, manual, split, n)
    VALUES (NEW.viewer_id, NEW.category, NEW.type, NEW.manual, NEW.split, NEW.n)
    ON CONFLICT (viewer_id, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER visible_total_delete AFTER DELETE ON visible_count BEGIN
    UPDATE visible_total SET n = n - OLD.n
     WHERE viewer_id = OLD.viewer_id AND category = OLD.category AND type = OLD.type
       AND manual = OLD.manual AND split = OLD.split;
END;
