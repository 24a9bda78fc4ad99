-- utf8_lower (lib/text.c) now lowers the capitals of more of the scripts
-- bank exports use (Latin Extended-B and Additional: Romanian Ș and Ț,
-- Vietnamese; Greek Ϊ and Ϋ; the Cyrillic of Ukrainian, Kazakh and the
-- rest; Armenian; Georgian; fullwidth forms).  Categories are stored
-- folded (rule C), so one written before with such a capital would no
-- longer be the category the same name names from now on: each is folded
-- again here (ledger_fold is the new lowering; the update triggers keep
-- eff_category and the summaries in step).  A budget whose folded name
-- the owner already has a budget for gives way to that one.
UPDATE transactions SET category = ledger_fold(category)
 WHERE category <> ledger_fold(category);
UPDATE transactions SET override_category = ledger_fold(override_category)
 WHERE override_category <> ledger_fold(override_category);
UPDATE OR IGNORE budgets SET category = ledger_fold(category)
 WHERE category <> ledger_fold(category);
DELETE FROM budgets WHERE category <> ledger_fold(category);
