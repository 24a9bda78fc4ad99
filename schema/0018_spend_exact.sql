-- spend_monthly adds each row's contribution to its cell with SQLite's +,
-- which does not stop at 2^63 cents the way SUM() does: it goes on in
-- floating point, and the cell silently becomes a REAL that is no longer
-- exact (the API takes amounts up to 10^15 cents, so some thousands of rows
-- in one month and category are enough).  A cell must stay an exact integer
-- or the write that would spoil it must fail: these triggers abort it with
-- the words db_error() maps to the same 400 as SUM()'s own overflow.
-- INT64_MIN counts as spoiled too: a sum below it comes back from floating
-- point rounded to exactly that value, which is an integer.
CREATE TRIGGER spend_monthly_exact_insert AFTER INSERT ON spend_monthly
WHEN typeof(NEW.cents) <> 'integer' OR NEW.cents = -9223372036854775808
BEGIN
    SELECT RAISE(ABORT, 'integer overflow in spend_monthly');
END;

CREATE TRIGGER spend_monthly_exact_update AFTER UPDATE OF cents ON spend_monthly
WHEN typeof(NEW.cents) <> 'integer' OR NEW.cents = -9223372036854775808
BEGIN
    SELECT RAISE(ABORT, 'integer overflow in spend_monthly');
END;
