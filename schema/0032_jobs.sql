-- A write too large for one short transaction (a CSV commit of up to
-- 100,000 rows, a rule applied to as many, its revert) runs as a job: many
-- short transactions, so that no request holds the write lock for long
-- (lib/job.c).  Its row here is committed before its first chunk and
-- deleted in the transaction of its last, and says what it has written so
-- far, so that a job that fails, or whose process dies, can be undone (a
-- revert: finished).  While it exists, its owner's other requests are
-- refused (409 job_running): nobody reads a part of a job.  One job per
-- user at a time.
--
-- batch is the csv_imports row of a CSV commit, or the rule_runs row of a
-- rule apply (whose rule_run_rows say what its chunks changed) or of a
-- revert (set once its checks passed and it began writing).  tag is the
-- csv-import tag a CSV commit made (NULL when the owner had one); lo and
-- hi bound the ids of the rows its chunks have committed (NULL before the
-- first).  The id is random: it names the byte of the lock file its
-- process holds, and a new job never takes the id of one whose undo has
-- just ended.
CREATE TABLE jobs (
    id        INTEGER PRIMARY KEY,
    owner_id  INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('csv_commit', 'rule_apply', 'rule_revert')),
    batch     INTEGER,
    tag       INTEGER,
    lo        INTEGER,
    hi        INTEGER
);
