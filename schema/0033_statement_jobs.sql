-- A statement of more rows than one chunk (POST /api/statements, or a
-- statement file's import: one statement per account) runs as a job too
-- (lib/statement.c, lib/statement_import.c).  Its undo deletes the rows of
-- the owner's statements whose ids are between lo and hi, a chunk at a
-- time, and then those statements: a job's statements take ids after
-- every statement there is, and the owner, refused meanwhile, makes no
-- other.  So does apply-all (POST /api/rules/apply, lib/rule_run.c), whose
-- lo and hi bound the ids of the rule runs it has written; its undo puts
-- back each of the owner's runs between them, the last first, from their
-- snapshots.  SQLite cannot change a CHECK in place, so the table is made
-- again with the new kinds, keeping any row it holds.
CREATE TABLE jobs_new (
    id        INTEGER PRIMARY KEY,
    owner_id  INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL
              CHECK (kind IN ('csv_commit', 'rule_apply', 'rule_revert', 'statement',
                              'rule_apply_all')),
    batch     INTEGER,
    tag       INTEGER,
    lo        INTEGER,
    hi        INTEGER
);
INSERT INTO jobs_new (id, owner_id, kind, batch, tag, lo, hi)
SELECT id, owner_id, kind, batch, tag, lo, hi FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
