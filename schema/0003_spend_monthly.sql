-- Spend per owner, month and category (Business rule D), kept by triggers
-- so the monthly report reads a few hundred rows instead of every row of
-- five years.  The triggers use the same definition as SPEND_SQL and
-- SPEND_COUNTS_SQL in lib/internal.h; t/0008 checks after many kinds of
-- writes that this table always equals a recount from transactions.
CREATE TABLE spend_monthly (
    owner_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month     TEXT NOT NULL,        -- YYYY-MM
    category  TEXT NOT NULL,        -- effective category, 'uncategorised' for none
    cents     INTEGER NOT NULL,
    PRIMARY KEY (owner_id, month, category)
) WITHOUT ROWID;

-- A row's contribution: nothing when it is hidden by reconciliation or is
-- not spend; its interest when it is an itemised loan repayment; minus its
-- amount for a refund; else its amount (home currency).
CREATE VIEW spend_contribution AS
SELECT id, owner_id, substr(date, 1, 7) AS month,
       COALESCE(override_category, category, 'uncategorised') AS category,
       CASE WHEN principal_amount IS NOT NULL AND interest_amount IS NOT NULL THEN interest_amount
            WHEN transaction_type = 'refund' THEN -COALESCE(amount_aud, amount)
            ELSE COALESCE(amount_aud, amount) END AS cents
  FROM transactions
 WHERE reconciled_with_id IS NULL
   AND COALESCE(override_category, category, '') NOT IN ('transfers', 'investment', 'income')
   AND ((principal_amount IS NOT NULL AND interest_amount IS NOT NULL)
        OR transaction_type IN ('debit', 'fee', 'interest', 'refund'));

INSERT INTO spend_monthly (owner_id, month, category, cents)
SELECT owner_id, month, category, SUM(cents) FROM spend_contribution
 GROUP BY owner_id, month, category;

CREATE TRIGGER spend_monthly_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, cents FROM spend_contribution WHERE id = NEW.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

-- Before the change: take the old contribution out; after it: put the new
-- one in.  Only columns that decide the contribution fire these.
CREATE TRIGGER spend_monthly_update_old
BEFORE UPDATE OF owner_id, date, category, override_category, transaction_type, amount,
                 amount_aud, principal_amount, interest_amount, reconciled_with_id
ON transactions BEGIN
    UPDATE spend_monthly SET cents = cents - (SELECT cents FROM spend_contribution WHERE id = OLD.id)
     WHERE EXISTS (SELECT 1 FROM spend_contribution WHERE id = OLD.id)
       AND (owner_id, month, category) =
           (SELECT owner_id, month, category FROM spend_contribution WHERE id = OLD.id);
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
    UPDATE spend_monthly SET cents = cents - (SELECT cents FROM spend_contribution WHERE id = OLD.id)
     WHERE EXISTS (SELECT 1 FROM spend_contribution WHERE id = OLD.id)
       AND (owner_id, month, category) =
           (SELECT owner_id, month, category FROM spend_contribution WHERE id = OLD.id);
END;
