-- A statement of more rows than one chunk is deleted as a job
-- (DELETE /api/statements/{id}, lib/statement_delete.c).  Its batch is the
-- statement's id, noted with its first chunk.  A delete cannot be undone
-- from what it wrote, so its undo finishes it instead: the rest of the
-- rows its owner alone sees a chunk at a time, then the statement with
-- its shared rows.  SQLite cannot change a CHECK in place, so the table is
-- made again with the new kind, keeping any row it holds.
CREATE TABLE jobs_new (
    id        INTEGER PRIMARY KEY,
    owner_id  INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL
              CHECK (kind IN ('csv_commit', 'rule_apply', 'rule_revert', 'statement',
                              'rule_apply_all', 'statement_delete')),
    batch     INTEGER,
    tag       INTEGER,
    lo        INTEGER,
    hi        INTEGER
);
INSERT INTO jobs_new (id, owner_id, kind, batch, tag, lo, hi)
SELECT id, owner_id, kind, batch, tag, lo, hi FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
