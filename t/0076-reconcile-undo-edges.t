#!/usr/bin/perl
# Reconciliation's undo and a statement's delete, edges no other test
# held (a mutation audit of reconcile.c and statement.c broke each of
# these in the code and the suite stayed green):
# - a match only fills the statement row's gaps: its own payment method
#   stays;
# - a trip put on the matched row goes, at the undo, with the split; with
#   no split to the row the trip came from (the statement row's own;
#   the manual row's, with a split of one person), and the other row
#   keeps a trip it had before the match;
# - a trip deleted while matched is no move: a statement row with its own
#   split keeps its own trip;
# - a match recorded without manual_trip_id (an older release's) still
#   gives the manual row its trip back and not the statement row;
# - a rule run since the match that changed nothing does not block the
#   undo, nor a run before the match a statement's delete;
# - participants' tags: one the statement row had before the match is not
#   carried to the manual row, nor one of a participant taken off
#   the split while matched.
#
# Users: alice owns every row; bob and carol take part in splits.
use strict;
use warnings;
use Test::More;
use Rig;

my $rig = Rig->new;
my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;
is($rig->post('/api/participants', { email => 'bob@example.org' }, user => 'alice')->{status} =~ /^20[01]$/ ? 1 : 0, 1, 'bob is a participant');
sub manual {
    my ($name, %f) = @_;
    my $res = $rig->post('/api/transactions', { amount => 100, description => $name, payment_method => 'card', %f },
                         user => 'alice');
    is($res->{status}, 201, "manual $name") or diag($res->{content});
    return $res->{json}{id};
}
sub stmt_row {
    my ($name, $date, $amount, %more) = @_;
    my $res = $rig->post('/api/statements', { bank_name => 'B', account_type => 'Visa Credit Card',
        period_start => '2025-01-01', period_end => '2025-12-31',
        transactions => [{ description => $name, date => $date, amount => $amount, transaction_type => 'debit', %more }] },
        user => 'alice');
    is($res->{status}, 201, "statement $name") or diag($res->{content});
    my $l = $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items};
    return ($l->[0]{id}, $res->{json}{id});
}
sub trip { $rig->post('/api/trips', { name => $_[0] }, user => 'alice')->{json}{id} }
sub rec { $rig->post('/api/reconcile', { matches => [{ manual_id => $_[0], statement_transaction_id => $_[1] }] }, user => 'alice')->{status} }
sub row { $rig->get("/api/transactions/$_[0]", user => 'alice')->{json} }
sub trip_put { $rig->patch("/api/transactions/$_[0]", { trip_id => $_[1] }, user => 'alice')->{status} }
sub undo { $rig->del("/api/reconcile/$_[0]", user => 'alice')->{status} }

# A trip deleted while matched; the statement row has its own split.
{
    my ($S, $T) = (trip('R06s'), trip('R06t'));
    my $m = manual('r06', date => '2025-01-10', amount => 11, trip_id => $T);
    my ($s) = stmt_row('R06', '2025-01-10', 11);
    is($rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{bob}, share_percent => 25 }], user => 'alice')->{status}, 200, 'split');
    is(trip_put($s, $S), 200, 'own trip');
    is(rec($m, $s), 200, 'matched');
    is($rig->del("/api/trips/$T", user => 'alice')->{status}, 204, 'T deleted');
    is(undo($m), 204, 'undone');
    is(row($s)->{trip_id}, $S, 'statement row (own split) back in its own trip');
}
# The statement row's own trip, and a trip put on it while matched.
{
    my ($S, $X) = (trip('R04s'), trip('R04x'));
    my $m = manual('r04', date => '2025-02-10', amount => 12);
    my ($s) = stmt_row('R04', '2025-02-10', 12);
    is(trip_put($s, $S), 200, 'own trip');
    is(rec($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'moved to X');
    is(undo($m), 204, 'undone');
    is_deeply([row($s)->{trip_id}, row($m)->{trip_id}], [$X, undef], 'the statement row (its trip) is in X, the manual row in none');
}
# Each row in its own trip; the matched row moved to a third.
{
    my ($S, $T, $X) = (trip('R08s'), trip('R08t'), trip('R08x'));
    my $m = manual('r08', date => '2025-03-10', amount => 13, trip_id => $T);
    my ($s) = stmt_row('R08', '2025-03-10', 13);
    is(trip_put($s, $S), 200, 'own trip');
    is(rec($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'moved to X');
    is(undo($m), 204, 'undone');
    is_deeply([row($m)->{trip_id}, row($s)->{trip_id}], [$X, $S], 'manual in X, statement row back in its own S');
}
# A split of one person: the trip goes with it.
{
    my $X = trip('R25x');
    my $m = manual('r25', date => '2025-04-10', amount => 14, splits => [{ participant_id => $uid{bob}, share_percent => 100 }]);
    my ($s) = stmt_row('R25', '2025-04-10', 14);
    is(rec($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'put in X');
    is(undo($m), 204, 'undone');
    is_deeply([row($m)->{trip_id}, row($s)->{trip_id}], [$X, undef], 'the trip goes with the one-party split to the manual row');
}
# The statement row's own payment method.
{
    my $m = manual('r03', date => '2025-05-10', amount => 15, payment_method => 'bank_transfer');
    my ($s) = stmt_row('R03', '2025-05-10', 15);
    is($rig->patch("/api/transactions/$s", { payment_method => 'card' }, user => 'alice')->{status}, 200, 'card');
    is(rec($m, $s), 200, 'matched');
    is(row($s)->{payment_method}, 'card', "the statement row's own payment method stays");
}
# A match recorded before manual_trip_id was kept.
{
    my $T = trip('R20t');
    my $m = manual('r20', date => '2025-06-10', amount => 16, trip_id => $T);
    my ($s) = stmt_row('R20', '2025-06-10', 16);
    is(rec($m, $s), 200, 'matched');
    $rig->sql("UPDATE reconciliations SET snapshot = json_remove(snapshot, '\$.manual_trip_id') WHERE manual_id = $m");
    is(undo($m), 204, 'undone');
    is_deeply([row($m)->{trip_id}, row($s)->{trip_id}], [$T, undef], 'an older snapshot: manual row in T, statement row not');
}
# Rule runs before and after a match.
sub rule_run {
    my ($word, $cat) = @_;
    my $r = $rig->post('/api/rules', { name => "r $word $cat", conditions => [{ field => 'description', operator => 'contains', value => $word }],
                                       actions => [{ type => 'set_category', category => $cat }] }, user => 'alice');
    is($r->{status}, 201, 'rule') or diag($r->{content});
    my $a = $rig->post("/api/rules/apply/$r->{json}{id}", {}, user => 'alice');
    is($a->{status}, 200, 'applied') or diag($a->{content});
    return $a->{json};
}
{
    my $m = manual('r19', date => '2025-07-10', amount => 17, category => 'dining');
    my ($s) = stmt_row('R19X', '2025-07-10', 17);
    is(rec($m, $s), 200, 'matched');
    my $run = rule_run('R19X', 'dining');
    is($run->{transactions}, 0, 'the run changed no row') or diag(explain($run));
    is(undo($m), 204, 'a run since that changed nothing does not block the undo');
}
{
    my $m = manual('s01', date => '2025-08-10', amount => 18, category => 'dining');
    my ($s, $st) = stmt_row('S01X', '2025-08-10', 18);
    rule_run('S01X', 'groceries');
    is(rec($m, $s), 200, 'matched after the run');
    is($rig->del("/api/statements/$st", user => 'alice')->{status}, 204, 'a run before the match does not block deleting the statement');
}
# A participant's tag on the statement row before the match.
{
    my $bt = $rig->post('/api/tags', { name => 'r15bob' }, user => 'bob')->{json}{id};
    my $m = manual('r15', date => '2025-09-10', amount => 19, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my ($s) = stmt_row('R15', '2025-09-10', 19);
    is($rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{bob}, share_percent => 30 }], user => 'alice')->{status}, 200, 'stmt split');
    is($rig->post("/api/transactions/$s/tags", { tag_id => $bt }, user => 'bob')->{status}, 200, 'bob tags the statement row') ;
    is(rec($m, $s), 200, 'matched');
    is(undo($m), 204, 'undone');
    my $n = $rig->sql("SELECT COUNT(*) FROM transaction_tags WHERE transaction_id = $m AND tag_id = $bt");
    chomp $n;
    is($n, 0, "bob's tag the statement row had before is not carried to the manual row");
}
# A participant taken off the split while matched.
{
    $rig->post('/api/participants', { email => 'carol@example.org' }, user => 'alice');
    my $bt = $rig->post('/api/tags', { name => 'r22bob' }, user => 'bob')->{json}{id};
    my $m = manual('r22', date => '2025-10-10', amount => 21, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    is($rig->post("/api/transactions/$m/tags", { tag_id => $bt }, user => 'bob')->{status}, 200, 'bob tags the manual row');
    my ($s) = stmt_row('R22', '2025-10-10', 21);
    is(rec($m, $s), 200, 'matched');
    my $r = $rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{carol}, share_percent => 50 }], user => 'alice');
    is($r->{status}, 200, 'the split is now carol alone') or diag($r->{content});
    is(undo($m), 204, 'undone');
    my $n = $rig->sql("SELECT COUNT(*) FROM transaction_tags WHERE transaction_id = $m AND tag_id = $bt");
    chomp $n;
    is($n, 0, "bob, no longer a party, keeps no tag on the manual row");
}
done_testing();
