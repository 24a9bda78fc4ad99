-- Rule C's folding (ledger_category_fold, lib/category.c) now parts words
-- at Unicode spaces as at ASCII ones and drops characters with no look of
-- their own: "Dining<NBSP>Out" was another category than "Dining Out",
-- and "transfers<ZWSP>" looked like transfers but counted as spend (an
-- audit).  As in 0015 and 0021, what was stored before is folded again
-- (ledger_category, db.c: NULL for a name that names nothing, which leaves
-- the row uncategorised); the update triggers keep eff_category and the
-- summaries in step; a budget whose folded name the owner already has, or
-- that names nothing, gives way.
UPDATE transactions SET category = ledger_category(category)
 WHERE category IS NOT ledger_category(category);
UPDATE transactions SET override_category = ledger_category(override_category)
 WHERE override_category IS NOT ledger_category(override_category);
UPDATE OR IGNORE budgets SET category = ledger_category(category)
 WHERE category IS NOT ledger_category(category) AND ledger_category(category) IS NOT NULL;
DELETE FROM budgets WHERE category IS NOT ledger_category(category);
