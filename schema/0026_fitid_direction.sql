-- The direction the bank's file gave a row imported from OFX (1 money
-- out), kept apart from transaction_type, which the user may correct: a
-- later file's row under the same FITID is the row seen when its amount
-- and this direction agree.  Compared with the type instead, a card file
-- with its signs the wrong way round, corrected by the user, had every
-- corrected row imported again by the next download (an audit), and
-- guessing a correction from the date or text dropped a refund filed
-- under its purchase's FITID (a re-check).  NULL for every other row and
-- for rows imported before this: they compare by their type, as before.
ALTER TABLE transactions ADD COLUMN fitid_out INTEGER;
