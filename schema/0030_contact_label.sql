-- What the caller gave when adding a participant by email, kept as the
-- caller's own: the label (the name they typed, which the answer to the
-- add gives back) and the address as they spelt it.  Adding someone
-- answers the same whether the address had an account or not (POST
-- /api/participants), and the caller's views of a person who has not
-- turned to them (added them, split a row of theirs with them, recorded
-- a payment with them) show the address as typed and no name, never the
-- account's own name or spelling, so nothing tells an account from a
-- placeholder.
ALTER TABLE user_contacts ADD COLUMN label TEXT;
ALTER TABLE user_contacts ADD COLUMN email TEXT;

-- A placeholder's name was the label of whoever added it: it becomes the
-- label of each contact naming it, and the placeholder keeps no name.
UPDATE user_contacts SET label = (SELECT u.name FROM users u WHERE u.id = contact_id)
 WHERE contact_id IN (SELECT id FROM users WHERE subject IS NULL AND name IS NOT NULL);
UPDATE users SET name = NULL WHERE subject IS NULL;
