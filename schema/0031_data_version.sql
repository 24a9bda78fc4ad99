-- The version of the whole database's content, for HTTP entity tags: a
-- list's tag is a hash of it (with the schema version, the caller, the
-- request and the date), so a repeated read is answered 304 without
-- reading the list.  Every committed write transaction that changed a row
-- sets it anew (ledger_commit), to a random value rather than the next
-- one: a backup put back brings its old value with its old data, so a
-- value never names two different contents.  It is one value for every
-- user: which users a write is visible to (split participants, trip
-- members, payment parties, a claimed placeholder's sharers) is not
-- recomputed for each write, and a tag that failed to move would serve
-- stale data as current.
CREATE TABLE data_version (
    only_row  INTEGER PRIMARY KEY CHECK (only_row = 1),
    v         INTEGER NOT NULL
);
INSERT INTO data_version (only_row, v) VALUES (1, random());
