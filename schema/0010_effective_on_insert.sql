-- The effective category and merchant (schema 0002) were always written by
-- a trigger's second UPDATE of the row just inserted, which touched four
-- indexes again and fired the update triggers that watch eff_merchant:
-- half the cost of committing a 100,000-row CSV import.  The insert paths
-- now write both columns themselves, and the triggers run only when a
-- stored value differs from the one the row's columns give (an insert or
-- an update that does not set them), so a value is never left stale.
DROP TRIGGER transactions_effective_insert;
DROP TRIGGER transactions_effective_update;

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
