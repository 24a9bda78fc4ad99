-- The rows with a my_share_percent override, per owner and date.  Few rows
-- have one, and the monthly report on basis=mine must find them without
-- reading every row the caller owns: it takes the gross summary
-- (spend_monthly) and corrects it by the rows whose mine part differs
-- from their spend, which are the split rows, the rows shared with the
-- caller, and these (spend.c).
CREATE INDEX transactions_override_share ON transactions(owner_id, date)
    WHERE override_share IS NOT NULL;
