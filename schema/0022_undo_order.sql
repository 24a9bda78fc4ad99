-- Which came first, a rule run or a reconciliation.  Each keeps the rows
-- it changes as they were and puts them back whole when it is undone, so
-- undone out of order one brings back what the other took away (an
-- audit: run A then run B changed a row, A was reverted and took B's
-- changes with it, then reverting B brought A's back; a run on a
-- statement row, a reconciliation into it, the run reverted, and undoing
-- the reconciliation brought the run's split back; another order counted
-- a debt twice).  The library now refuses (409) to put back what a later
-- run or reconciliation still in force has changed since (rule.c,
-- reconcile.c), and for that it must know the order.
--
-- Run ids are given out once and in order, as 0013 does for tags, trips
-- and rules (the newest runs' ids, once their owner was deleted, went to
-- the next runs anybody made) ...
INSERT INTO id_high_water (name, last)
    VALUES ('rule_runs', COALESCE((SELECT MAX(id) FROM rule_runs), 0));
CREATE TRIGGER rule_runs_high_water AFTER INSERT ON rule_runs BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'rule_runs' AND last < NEW.id;
END;
-- ... and a reconciliation keeps the last run id given out before it.
-- For those made before, the runs of the same second or earlier count as
-- before (timestamps are all there is).
ALTER TABLE reconciliations ADD COLUMN after_run INTEGER NOT NULL DEFAULT 0;
UPDATE reconciliations
   SET after_run = COALESCE((SELECT MAX(id) FROM rule_runs
                              WHERE created_at <= reconciliations.created_at), 0);
