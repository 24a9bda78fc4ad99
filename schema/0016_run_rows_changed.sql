-- A rule run records every row it matched (apply-all must know the rule
-- has seen it), but a row its actions left as it was is not the run's to
-- put back: reverting the run restored that row's snapshot too, and so
-- wiped edits made to it after the run (an audit found a run that changed
-- nothing undoing a later merchant override, tag and payment method).
-- changed says which rows the run changed; only those are restored.  Rows
-- of runs recorded before are taken as changed, as they were restored.
ALTER TABLE rule_run_rows ADD COLUMN changed INTEGER NOT NULL DEFAULT 1;
