-- The data model of SPEC.md section 2.  Money columns are INTEGER cents,
-- percentages INTEGER hundredths of a percent, dates TEXT YYYY-MM-DD,
-- timestamps TEXT RFC 3339 UTC.

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
-- sort and report uses.  They are plain columns kept by the triggers below,
-- not generated columns: SQLite 3.40 never treats an index that holds a
-- generated column as covering, so counting a user's rows by category
-- would read every row instead of one index.
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
    eff_merchant          TEXT NOT NULL DEFAULT ''
);

CREATE TRIGGER transactions_effective_insert AFTER INSERT ON transactions BEGIN
    UPDATE transactions
       SET eff_category = COALESCE(NEW.override_category, NEW.category),
           eff_merchant = COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                   NEW.merchant, '')
     WHERE id = NEW.id;
END;
CREATE TRIGGER transactions_effective_update
AFTER UPDATE OF category, override_category, merchant, merchant_normalized,
                override_merchant_normalized, eff_category, eff_merchant ON transactions BEGIN
    UPDATE transactions
       SET eff_category = COALESCE(NEW.override_category, NEW.category),
           eff_merchant = COALESCE(NEW.override_merchant_normalized, NEW.merchant_normalized,
                                   NEW.merchant, '')
     WHERE id = NEW.id;
END;

CREATE INDEX transactions_owner_date ON transactions(owner_id, date, id);
CREATE INDEX transactions_owner_amount ON transactions(owner_id, amount, id);
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
-- JSON), and the splits the run itself applied.
CREATE TABLE rule_run_rows (
    run_id          INTEGER NOT NULL REFERENCES rule_runs(id) ON DELETE CASCADE,
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    snapshot        TEXT NOT NULL,
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
