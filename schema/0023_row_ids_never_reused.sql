-- Transactions, statements and payments never give an id out twice
-- either (0013 did it for tags, trips and rules).  SQLite gives a new row
-- the largest id plus one, so the newest row's id, once that row was
-- deleted, went to the next row anybody made: a client retrying a DELETE
-- whose answer it lost would delete its own next row, and an id a client
-- kept could name another user's row (an audit saw dave's deleted row
-- come back as alice's, and alice's statement as carol's).
--
-- These tables are written many rows at a time (a CSV commit writes up to
-- 100,000 in one statement) and deleted from rarely, so the mark is kept
-- on the rarer side: id_high_water holds the largest id deleted (or the
-- largest there was when this ran), and the library writes a row with the
-- id after both that mark and the largest id there is (NEXT_ROW_ID in
-- internal.h; csv_import.c adds the file's rows after it).  A row written
-- any other way gets SQLite's largest plus one, which may be an id given
-- out before but is never one in use.
INSERT INTO id_high_water (name, last) VALUES
    ('transactions', COALESCE((SELECT MAX(id) FROM transactions), 0)),
    ('statements', COALESCE((SELECT MAX(id) FROM statements), 0)),
    ('split_payments', COALESCE((SELECT MAX(id) FROM split_payments), 0));
CREATE TRIGGER transactions_high_water AFTER DELETE ON transactions
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'transactions') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'transactions';
END;
CREATE TRIGGER statements_high_water AFTER DELETE ON statements
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'statements') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'statements';
END;
CREATE TRIGGER split_payments_high_water AFTER DELETE ON split_payments
WHEN OLD.id > (SELECT last FROM id_high_water WHERE name = 'split_payments') BEGIN
    UPDATE id_high_water SET last = OLD.id WHERE name = 'split_payments';
END;
