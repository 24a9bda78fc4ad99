-- A reconciliation: the manual row now hidden behind the statement row it
-- was matched with, and the statement row's own overrides, tags and splits
-- from before the manual row's were copied onto it, so that undoing it
-- puts the statement row back exactly as it was.
CREATE TABLE reconciliations (
    manual_id         INTEGER PRIMARY KEY REFERENCES transactions(id) ON DELETE CASCADE,
    statement_txn_id  INTEGER NOT NULL UNIQUE REFERENCES transactions(id) ON DELETE CASCADE,
    snapshot          TEXT NOT NULL,  -- JSON, written and read by lib/reconcile.c
    -- The statement row shows the manual row's Imported date (created_at)
    -- while matched, so it sorts by it too; its own is kept here.
    statement_created_at  TEXT NOT NULL,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
