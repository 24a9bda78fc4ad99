-- utf8_lower (lib/text.c) now lowers more capitals of Latin Extended-C and
-- -D (Ᵽ, Ᵹ, Ꭓ, Ꞵ to Ꟊ, Ꟑ, Ꟗ, Ꟙ, Ꟶ: an audit of search found "ꞴETA" not
-- found by "ꞵeta").  As in 0015: a category written before with such a
-- capital is folded again, so that it stays the category the same name
-- names from now on (ledger_fold is the new lowering; the update triggers
-- keep eff_category and the summaries in step), and a budget whose folded
-- name the owner already has gives way to that one.
UPDATE transactions SET category = ledger_fold(category)
 WHERE category <> ledger_fold(category);
UPDATE transactions SET override_category = ledger_fold(override_category)
 WHERE override_category <> ledger_fold(override_category);
UPDATE OR IGNORE budgets SET category = ledger_fold(category)
 WHERE category <> ledger_fold(category);
DELETE FROM budgets WHERE category <> ledger_fold(category);
