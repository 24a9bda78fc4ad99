-- The views of schema 0017 name the owner range (1 to 2^23 - 1) so that
-- rows whose owner cannot be keyed are left out.  SQLite read that range
-- as a constraint an index serves, and with no statistics to tell them
-- apart it preferred it to the rowid range of a CSV commit's new rows
-- ("WHERE id BETWEEN ?1 AND ?2"): the commit walked the covering index
-- of every user's rows, about 100 ms even for a 1,000-row file.  The
-- unary + keeps the owner range a filter only, so the rows are read by
-- id.  (Lookups by one id or by search_pending's ids were never
-- affected: an equality on the rowid always wins.)
DROP VIEW search_entries;
DROP VIEW merchant_search_entries;

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
