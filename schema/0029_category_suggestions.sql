-- Category suggestions learned from the owner's own history (lib/suggest.c):
-- merchant memory (the categories the owner gave each effective merchant)
-- and a multinomial naive Bayes model over the cleaned words of a row's
-- description and effective merchant plus the direction of its amount.
--
-- The counts are kept as rows are written, never retrained per request.
-- A row counts when it has an effective category (not NULL, '' or
-- 'uncategorised'); every row of its owner counts, hidden or not, so a
-- reconciliation moves no count.  The words are cut by ledger_words(),
-- a C function, which a trigger must not call: a program without it (the
-- sqlite3 shell) could then not write a transaction at all.  So, as with
-- search_pending, the triggers only note a row in suggest_pending, with
-- the values it was counted under before its first change since the last
-- flush (counted = 1), and the library takes the old contribution out
-- and puts the new one in for every pending row at once before each
-- commit and before it reads the counts in a writing transaction
-- (suggest_flush).  ledger-admin check recounts all three tables, taking
-- a pending row at its noted values.
--
-- State per user: suggest_classes one cell per category used;
-- suggest_words at most SUGGEST_WORD_IDS (65,538: 65,536 hashed word
-- buckets and two directions) cells per category, in practice one per
-- (word, category) pair used; suggest_merchants one cell per (merchant,
-- category) pair used.  A cell that falls back to 0 is deleted.
CREATE TABLE suggest_classes (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    category  TEXT NOT NULL,
    rows      INTEGER NOT NULL,   -- rows of the owner in the category
    words     INTEGER NOT NULL,   -- their words, summed (the model's N_c)
    PRIMARY KEY (owner_id, category)
) WITHOUT ROWID;

CREATE TABLE suggest_words (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    word      INTEGER NOT NULL,   -- hashed word, or a direction (suggest.h)
    category  TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (owner_id, word, category)
) WITHOUT ROWID;

CREATE TABLE suggest_merchants (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    merchant  TEXT NOT NULL,      -- eff_merchant
    category  TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (owner_id, merchant, category)
) WITHOUT ROWID;

CREATE TABLE suggest_pending (
    id           INTEGER PRIMARY KEY,
    counted      INTEGER NOT NULL,  -- 1: the values below are counted now
    owner_id     INTEGER,
    category     TEXT,
    merchant     TEXT,
    description  TEXT,
    type         TEXT
);

-- A row counted now: the values its counts were made from.
CREATE VIEW suggest_counted AS
SELECT id, owner_id, eff_category AS category, eff_merchant AS merchant, description,
       transaction_type AS type
  FROM transactions
 WHERE eff_category IS NOT NULL AND eff_category NOT IN ('', 'uncategorised')
   AND id NOT IN (SELECT id FROM suggest_pending)
UNION ALL
SELECT id, owner_id, category, merchant, description, type
  FROM suggest_pending
 WHERE counted AND category IS NOT NULL AND category NOT IN ('', 'uncategorised');

-- A row written without a category counts for nothing until one is set,
-- which the update trigger notes: a CSV commit of 100,000 uncategorised
-- rows notes none of them.
CREATE TRIGGER suggest_insert AFTER INSERT ON transactions
WHEN COALESCE(NEW.override_category, NEW.category) IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO suggest_pending (id, counted) VALUES (NEW.id, 0);
END;

-- The first change since the last flush notes what was counted; later
-- ones find the row pending already.
CREATE TRIGGER suggest_update
BEFORE UPDATE OF owner_id, description, eff_merchant, eff_category, transaction_type
ON transactions
WHEN OLD.owner_id IS NOT NEW.owner_id OR OLD.description IS NOT NEW.description
  OR OLD.eff_merchant IS NOT NEW.eff_merchant OR OLD.eff_category IS NOT NEW.eff_category
  OR OLD.transaction_type IS NOT NEW.transaction_type
BEGIN
    INSERT OR IGNORE INTO suggest_pending (id, counted, owner_id, category, merchant,
                                           description, type)
    VALUES (OLD.id, 1, OLD.owner_id, OLD.eff_category, OLD.eff_merchant, OLD.description,
            OLD.transaction_type);
END;

CREATE TRIGGER suggest_delete BEFORE DELETE ON transactions BEGIN
    INSERT OR IGNORE INTO suggest_pending (id, counted, owner_id, category, merchant,
                                           description, type)
    VALUES (OLD.id, 1, OLD.owner_id, OLD.eff_category, OLD.eff_merchant, OLD.description,
            OLD.transaction_type);
END;

-- A run that applied category suggestions (lib/suggest_apply.c) rather
-- than a rule: recorded, listed and reverted as a rule run is.
ALTER TABLE rule_runs ADD COLUMN suggestions INTEGER NOT NULL DEFAULT 0;

-- How sure a suggestion must be for a statement import to take it by
-- itself, per user, in hundredths (0..101); a user without a row takes
-- only merchant-memory suggestions (suggest.h).  A table of its own: a
-- column added to users would change the order SQLite cascades a user's
-- deletion in, and the summaries' triggers rely on that order.
CREATE TABLE suggest_settings (
    user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    threshold  INTEGER NOT NULL CHECK (threshold BETWEEN 0 AND 101)
);

-- The rows there are: every categorised row pending, not counted, so the
-- first flush counts them all.
INSERT INTO suggest_pending (id, counted)
SELECT id, 0 FROM transactions
 WHERE eff_category IS NOT NULL AND eff_category NOT IN ('', 'uncategorised');
