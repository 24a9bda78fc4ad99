-- The list's bank_names filter builds the set of statements of the named
-- banks once per query; this index finds them without reading every
-- statement of every user.
CREATE INDEX statements_bank ON statements(bank_name);
