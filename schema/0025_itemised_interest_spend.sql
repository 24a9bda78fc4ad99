-- An itemised loan repayment counts as spend at its interest (Business
-- rule D) whatever its category.  A lender's repayment is a payment, and
-- rule C folds a bank's "Payment" to transfers, which spend leaves out:
-- the interest of the commonest itemised row counted nowhere in spend
-- while the fees report counted it (an audit).  Such a row in a category
-- spend leaves out (transfers, investment, income) counts under
-- loan_interest; in any other, under its own.  As SPEND_COUNTS_SQL and
-- SPEND_CATEGORY_SQL in lib/internal.h; the summary is counted again.
DROP VIEW spend_contribution;
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

DELETE FROM spend_monthly;
INSERT INTO spend_monthly (owner_id, month, category, cents)
SELECT owner_id, month, category, SUM(cents) FROM spend_contribution
 GROUP BY owner_id, month, category;
