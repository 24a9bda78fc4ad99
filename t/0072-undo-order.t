#!/usr/bin/perl
# Undoing rule runs and reconciliations in order (SPEC.md section 3: a
# revert restores the pre-run snapshot; an undone reconciliation puts the
# statement row back).  Both keep the rows they change as they were and put
# them back whole, so undone out of order one would bring back what the
# other took away.  What came later and is
# still in force is undone first: anything else is 409 with nothing
# changed, and in the right order every row ends as it began.
#
# Each scenario has its own rows, told apart by description; bob is split
# in by the rules, so his balance with alice shows a split brought back.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);
participant_ok($rig, @$_) for [alice => 'bob'], [bob => 'alice'];
my $tag = $rig->post('/api/tags', { name => 'ruled' }, user => 'alice')->{json}{id};
ok($tag, 'alice has the tag ruled');

# ---- helpers ---------------------------------------------------------------------

# What runs and reconciliations change on a row, comparable with is_deeply.
sub state_of {
    my ($id) = @_;
    my $res = $rig->get("/api/transactions/$id", user => 'alice');
    return { status => $res->{status} } if $res->{status} != 200;
    my $r = $res->{json};
    return {
        category => $r->{category}, merchant_normalized => $r->{merchant_normalized},
        tags => [sort map { $_->{name} } @{ $r->{tags} // [] }],
        splits => [map { [$_->{participant_id}, m2($_->{share_percent})] }
                   sort { $a->{participant_id} <=> $b->{participant_id} } @{ $r->{splits} // [] }],
    };
}

# What bob owes alice, as text (0.00 when nothing).
sub bob_owes { m2($rig->get("/api/participants/$uid{bob}/balance", user => 'alice')->{json}{net} // 0) }

# A rule over the rows whose description holds $word; the actions given.
sub rule {
    my ($word, @actions) = @_;
    my $res = $rig->post('/api/rules', { name => "rule $word " . scalar(@actions),
                                         conditions => [ { field => 'description', operator => 'contains',
                                                           value => $word } ],
                                         actions => \@actions }, user => 'alice');
    is($res->{status}, 201, "alice makes a rule over '$word'") or diag($res->{content});
    return $res->{json}{id};
}
sub apply {
    my ($rule) = @_;
    my $res = $rig->post("/api/rules/apply/$rule", {}, user => 'alice');
    is($res->{status}, 200, "rule $rule applied") or diag($res->{content});
    is($res->{json}{transactions}, 1, 'and it changed one row');
    return $res->{json}{run_id};
}
sub revert { $rig->del("/api/rules/apply/$_[0]", user => 'alice') }
sub undo { $rig->del("/api/reconcile/$_[0]", user => 'alice') }
sub reconcile {
    my ($manual, $stmt) = @_;
    my $res = $rig->post('/api/reconcile', { matches => [ { manual_id => $manual, statement_transaction_id => $stmt } ] },
                         user => 'alice');
    is($res->{status}, 200, "manual row $manual reconciled into $stmt") or diag($res->{content});
}
sub manual {
    my ($desc, %f) = @_;
    my $res = $rig->post('/api/transactions', { date => '2026-03-10', amount => 60, description => $desc,
                                                payment_method => 'card', %f }, user => 'alice');
    is($res->{status}, 201, "alice writes '$desc'") or diag($res->{content});
    return $res->{json}{id};
}
# A statement row of 60.00 on 2026-03-10 (one statement each).
sub statement_row {
    my ($desc) = @_;
    my $res = $rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Visa Credit Card',
                                              period_start => '2026-03-01', period_end => '2026-03-31',
                                              transactions => [ { date => '2026-03-10', amount => 60,
                                                                  description => $desc, transaction_type => 'debit' } ] },
                         user => 'alice');
    is($res->{status}, 201, "alice imports '$desc'") or diag($res->{content});
    my $items = $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items} // [];
    return $items->[0]{id};
}

my $split_bob = { type => 'apply_split', shares => [ { participant_id => $uid{bob}, share_percent => 50 } ] };
is(bob_owes(), '0.00', 'bob owes alice nothing to begin with');

# ---- two runs on one row --------------------------------------------------------------
{
    my $row = manual('alpha coffee');
    my $before = state_of($row);
    my $a = apply(rule('alpha', { type => 'set_category', category => 'dining' }, { type => 'add_tag', tag_id => $tag }));
    my $b = apply(rule('alpha', { type => 'set_merchant', merchant_normalized => 'Alpha Co' }, $split_bob));
    my $both = state_of($row);
    is(bob_owes(), '30.00', 'run B split the row with bob');
    error_is(revert($a), 409, 'conflict', 'reverting run A while the later run B changed its row');
    like(revert($a)->{content}, qr/\brun $b\b.*revert it first/, 'the refusal names run B');
    is_deeply(state_of($row), $both, 'nothing changed');
    is(revert($b)->{status}, 200, 'run B reverted first');
    is(bob_owes(), '0.00', 'its split is gone');
    is(revert($a)->{status}, 200, 'then run A');
    is_deeply(state_of($row), $before, 'the row is as before both runs');
    is($rig->del("/api/transactions/$row", user => 'alice')->{status}, 204, 'alpha row deleted');
}

# A run that matched a row but left it as it was does not hold it: the
# earlier run reverts (the later one has nothing there to put back).
{
    my $row = manual('beta tea');
    my $a = apply(rule('beta', { type => 'set_category', category => 'groceries' }));
    my $res = $rig->post('/api/rules', { name => 'beta again', conditions => [ { field => 'description',
                         operator => 'contains', value => 'beta' } ],
                         actions => [ { type => 'set_category', category => 'groceries' } ] }, user => 'alice');
    my $again = $rig->post("/api/rules/apply/$res->{json}{id}", {}, user => 'alice');
    is($again->{json}{transactions}, 0, 'a second run over the row changes nothing');
    is(revert($a)->{status}, 200, 'the first run reverts past it');
    is(state_of($row)->{category}, undef, 'and the category is gone');
    is($rig->del("/api/transactions/$row", user => 'alice')->{status}, 204, 'beta row deleted');
}

# ---- a run on a manual row, then a reconciliation of it --------------------------------------
{
    my $m = manual('gamma lunch');
    my $m_before = state_of($m);
    my $s = statement_row('CARD 1001');
    my $s_before = state_of($s);
    my $run = apply(rule('gamma', { type => 'set_category', category => 'dining' }, $split_bob));
    reconcile($m, $s);
    my $merged = state_of($s);
    is_deeply($merged->{splits}, [[$uid{alice}, '50.00'], [$uid{bob}, '50.00']], 'the split moved to the statement row');
    is(bob_owes(), '30.00', 'bob owes his half');
    my $res = revert($run);
    error_is($res, 409, 'conflict', 'reverting the run after its row was reconciled');
    like($res->{content}, qr/manual transaction $m was reconciled into transaction $s/, 'the refusal names both rows');
    is_deeply(state_of($s), $merged, 'the statement row kept everything');
    is(bob_owes(), '30.00', 'and the debt');
    is(undo($m)->{status}, 204, 'the reconciliation undone first');
    is_deeply(state_of($s), $s_before, 'the statement row is as it was');
    is(revert($run)->{status}, 200, 'then the run reverts');
    is_deeply(state_of($m), $m_before, 'the manual row is as before the run');
    is(bob_owes(), '0.00', 'no debt is left');
}

# ---- a run on a statement row, then a reconciliation into it ----------------------------------
{
    my $m = manual('dinner four');
    my $s = statement_row('CARD DELTA');
    my $s_before = state_of($s);
    my $run = apply(rule('DELTA', { type => 'set_category', category => 'travel' }, $split_bob));
    my $after_run = state_of($s);
    is(bob_owes(), '30.00', 'the run split the statement row with bob');
    reconcile($m, $s);
    error_is(revert($run), 409, 'conflict', 'reverting the run after a reconciliation into its row');
    is(undo($m)->{status}, 204, 'the reconciliation undone first');
    is_deeply(state_of($s), $after_run, 'the statement row is as the run left it');
    is(revert($run)->{status}, 200, 'then the run reverts');
    is_deeply(state_of($s), $s_before, 'the statement row is as it began');
    is(bob_owes(), '0.00', 'and the run\'s split is not brought back');
}

# ---- a reconciliation, then a run on the statement row -------------------------------------------
{
    my $m = manual('theatre five');
    my $s = statement_row('CARD EPSILON');
    my $s_before = state_of($s);
    is($rig->post("/api/transactions/$m/splits", [ { participant_id => $uid{bob}, share_percent => 50 } ],
                  user => 'alice')->{status}, 200, 'alice splits the manual row with bob');
    is(bob_owes(), '30.00', 'bob owes half of 60.00');
    reconcile($m, $s);
    my $merged = state_of($s);
    my $run = apply(rule('EPSILON', { type => 'set_category', category => 'entertainment' }));
    my $res = undo($m);
    error_is($res, 409, 'conflict', 'undoing the reconciliation while a later run changed the statement row');
    like($res->{content}, qr/rule run $run changed transaction $s/, 'the refusal names the run');
    is(state_of($m)->{status}, 404, 'the manual row stays hidden');
    is(revert($run)->{status}, 200, 'the run reverted first');
    is_deeply(state_of($s), $merged, 'the statement row is as the reconciliation left it');
    is(undo($m)->{status}, 204, 'then the reconciliation is undone');
    is_deeply(state_of($s), $s_before, 'the statement row is as it began');
    is_deeply(state_of($m)->{splits}, [[$uid{alice}, '50.00'], [$uid{bob}, '50.00']], 'the manual row has its split');
    is(bob_owes(), '30.00', 'the 60.00 purchase is owed once');

    # A run made before the reconciliation does not hold it back.
    my $s2 = statement_row('CARD ZETA');
    my $run2 = apply(rule('ZETA', { type => 'set_category', category => 'dining' }));
    reconcile($m, $s2);
    is(undo($m)->{status}, 204, 'a reconciliation after a run undoes');
    is(revert($run2)->{status}, 200, 'and the run then reverts');
    is(state_of($s2)->{category}, undef, 'the second statement row is as it began');
}

is($rig->sql("SELECT COUNT(*) FROM reconciliations"), 0, 'no reconciliation is left');
done_testing;
