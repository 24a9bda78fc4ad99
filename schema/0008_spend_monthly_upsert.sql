-- spend_monthly's triggers (schema 0003) took a row's old contribution out
-- with an UPDATE whose row-value condition SQLite matched on owner_id
-- alone, reading every (month, category) cell of the owner for each row
-- written: 200 us a row, 10 s when a rule recategorised 50,000 rows.  The
-- same change as an upsert of the negated contribution finds its cell by
-- the whole key.  The cell always exists when a contribution is taken out,
-- so the insert branch never runs; t/0008 would see it if it did.
DROP TRIGGER spend_monthly_update_old;
DROP TRIGGER spend_monthly_delete;

CREATE TRIGGER spend_monthly_update_old
BEFORE UPDATE OF owner_id, date, category, override_category, transaction_type, amount,
                 amount_aud, principal_amount, interest_amount, reconciled_with_id
ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, -cents FROM spend_contribution WHERE id = OLD.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;

CREATE TRIGGER spend_monthly_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO spend_monthly (owner_id, month, category, cents)
    SELECT owner_id, month, category, -cents FROM spend_contribution WHERE id = OLD.id
    ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents;
END;
