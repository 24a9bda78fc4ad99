-- The ledger's schema, whole: the baseline every database of this release
-- starts from (version 27).  A new database is made by this file alone;
-- each change after it is a file of its own, applied in order (README).
--
-- Money columns are INTEGER cents, percentages INTEGER hundredths of a
-- percent, dates TEXT YYYY-MM-DD, timestamps TEXT RFC 3339 UTC.
--
-- Order matters in two ways.  Triggers on one table that answer the same
-- event fire in the reverse of the order they are created in, and the
-- query planner weighs a table's indexes in the order they are created
-- in, so the order below is part of the schema.
--
-- Several tables and columns are kept by triggers from the rows they
-- summarise or copy (eff_category and eff_merchant, spend_monthly,
-- visible_count, visible_total, shared_rows, the search indexes,
-- has_split) and must always equal a recount: ledger-admin check
-- recounts them, as do t/0008 and t/0010 after every kind of write.


-- Users.  A user is created on the first request that carries a new
-- identity (subject).  A placeholder user, added by someone who shares with
-- them, has an email but no subject until they first sign in with that
-- email claim.
CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    subject     TEXT UNIQUE,
    email       TEXT COLLATE NOCASE,
    name        TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL;

-- Who a user has added as a participant ("those the caller added").
CREATE TABLE user_contacts (
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    contact_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, contact_id)
) WITHOUT ROWID;


-- Statements: one bank statement of one account.  statements_bank finds
-- the statements of the banks a list's bank_names filter names without
-- reading every statement of every user.
CREATE TABLE statements (
    id                   INTEGER PRIMARY KEY,
    owner_id             INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bank_name            TEXT NOT NULL,
    account_name         TEXT,
    account_type         TEXT,            -- raw text as received
    statement_type       TEXT NOT NULL DEFAULT 'other' CHECK (statement_type IN
                           ('credit_card','transaction','savings','loan','offset','investment','other')),
    period_start         TEXT,
    period_end           TEXT,
    due_date             TEXT,
    amount_due           INTEGER,
    opening_balance      INTEGER,
    closing_balance      INTEGER,
    interest_rate        INTEGER,         -- hundredths of a percent per annum
    scheduled_repayment  INTEGER,
    repayment_frequency  TEXT CHECK (repayment_frequency IN
                           ('weekly','fortnightly','monthly','quarterly','yearly')),
    redraw_available     INTEGER,
    loan_term_months     INTEGER,
    account_id           TEXT,            -- the bank's account number, for imports
    created_at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX statements_owner ON statements(owner_id, period_end);
CREATE INDEX statements_bank ON statements(bank_name);

CREATE TABLE trips (
    id          INTEGER PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    start_date  TEXT,
    end_date    TEXT,
    notes       TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX trips_owner ON trips(owner_id);


-- Transactions (SPEC.md section 2), statement rows and manual rows alike.
--
-- owner_id is stored on every row, statement rows included (it equals the
-- statement's owner), so the effective owner COALESCE(owner_id, statement
-- owner) of the specification is always just owner_id and scoping needs no
-- join.
--
-- The per-transaction override record of the specification (category,
-- merchant_normalized, my_share_percent, trip_id) lives in the override_*
-- columns of the row itself: every read needs it.  NULL means "not
-- overridden".
--
-- eff_category and eff_merchant are the effective values every filter,
-- sort and report uses.  They are plain columns, not generated columns:
-- SQLite 3.40 never treats an index that holds a generated column as
-- covering, so counting a user's rows by category would read every row
-- instead of one index.  The insert paths write both themselves; the two
-- triggers below rewrite them only when a stored value differs from the
-- one the row's columns give (an insert or update that does not set
-- them), so a value is never stale and a bulk insert pays no second
-- UPDATE per row.
--
-- fitid_out is the direction the bank's file gave a row imported from OFX
-- (1 money out), apart from transaction_type, which the user may correct:
-- a later file's row under the same FITID is the row seen when its amount
-- and this direction agree, so a corrected row is not imported again.
-- NULL for every other row: those compare by their type.
--
-- has_split says whether the row has a split, kept by the triggers on
-- splits at the end of this file.
CREATE TABLE transactions (
    id                    INTEGER PRIMARY KEY,
    statement_id          INTEGER REFERENCES statements(id) ON DELETE CASCADE,
    owner_id              INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    date                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    merchant              TEXT,
    merchant_normalized   TEXT,
    category              TEXT,
    transaction_type      TEXT NOT NULL DEFAULT 'debit',
    amount                INTEGER NOT NULL CHECK (amount >= 0),
    currency              TEXT NOT NULL DEFAULT 'AUD',
    amount_aud            INTEGER CHECK (amount_aud >= 0),
    exchange_rate_to_aud  TEXT,           -- decimal text, kept exactly as given
    payment_method        TEXT CHECK (payment_method IN
                            ('card','cash','bank_transfer','other','credits')),
    reconciled_with_id    INTEGER REFERENCES transactions(id) ON DELETE SET NULL,
    principal_amount      INTEGER,
    interest_amount       INTEGER,
    fitid                 TEXT,           -- the bank's id of an imported row
    import_id             INTEGER,        -- CSV import batch
    created_at            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    override_category             TEXT,
    override_merchant_normalized  TEXT,
    override_share                INTEGER CHECK (override_share BETWEEN 0 AND 10000),
    override_trip_id              INTEGER REFERENCES trips(id) ON DELETE SET NULL,
    eff_category          TEXT,
    -- The merchant a row is listed, searched and sorted under; '' for none.
    eff_merchant          TEXT NOT NULL DEFAULT '',
    fitid_out INTEGER,
    has_split INTEGER NOT NULL DEFAULT 0
);

-- The list's indexes, one per sort key (owner_id, <key>, id): each walks
-- a user's rows in that order for a page, id last so the order is total.
-- The date and amount indexes, which also count the rows for a total,
-- hold after id the columns every list query tests (the effective
-- category for the hidden transfers, reconciliation, the statement for
-- bank_names[]), and the date index the texts a search tests, so neither
-- a list query nor a search reads the rows.  The order of the indexes is
-- the order the query planner weighs them in (see the top of this file).
CREATE INDEX transactions_owner_created ON transactions(owner_id, created_at, id);
CREATE INDEX transactions_owner_merchant ON transactions(owner_id, eff_merchant, id);
-- Covers counting a user's rows by category (the list's total) and the
-- category filters without reading the rows.
CREATE INDEX transactions_owner_category
    ON transactions(owner_id, eff_category, reconciled_with_id, date, id);
CREATE INDEX transactions_statement ON transactions(statement_id, date, id);
-- A statement row is the target of at most one reconciliation.
CREATE UNIQUE INDEX transactions_reconciled ON transactions(reconciled_with_id)
    WHERE reconciled_with_id IS NOT NULL;
CREATE INDEX transactions_trip ON transactions(override_trip_id, date, id)
    WHERE override_trip_id IS NOT NULL;
-- Finding a bank row imported before, by its FITID.
CREATE INDEX transactions_fitid ON transactions(owner_id, fitid) WHERE fitid IS NOT NULL;
CREATE INDEX transactions_owner_amount
    ON transactions(owner_id, amount, id, eff_category, reconciled_with_id, statement_id);
-- The rows with a my_share_percent override, per owner and date.  Few rows
-- have one, and the monthly report on basis=mine finds them without
-- reading every row the caller owns: it takes the gross summary
-- (spend_monthly) and corrects it by the rows whose mine part differs
-- from their spend, which are the split rows, the rows shared with the
-- caller, and these (spend.c).
CREATE INDEX transactions_override_share ON transactions(owner_id, date)
    WHERE override_share IS NOT NULL;
CREATE INDEX transactions_owner_date
    ON transactions(owner_id, date, id, eff_category, reconciled_with_id, statement_id,
                    description, merchant, merchant_normalized, override_merchant_normalized);

CREATE TRIGGER transactions_effective_insert AFTER INSERT ON transactions
WHEN NEW.eff_category IS NOT COALESCE(NEW.override_category, NEW.category)
  OR NEW.eff_merchant IS NOT COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                      NEW.merchant, '')
BEGIN
    UPDATE transactions
       SET eff_category = COALESCE(NEW.override_category, NEW.category),
           eff_merchant = COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                   NEW.merchant, '')
     WHERE id = NEW.id;
END;

CREATE TRIGGER transactions_effective_update
AFTER UPDATE OF category, override_category, merchant, merchant_normalized,
                override_merchant_normalized, eff_category, eff_merchant ON transactions
WHEN NEW.eff_category IS NOT COALESCE(NEW.override_category, NEW.category)
  OR NEW.eff_merchant IS NOT COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                      NEW.merchant, '')
BEGIN
    UPDATE transactions
       SET eff_category = COALESCE(NEW.override_category, NEW.category),
           eff_merchant = COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                   NEW.merchant, '')
     WHERE id = NEW.id;
END;


-- Tags, and which rows carry them.
CREATE TABLE tags (
    id          INTEGER PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    color       TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX tags_owner_name ON tags(owner_id, name COLLATE NOCASE);

CREATE TABLE transaction_tags (
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    tag_id          INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (transaction_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX transaction_tags_tag ON transaction_tags(tag_id, transaction_id);


-- Splits: a participant's share of a row.  A row with a split naming
-- someone other than its owner is shared with them (shared_rows).
CREATE TABLE splits (
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    participant_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    share_percent   INTEGER NOT NULL CHECK (share_percent > 0 AND share_percent <= 10000),
    settled         INTEGER NOT NULL DEFAULT 0 CHECK (settled IN (0, 1)),
    PRIMARY KEY (transaction_id, participant_id)
) WITHOUT ROWID;
CREATE INDEX splits_participant ON splits(participant_id, transaction_id);

-- One payment between two participants is one row per scope (household when
-- trip_id is NULL); the rows of one payment share linked_transaction_id.
CREATE TABLE split_payments (
    id                     INTEGER PRIMARY KEY,
    from_user_id           INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    to_user_id             INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    date                   TEXT NOT NULL,
    notes                  TEXT,
    trip_id                INTEGER REFERENCES trips(id) ON DELETE SET NULL,
    linked_transaction_id  TEXT NOT NULL,
    created_by             INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at             TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    CHECK (from_user_id <> to_user_id)
);
CREATE INDEX split_payments_from ON split_payments(from_user_id, to_user_id);
CREATE INDEX split_payments_to ON split_payments(to_user_id, from_user_id);
CREATE INDEX split_payments_link ON split_payments(linked_transaction_id);
CREATE INDEX split_payments_trip ON split_payments(trip_id) WHERE trip_id IS NOT NULL;


-- Rules and their runs.
CREATE TABLE rules (
    id           INTEGER PRIMARY KEY,
    owner_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    match_mode   TEXT NOT NULL DEFAULT 'all' CHECK (match_mode IN ('all', 'any')),
    conditions   TEXT NOT NULL DEFAULT '[]',  -- JSON, validated by the library
    actions      TEXT NOT NULL DEFAULT '[]',
    enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    manual_only  INTEGER NOT NULL DEFAULT 0 CHECK (manual_only IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX rules_owner ON rules(owner_id);

-- rule_id has no foreign key and rule_name is copied at run time, so a run
-- survives the edit or deletion of its rule.  Runs recorded without a name
-- show as an unknown rule.
CREATE TABLE rule_runs (
    id            INTEGER PRIMARY KEY,
    owner_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    rule_id       INTEGER,
    rule_name     TEXT,
    source        TEXT NOT NULL DEFAULT 'conditions' CHECK (source IN ('conditions', 'selection')),
    matches       INTEGER NOT NULL DEFAULT 0,
    transactions  INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    reverted_at   TEXT
);
CREATE INDEX rule_runs_owner ON rule_runs(owner_id, id);

-- The pre-run values of each row a run touched (overrides, tags, splits as
-- JSON), and the splits the run itself applied.  A run records every row
-- it matched (apply-all must know the rule has seen it), but only the rows
-- its actions changed (changed = 1) are the run's to put back: reverting
-- restores those alone, so it never wipes later edits of a row the run
-- left as it was.
CREATE TABLE rule_run_rows (
    run_id          INTEGER NOT NULL REFERENCES rule_runs(id) ON DELETE CASCADE,
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    snapshot        TEXT NOT NULL,
    changed INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (run_id, transaction_id)
) WITHOUT ROWID;
CREATE INDEX rule_run_rows_txn ON rule_run_rows(transaction_id);


CREATE TABLE budgets (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category  TEXT NOT NULL,
    amount    INTEGER NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (owner_id, category)
) WITHOUT ROWID;

CREATE TABLE csv_imports (
    id          INTEGER PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    row_count   INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);


-- A reconciliation: the manual row hidden behind the statement row it is
-- matched with, and the statement row's own overrides, tags and splits
-- from before the manual row's were copied onto it, so that undoing it
-- puts the statement row back exactly as it was.
--
-- A rule run and a reconciliation each keep the rows they change as they
-- were and put them back whole when undone, so undone out of order one
-- would bring back what the other took away.  The library refuses (409)
-- to put back what a later run or reconciliation still in force has
-- changed since (rule.c, reconcile.c); after_run, the last run id given
-- out before the reconciliation, is the order it goes by.
CREATE TABLE reconciliations (
    manual_id         INTEGER PRIMARY KEY REFERENCES transactions(id) ON DELETE CASCADE,
    statement_txn_id  INTEGER NOT NULL UNIQUE REFERENCES transactions(id) ON DELETE CASCADE,
    snapshot          TEXT NOT NULL,  -- JSON, written and read by lib/reconcile.c
    -- The statement row shows the manual row's Imported date (created_at)
    -- while matched, so it sorts by it too; its own is kept here.
    statement_created_at  TEXT NOT NULL,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    after_run INTEGER NOT NULL DEFAULT 0
);


-- Ids are never given out twice: a rule run's snapshot names the tags and
-- trip of each row, a run keeps its rule's id, a reconciliation the last
-- run id before it, and a client may keep or retry with any id it was
-- given.  SQLite gives a new row the largest id plus one, which after the
-- newest row is deleted is that row's id again.  id_high_water holds one
-- mark per table, and the library writes a row with the id after it.
--
-- Tags, trips, rules and rule runs are written a row at a time: the mark
-- is the largest id given out, and the triggers keep it for rows inserted
-- any other way (tag.c, trip.c, rule.c, csv_import.c).  Transactions,
-- statements and payments are written many rows at a time (a CSV commit
-- writes up to 100,000 in one statement) and deleted from rarely: the
-- mark is the largest id deleted, and a row is written with the id after
-- both that mark and the largest id there is (NEXT_ROW_ID in internal.h;
-- csv_import.c adds a file's rows after it).  A row written any other way
-- gets SQLite's largest plus one, which may be an id given out before but
-- is never one in use.  (AUTOINCREMENT does the same, but the mark lives
-- apart from the tables so none of them needs rebuilding to have it.)
CREATE TABLE id_high_water (
    name  TEXT PRIMARY KEY,
    last  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO id_high_water (name, last) VALUES
    ('tags', 0), ('trips', 0), ('rules', 0), ('rule_runs', 0),
    ('transactions', 0), ('statements', 0), ('split_payments', 0);

CREATE TRIGGER tags_high_water AFTER INSERT ON tags BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'tags' AND last < NEW.id;
END;
CREATE TRIGGER trips_high_water AFTER INSERT ON trips BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'trips' AND last < NEW.id;
END;
CREATE TRIGGER rules_high_water AFTER INSERT ON rules BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'rules' AND last < NEW.id;
END;
CREATE TRIGGER rule_runs_high_water AFTER INSERT ON rule_runs BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'rule_runs' AND last < NEW.id;
END;

CREATE TRIGGER transactions_high_water AFTER DELETE ON transactions
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'transactions') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'transactions';
END;
CREATE TRIGGER statements_high_water AFTER DELETE ON statements
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'statements') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'statements';
END;
CREATE TRIGGER split_payments_high_water AFTER DELETE ON split_payments
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'split_payments') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'split_payments';
END;


-- A bulk insert (a CSV commit of up to 100,000 rows) adds its rows to the
-- summaries below once, grouped, instead of through a trigger per row.
-- While the single row of bulk_insert exists, the insert triggers of
-- spend_monthly, visible_count and the search index do nothing; the
-- writer that set it adds the new rows' grouped counts and their search
-- entries itself, from the same views the triggers read
-- (spend_contribution, visible_own_rows, search_entries), before deleting
-- the row again, all in the same transaction (csv_import.c).  Only inserts
-- are deferred: every update, delete and split write keeps its trigger.
-- Nothing commits with the row present.
CREATE TABLE bulk_insert (
    only_row  INTEGER PRIMARY KEY CHECK (only_row = 1)
);


-- Spend per owner, month and category (Business rule D), kept by triggers
-- so the monthly report reads a few hundred rows instead of every row of
-- five years.  The triggers use the same definition as SPEND_COUNTS_SQL,
-- SPEND_CATEGORY_SQL and SPEND_SQL in lib/internal.h; t/0008 checks after
-- many kinds of writes that this table always equals a recount from
-- transactions.
CREATE TABLE spend_monthly (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month     TEXT NOT NULL,        -- YYYY-MM
    category  TEXT NOT NULL,        -- effective category, 'uncategorised' for none
    cents     INTEGER NOT NULL,
    PRIMARY KEY (owner_id, month, category)
) WITHOUT ROWID;

-- A row's contribution: nothing when it is hidden by reconciliation or is
-- not spend; its interest when it is an itemised loan repayment; minus its
-- amount for a refund; else its amount (home currency).  An itemised loan
-- repayment counts at its interest whatever its category: in a category
-- spend leaves out (transfers, investment, income; rule C folds a bank's
-- "Payment" to transfers) it counts under loan_interest, in any other
-- under its own.
CREATE VIEW spend_contribution AS
SELECT id, owner_id, substr(date, 1, 7) AS month,
       CASE WHEN principal_amount IS NOT NULL AND interest_amount IS NOT NULL
             AND COALESCE(override_category, category, '') IN ('transfers', 'investment', 'income')
            THEN 'loan_interest'
            ELSE COALESCE(override_category, category, 'uncategorised') END AS category,
       CASE WHEN principal_amount IS NOT NULL AND interest_amount IS NOT NULL THEN interest_amount
            WHEN transaction_type = 'refund' THEN -COALESCE(amount_aud, amount)
            ELSE COALESCE(amount_aud, amount) END AS cents
  FROM transactions
 WHERE reconciled_with_id IS NULL
   AND ((principal_amount IS NOT NULL AND interest_amount IS NOT NULL)
        OR (transaction_type IN ('debit', 'fee', 'interest', 'refund')
            AND COALESCE(override_category, category, '') NOT IN ('transfers', 'investment', 'income')));

CREATE TRIGGER spend_monthly_insert AFTER INSERT ON transactions
WHEN NOT EXISTS (SELECT 1 FROM bulk_insert)
BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, cents FROM spend_contribution WHERE id = NEW.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

-- Before the change: take the old contribution out; after it: put the new
-- one in.  Only columns that decide the contribution fire these.  Taking
-- out is an upsert of the negated contribution, which finds its cell by
-- the whole key (an UPDATE with a row-value condition is matched on
-- owner_id alone and reads every cell of the owner for each row written).
-- The cell always exists then, so the insert branch never runs; t/0008
-- would see it if it did.
CREATE TRIGGER spend_monthly_update_old
BEFORE UPDATE OF owner_id, date, category, override_category, transaction_type, amount,
                 amount_aud, principal_amount, interest_amount, reconciled_with_id
ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, -cents FROM spend_contribution WHERE id = OLD.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

CREATE TRIGGER spend_monthly_update_new
AFTER UPDATE OF owner_id, date, category, override_category, transaction_type, amount,
                amount_aud, principal_amount, interest_amount, reconciled_with_id
ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, cents FROM spend_contribution WHERE id = NEW.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

CREATE TRIGGER spend_monthly_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, -cents FROM spend_contribution WHERE id = OLD.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

-- A cell stays an exact integer, or the write that would spoil it fails.
-- SQLite's + does not stop at 2^63 cents the way SUM() does: it goes on in
-- floating point, and the cell would silently become an inexact REAL (the
-- API takes amounts up to 10^15 cents, so some thousands of rows in one
-- month and category are enough).  These triggers abort such a write with
-- the words db_error() maps to the same 400 as SUM()'s own overflow.
-- INT64_MIN counts as spoiled too: a sum below it comes back from floating
-- point rounded to exactly that value, which is an integer.
CREATE TRIGGER spend_monthly_exact_insert AFTER INSERT ON spend_monthly
WHEN typeof(NEW.cents) <> 'integer' OR NEW.cents = -9223372036854775808
BEGIN
    SELECT RAISE(ABORT, 'integer overflow in spend_monthly');
END;

CREATE TRIGGER spend_monthly_exact_update AFTER UPDATE OF cents ON spend_monthly
WHEN typeof(NEW.cents) <> 'integer' OR NEW.cents = -9223372036854775808
BEGIN
    SELECT RAISE(ABORT, 'integer overflow in spend_monthly');
END;


-- How many rows each user sees in the transaction list, per month,
-- effective category, transaction type, Manual (statement_id IS NULL,
-- which never changes on a row) and split state, kept by triggers.  The
-- list's `total` is an exact count: for the default list, the category,
-- type, bank_names[]=Manual and has_split filters and date ranges it is a
-- sum over this table (or visible_total) plus a count of the rows in the
-- range's two edge months, not a count of tens of thousands of index
-- entries.  Other filters still count the rows.
--
-- A user sees a row they own, and a row someone else owns that has a split
-- naming them (the list's two arms, ARM_OWN and ARM_SHARED in
-- lib/txn_list.c); a row hidden by reconciliation is seen by nobody.  A row
-- without a category is kept under '', so the key is never NULL; it is the
-- value the list's exclude filter compares too.  A row shared with a
-- viewer has a split by definition, so its cells always have split = 1.
-- t/0010 checks after every kind of write that this table equals a
-- recount.
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

-- The cells of each row: the owner's arm, and one cell for each
-- participant the row is shared with.  The owner's arm is a view of its
-- own so the CSV commit's grouped count can find its new rows by id
-- (SQLite does not push an IN list into a compound view, and would read
-- every row); new rows have no splits yet, so only that arm counts them.
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

-- Each viewer sees a row once (splits' key is (transaction, participant)
-- and the owner is left out of the split arm), so a row counts 1 in one
-- cell per viewer.  Taking it out is an upsert of -1: an UPDATE with a
-- row-value condition would be matched on viewer_id alone and read every
-- cell of the viewer for each row written, where the upsert finds the
-- cell by its whole key.  The cell always exists then, so its insert
-- branch never runs (t/0010 would see the -1 if it did).
CREATE TRIGGER visible_count_insert AFTER INSERT ON transactions
WHEN NOT EXISTS (SELECT 1 FROM bulk_insert)
BEGIN
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

-- Before the delete, while the splits still name the row's viewers.  The
-- splits then go by cascade after the row is gone, so the split triggers
-- below find no row and do nothing.
CREATE TRIGGER visible_count_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)
    SELECT viewer_id, month, category, type, manual, split, -1 FROM visible_rows WHERE id = OLD.id
    ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

-- A split adds or takes away a participant's cell of the row; the row's
-- first split, and its last, also move the owner's cell between split = 0
-- and split = 1.  owner_cells is the owner's cell of a visible row without
-- its split state, which these triggers decide from the splits left.
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

-- visible_count without the month: how many rows each user sees, per
-- effective category, type, Manual and split state.  The list's default
-- page (every month, transfers hidden) sums some tens of these cells for
-- its `total` rather than thousands of visible_count's.
--
-- It is kept from visible_count itself, not from the rows: every path that
-- changes visible_count (the row and split triggers, the CSV commit's
-- grouped upserts, a merge) changes it through these triggers, so the two
-- cannot disagree about what a user sees.  A cell taken out is an UPDATE,
-- not an upsert: when a user is deleted the cascade may remove this
-- table's cells before visible_count's, and an upsert would then insert a
-- cell for a user who is gone.
CREATE TABLE visible_total (
    viewer_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category   TEXT NOT NULL,       -- '' for none
    type       TEXT NOT NULL,       -- transaction_type
    manual     INTEGER NOT NULL,    -- 1: statement_id IS NULL
    split      INTEGER NOT NULL,    -- 1: the row has a split
    n          INTEGER NOT NULL,
    PRIMARY KEY (viewer_id, category, type, manual, split)
) WITHOUT ROWID;

CREATE TRIGGER visible_total_insert AFTER INSERT ON visible_count BEGIN
    INSERT INTO visible_total (viewer_id, category, type, manual, split, n)
    VALUES (NEW.viewer_id, NEW.category, NEW.type, NEW.manual, NEW.split, NEW.n)
    ON CONFLICT (viewer_id, category, type, manual, split) DO UPDATE SET n = n + excluded.n;
END;

-- visible_count's cells change only in n (every writer upserts by the
-- whole key): one UPDATE by the difference.  A change of key is followed
-- all the same.
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


-- The search index (GET /api/transactions?search=): trigram indexes, so a
-- search reads the entries of the caller's rows that hold the term's
-- trigrams instead of testing every row the caller owns.
--
-- transactions_search indexes the description and the bank's merchant of
-- every row; merchants_search the effective normalized merchant, where a
-- row has one.  The latter is apart because rules and overrides rewrite
-- it, often for tens of thousands of rows at once, and re-indexing the
-- whole row's texts each time would double the time of a rule run.  A row
-- holding a term in one of its texts holds every trigram of the term in
-- one of the two indexes.  A merchant held in the description (as most
-- are: "CARD PURCHASE STARBUCKS 1234", "Starbucks") is not indexed again:
-- a term in it is in the description too.  lower() lowers ASCII only,
-- which is all the index is read for.
--
-- In both, the rowid is the owner's id times 2^40 plus the row's id, so
-- one owner's rows are one range of every trigram's list, and a search
-- reads only the caller's entries.  They are contentless (the texts live
-- in transactions) and keep no positions (detail=none): a match is a row
-- holding every trigram of the term, a superset the list narrows with the
-- exact test (ledger_contains).  Only trigrams of ASCII characters are
-- looked up (txn_search.c): SQLite's trigram folding is not ledger_fold's
-- beyond ASCII.
--
-- The rowid has room for ids from 1 to 2^40 - 1 and owners below 2^23.
-- SQLite hands out ids one past the highest, so a trillion rows would be
-- needed to pass it; but a row written with an id of its own may (SQLite
-- picks ids at random once one is at 2^63 - 1).  Such a row is left out of
-- the indexes, and while one exists the list tests every row instead.
--
-- A contentless table forgets a row only when told the exact texts it was
-- given, so every entry is written from one view per index (the trigger
-- merchants_search_update restates its view in OLD and NEW: a rule run
-- rewrites the normalized merchant of every row it matches, and reading
-- the row again would cost a third of what the index does), and the
-- triggers and txn_search.c are its only writers.
--
-- A new row is not indexed by its INSERT but listed in search_pending,
-- and the pending rows are indexed together when the transaction commits
-- (txn_search.c, called by ledger_commit): FTS5 writes its pending terms
-- out at every statement that opens a savepoint (any that fires a
-- trigger), and an import of a statement per row would write one small
-- segment per row.  Until then the list reads the pending rows as
-- candidates too, so a search never misses one, whoever wrote it.  A
-- pending row is in neither index; a row whose description, merchant,
-- owner or id changes leaves both and is pending again.  A change of the
-- normalized merchant alone is written to merchants_search at once: a
-- rule run is one statement.  The CSV commit (bulk_insert present) adds
-- its rows to transactions_search itself, at once; they have no
-- normalized merchant.  ledger-admin check compares the indexes' rowids
-- with the rows'.
CREATE VIRTUAL TABLE transactions_search USING fts5(
    description, merchant, content = '', detail = 'none', tokenize = 'trigram');
CREATE VIRTUAL TABLE merchants_search USING fts5(
    merchant_normalized, content = '', detail = 'none', tokenize = 'trigram');
CREATE TABLE search_pending (
    id  INTEGER PRIMARY KEY
);

-- The owner range is written +owner_id so that it stays a filter: SQLite
-- would take it for a constraint an index serves and, with no statistics
-- to tell them apart, prefer it to the rowid range of a CSV commit's new
-- rows ("WHERE id BETWEEN ?1 AND ?2"), walking the covering index of
-- every user's rows.
CREATE VIEW search_entries AS
SELECT id, owner_id * 1099511627776 + id AS entry, description,
       CASE WHEN instr(lower(description), lower(merchant)) THEN NULL ELSE merchant END
           AS merchant
  FROM transactions
 WHERE id BETWEEN 1 AND 1099511627775 AND +owner_id BETWEEN 1 AND 8388607;

CREATE VIEW merchant_search_entries AS
SELECT id, owner_id * 1099511627776 + id AS entry,
       COALESCE(override_merchant_normalized, merchant_normalized) AS merchant_normalized
  FROM transactions
 WHERE id BETWEEN 1 AND 1099511627775 AND +owner_id BETWEEN 1 AND 8388607
   AND COALESCE(override_merchant_normalized, merchant_normalized) IS NOT NULL;

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


-- The rows shared with each user through a split (someone else owns them),
-- with copies of the list's sort keys and of the searched texts, kept by
-- triggers.  The list reads a user's own rows in order from the
-- (owner_id, <key>, id) indexes; with these indexes the shared arm
-- streams in order too and a page stops at its end, and the shared arm of
-- a search walks shared_rows_search rather than seeking each shared row
-- in the table.
--
-- Only splits and the copied columns decide a row here; every filter is
-- still applied to the transaction itself.  t/0010 checks this table
-- against a recount after every kind of write.
CREATE TABLE shared_rows (
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    viewer_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    date            TEXT NOT NULL,
    amount          INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    merchant        TEXT NOT NULL,
    description TEXT,
    bank_merchant TEXT,
    merchant_normalized TEXT,
    PRIMARY KEY (transaction_id, viewer_id)
) WITHOUT ROWID;
CREATE INDEX shared_rows_date ON shared_rows(viewer_id, date, transaction_id);
CREATE INDEX shared_rows_amount ON shared_rows(viewer_id, amount, transaction_id);
CREATE INDEX shared_rows_created ON shared_rows(viewer_id, created_at, transaction_id);
CREATE INDEX shared_rows_merchant ON shared_rows(viewer_id, merchant, transaction_id);
CREATE INDEX shared_rows_search
    ON shared_rows(viewer_id, transaction_id, description, bank_merchant, merchant_normalized,
                   date, amount, created_at, merchant);

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

CREATE TRIGGER shared_rows_split_delete AFTER DELETE ON splits BEGIN
    DELETE FROM shared_rows
     WHERE transaction_id = OLD.transaction_id AND viewer_id = OLD.participant_id;
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

-- A new owner may be one of the participants (who then owns rather than
-- shares the row) or the old owner may now be a participant: rebuild the
-- row's entries from its splits.  The copies are read from the table, not
-- NEW: the same UPDATE may also have changed eff_merchant through the
-- effective-values trigger, which runs as a nested statement.
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


-- Whether a row has a split (transactions.has_split), kept by triggers on
-- splits: the rows a user has split are then one partial index away
-- (their balances with each participant, basis=mine, whom they share
-- with), rather than a probe of splits for every row they own.  The index
-- is by id, for the balances' walk in id order (no sort), with the date
-- for basis=mine's range.  Only the flag moves: no trigger on
-- transactions names has_split.
CREATE INDEX transactions_owner_split ON transactions(owner_id, id, date) WHERE has_split;

CREATE TRIGGER has_split_insert AFTER INSERT ON splits BEGIN
    UPDATE transactions SET has_split = 1 WHERE id = NEW.transaction_id AND has_split = 0;
END;
CREATE TRIGGER has_split_delete AFTER DELETE ON splits BEGIN
    UPDATE transactions SET has_split = 0
     WHERE id = OLD.transaction_id AND has_split = 1
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id);
END;
CREATE TRIGGER has_split_move AFTER UPDATE OF transaction_id ON splits BEGIN
    UPDATE transactions SET has_split = 1 WHERE id = NEW.transaction_id AND has_split = 0;
    UPDATE transactions SET has_split = 0
     WHERE id = OLD.transaction_id AND has_split = 1
       AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = OLD.transaction_id);
END;
