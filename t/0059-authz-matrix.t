#!/usr/bin/perl
# The authorization matrix: every route of the route table (ledger-fcgi
# --routes), called by five callers, each with the outcome it must get:
#
#   alice  owns the data (a manual row A split with bob, a statement, a tag,
#          a trip P holding A, a rule and its run, a payment, a budget, a
#          reconciliation)
#   bob    a split participant on A (and so a participant of trip P)
#   carol  a participant of trip P only through a payment scoped to it
#   dave   a stranger
#   none   no identity at all
#
# A refused write must change nothing: the database is hashed before and
# after.  A route added to the table without a row here fails the test.
use strict;
use warnings;
use Test::More;
use Digest::SHA qw(sha1_hex);
use Rig;

my $rig = Rig->new;
my $db = $rig->db_path;
my $sqlite = Rig::find_program('sqlite3') or plan skip_all => 'sqlite3 not installed';
my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } qw(alice bob carol dave);

sub db_hash { sha1_hex(scalar `$sqlite $db .dump`) }
sub sql { system($sqlite, $db, $_[0]) == 0 or die "sql: $_[0]" }
sub ok_json { my ($r, $what) = @_; die "$what: $r->{status} $r->{content}" if $r->{status} >= 300; $r->{json} }

# ---- alice's world ----------------------------------------------------------------------
ok_json($rig->post('/api/participants', { email => "$_\@example.org" }, user => 'alice'), "alice adds $_")
    for qw(bob carol);
my $tag = ok_json($rig->post('/api/tags', { name => 'matrix' }, user => 'alice'), 'tag')->{id};
my $trip = ok_json($rig->post('/api/trips', { name => 'Trip P' }, user => 'alice'), 'trip')->{id};
sub split_row {
    my ($desc, %f) = @_;
    return ok_json($rig->post('/api/transactions', { date => '2026-02-10', amount => 40,
        description => $desc, category => 'dining', payment_method => 'card', trip_id => $trip,
        tag_ids => [$tag], splits => [ { participant_id => $uid{bob}, share_percent => 50 } ], %f },
        user => 'alice'), $desc)->{id};
}
my $A = split_row('row A');
my $stmt = ok_json($rig->post('/api/statements', { bank_name => 'B', account_type => 'Visa',
    period_start => '2026-02-01', period_end => '2026-02-28',
    transactions => [ { date => '2026-02-11', description => 'ROW A', amount => 40,
                        transaction_type => 'debit' } ] }, user => 'alice'), 'statement')->{id};
my ($S) = map { $_->{id} } @{ $rig->get("/api/transactions?statement_id=$stmt", user => 'alice')->{json}{items} };
# carol adds alice: a payment needs the other side's step (t/0089).
ok_json($rig->post('/api/participants', { email => 'alice@example.org' }, user => 'carol'), 'carol adds alice');
my $pay = ok_json($rig->post('/api/payments', { from_participant_id => $uid{carol},
    to_participant_id => $uid{alice}, date => '2026-02-12', amount => 5, trip_id => $trip },
    user => 'alice'), 'payment')->{id};
my $rule = ok_json($rig->post('/api/rules', { name => 'R', conditions => [
    { field => 'description', operator => 'contains', value => 'row' } ],
    actions => [ { type => 'set_merchant', merchant_normalized => 'Rowland' } ] }, user => 'alice'), 'rule')->{id};
my $run = ok_json($rig->post("/api/rules/apply/$rule", undef, user => 'alice'), 'run')->{id};
$rig->put('/api/budgets/dining', { amount => 100 }, user => 'alice');
my $ofx = Rig::slurp(Rig::srcdir() . '/t/data/ofx/bank.qfx');

# Disposable things, made fresh for each caller that may destroy them.
sub fresh_row { split_row('disposable') }
sub fresh_tag { ok_json($rig->post('/api/tags', { name => 'tmp' . rand() }, user => 'alice'), 'tag')->{id} }
sub fresh_statement { ok_json($rig->post('/api/statements', { bank_name => 'X', account_type => 'Visa',
    account_name => 'tmp' . rand(), period_start => '2026-03-01', period_end => '2026-03-31', transactions => [] },
    user => 'alice'),
    'statement')->{id} }
sub fresh_payment { ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice},
    to_participant_id => $uid{bob}, date => '2026-02-12', amount => 1 }, user => 'alice'), 'payment')->{id} }
sub fresh_trip { ok_json($rig->post('/api/trips', { name => 'tmp' }, user => 'alice'), 'trip')->{id} }
sub fresh_rule { ok_json($rig->post('/api/rules', { name => 'tmp', conditions => [
    { field => 'amount', operator => 'gt', value => 1000 } ],
    actions => [ { type => 'set_category', category => 'x' } ] }, user => 'alice'), 'rule')->{id} }
sub fresh_run { ok_json($rig->post("/api/rules/$rule/run", { transaction_ids => [$A] }, user => 'alice'), 'run')->{id} }
sub fresh_reconciled {
    my $m = split_row('to reconcile', date => '2026-02-11');
    my $s = fresh_statement_with_row();
    ok_json($rig->post('/api/reconcile', { matches => [ { manual_id => $m, statement_transaction_id => $s } ] },
                       user => 'alice'), 'reconcile');
    return $m;
}
sub fresh_statement_with_row {
    my $sid = ok_json($rig->post('/api/statements', { bank_name => 'Y', account_type => 'Visa',
        account_name => 'tmp' . rand(), period_start => '2026-02-01', period_end => '2026-02-28', transactions => [ { date => '2026-02-11',
        description => 'Y', amount => 40, transaction_type => 'debit' } ] }, user => 'alice'), 'stmt')->{id};
    return $rig->get("/api/transactions?statement_id=$sid", user => 'alice')->{json}{items}[0]{id};
}
sub fresh_pair { my $m = split_row('pair', date => '2026-02-11'); ($m, fresh_statement_with_row()) }

# ---- the matrix -------------------------------------------------------------------------
# [method, pattern as in routes.c, path (or sub giving it), body (or sub), alice, bob, carol, dave]
# Outcomes: 'ok' (2xx) or a status.  'none' always gets 401.
my $ALL = [qw(ok ok ok ok)];
my @matrix = (
    ['GET', '/api/me', '/api/me', undef, @$ALL],
    ['GET', '/api/categories', '/api/categories', undef, @$ALL],
    ['GET', '/api/tags', '/api/tags', undef, @$ALL],
    ['POST', '/api/tags', '/api/tags', sub { { name => 'n' . rand() } }, @$ALL],
    ['GET', '/api/tags/([0-9]+)', "/api/tags/$tag", undef, qw(ok 403 403 403)],
    ['PATCH', '/api/tags/([0-9]+)', "/api/tags/$tag", { color => '#123456' }, qw(ok 403 403 403)],
    ['DELETE', '/api/tags/([0-9]+)', sub { '/api/tags/' . fresh_tag() }, undef, qw(ok 403 403 403)],
    ['GET', '/api/transactions', '/api/transactions', undef, @$ALL],
    ['POST', '/api/transactions', '/api/transactions',
        { date => '2026-02-01', amount => 1, description => 'new' }, @$ALL],
    ['GET', '/api/transactions/([0-9]+)', "/api/transactions/$A", undef, qw(ok ok 403 403)],
    ['PATCH', '/api/transactions/([0-9]+)', "/api/transactions/$A", { category => 'food' }, qw(ok ok 403 403)],
    ['DELETE', '/api/transactions/([0-9]+)', sub { '/api/transactions/' . fresh_row() }, undef, qw(ok 403 403 403)],
    ['POST', '/api/transactions/bulk', '/api/transactions/bulk',
        { action => 'categorize', ids => [$A], category => 'food' }, qw(ok ok 403 403)],
    ['POST', '/api/transactions/([0-9]+)/tags', "/api/transactions/$A/tags", { name => 'mine' }, qw(ok ok 403 403)],
    # bob may touch the shared row, but the tag in the body is alice's: a
    # bad field (400), as when adding; in the path below it is a 403.
    ['DELETE', '/api/transactions/([0-9]+)/tags', "/api/transactions/$A/tags", { tag_id => $tag }, qw(ok 403 403 403)],
    ['DELETE', '/api/transactions/([0-9]+)/tags/([0-9]+)', "/api/transactions/$A/tags/$tag", undef, qw(ok 403 403 403)],
    ['GET', '/api/merchants', '/api/merchants', undef, @$ALL],
    # The merchant run names the caller's own rows only: anyone may run it.
    ['POST', '/api/merchants/clean', '/api/merchants/clean', {}, @$ALL],
    ['GET', '/api/suggestions', '/api/suggestions', undef, @$ALL],
    # Suggestions apply to the caller's own rows only: a participant too is 403.
    ['POST', '/api/suggestions/apply', '/api/suggestions/apply',
        sub { { items => [ { transaction_id => ok_json($rig->post('/api/transactions',
            { date => '2026-02-01', amount => 1, description => 'uncategorised' }, user => 'alice'),
            'row')->{id}, category => 'food' } ] } }, qw(ok 403 403 403)],
    ['GET', '/api/suggestions/settings', '/api/suggestions/settings', undef, @$ALL],
    ['PUT', '/api/suggestions/settings', '/api/suggestions/settings', { threshold => 0.5 }, @$ALL],
    ['GET', '/api/transactions/([0-9]+)/splits', "/api/transactions/$A/splits", undef, qw(ok ok 403 403)],
    ['POST', '/api/transactions/([0-9]+)/splits', "/api/transactions/$A/splits",
        [ { participant_id => $uid{bob}, share_percent => 40 } ], qw(ok ok 403 403)],
    ['DELETE', '/api/transactions/([0-9]+)/splits', sub { '/api/transactions/' . fresh_row() . '/splits' }, undef,
        qw(ok ok 403 403)],
    ['POST', '/api/transactions/([0-9]+)/splits/settle', "/api/transactions/$A/splits/settle", { settled => JSON::PP::true },
        qw(ok ok 403 403)],
    ['GET', '/api/participants', '/api/participants', undef, @$ALL],
    ['POST', '/api/participants', '/api/participants', sub { { email => 'p' . int(rand 1e9) . '@example.org' } }, @$ALL],
    # alice asks about herself (400); bob and carol share with her; dave does not.
    ['GET', '/api/participants/([0-9]+)/balance', "/api/participants/$uid{alice}/balance", undef, qw(400 ok ok 404)],
    ['GET', '/api/balances', '/api/balances', undef, @$ALL],
    ['GET', '/api/payments', '/api/payments', undef, @$ALL],
    # A payment from alice to bob: only its two parties may record it.
    ['POST', '/api/payments', '/api/payments',
        { from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, date => '2026-02-01', amount => 1 },
        qw(ok ok 403 403)],
    ['GET', '/api/payments/([0-9]+)', sub { '/api/payments/' . fresh_payment() }, undef, qw(ok ok 403 403)],
    ['DELETE', '/api/payments/([0-9]+)', sub { '/api/payments/' . fresh_payment() }, undef, qw(ok ok 403 403)],
    ['GET', '/api/statements', '/api/statements', undef, @$ALL],
    ['POST', '/api/statements', '/api/statements', { bank_name => 'Z', account_type => 'Visa',
        period_start => '2026-04-01', period_end => '2026-04-30', transactions => [] }, @$ALL],
    ['POST', '/api/statements/import', '/api/statements/import', \$ofx, qw(ok ok ok ok)],
    ['GET', '/api/statements/([0-9]+)', "/api/statements/$stmt", undef, qw(ok 403 403 403)],
    ['DELETE', '/api/statements/([0-9]+)', sub { '/api/statements/' . fresh_statement() }, undef, qw(ok 403 403 403)],
    ['GET', '/api/trips', '/api/trips', undef, @$ALL],
    ['POST', '/api/trips', '/api/trips', { name => 'mine' }, @$ALL],
    # Only the tag's owner can turn it into a trip: another user's is 403.
    ['POST', '/api/trips/from-tag', '/api/trips/from-tag', sub { { tag_id => fresh_tag(), keep_tag => JSON::PP::true } },
        qw(ok 403 403 403)],
    ['GET', '/api/trips/([0-9]+)', "/api/trips/$trip", undef, qw(ok ok ok 403)],
    ['PATCH', '/api/trips/([0-9]+)', "/api/trips/$trip", { notes => 'n' }, qw(ok ok ok 403)],
    ['DELETE', '/api/trips/([0-9]+)', sub { '/api/trips/' . fresh_trip() }, undef, qw(ok 403 403 403)],
    ['GET', '/api/trips/([0-9]+)/participants', "/api/trips/$trip/participants", undef, qw(ok ok ok 403)],
    # carol takes part in the trip but may not touch row A.
    ['POST', '/api/trips/([0-9]+)/transactions', "/api/trips/$trip/transactions", { transaction_ids => [$A] },
        qw(ok ok 403 403)],
    ['DELETE', '/api/trips/([0-9]+)/transactions', "/api/trips/$trip/transactions", { transaction_ids => [$A] },
        qw(ok ok 403 403)],
    ['GET', '/api/trips/([0-9]+)/analytics', "/api/trips/$trip/analytics", undef, qw(ok ok ok 403)],
    ['GET', '/api/trips/([0-9]+)/owed', "/api/trips/$trip/owed", undef, qw(ok ok ok 403)],
    ['GET', '/api/rules', '/api/rules', undef, @$ALL],
    ['POST', '/api/rules', '/api/rules', { name => 'x', conditions => [
        { field => 'amount', operator => 'gt', value => 5000 } ],
        actions => [ { type => 'set_category', category => 'x' } ] }, @$ALL],
    ['GET', '/api/rules/runs', '/api/rules/runs', undef, @$ALL],
    ['POST', '/api/rules/apply', '/api/rules/apply', undef, @$ALL],
    ['POST', '/api/rules/apply/([0-9]+)', "/api/rules/apply/$rule", undef, qw(ok 403 403 403)],
    ['DELETE', '/api/rules/apply/([0-9]+)', sub { '/api/rules/apply/' . fresh_run() }, undef, qw(ok 403 403 403)],
    ['GET', '/api/rules/([0-9]+)', "/api/rules/$rule", undef, qw(ok 403 403 403)],
    ['PATCH', '/api/rules/([0-9]+)', "/api/rules/$rule", { name => 'R2' }, qw(ok 403 403 403)],
    ['DELETE', '/api/rules/([0-9]+)', sub { '/api/rules/' . fresh_rule() }, undef, qw(ok 403 403 403)],
    ['POST', '/api/rules/([0-9]+)/preview', "/api/rules/$rule/preview", undef, qw(ok 403 403 403)],
    ['POST', '/api/rules/([0-9]+)/run', "/api/rules/$rule/run", { transaction_ids => [$A] }, qw(ok 403 403 403)],
    # CSV import works on the caller's own rows only.
    ['POST', '/api/import/csv/preview', '/api/import/csv/preview',
        { csv => "Date,Description,Amount\n03/02/2026,row A,-40.00\n",
          mapping => { date => 'Date', description => 'Description', amount => 'Amount' } }, @$ALL],
    ['POST', '/api/import/csv/commit', '/api/import/csv/commit',
        { rows => [ { date => '2026-02-03', description => 'imported', amount => 1 } ] }, @$ALL],
    ['GET', '/api/reconcile', '/api/reconcile', undef, @$ALL],
    ['POST', '/api/reconcile', '/api/reconcile', sub { my ($m, $s) = fresh_pair();
        { matches => [ { manual_id => $m, statement_transaction_id => $s } ] } }, qw(ok 403 403 403)],
    ['DELETE', '/api/reconcile/([0-9]+)', sub { '/api/reconcile/' . fresh_reconciled() }, undef, qw(ok 403 403 403)],
    ['GET', '/api/budgets', '/api/budgets', undef, @$ALL],
    # Budgets are each caller's own: everyone may set one; only alice has one to delete.
    # GET one: only alice has a dining budget yet.
    ['GET', '/api/budgets/([^/]+)', '/api/budgets/dining', undef, qw(ok 404 404 404)],
    ['PUT', '/api/budgets/([^/]+)', '/api/budgets/dining', { amount => 50 }, @$ALL],
    ['DELETE', '/api/budgets/([^/]+)', '/api/budgets/groceries', undef, qw(ok 404 404 404)],
    # Everyone exports what they can see (t/0095 holds what that is).
    ['GET', '/api/export', '/api/export?format=json', undef, @$ALL],
    ['GET', '/api/analytics/monthly', '/api/analytics/monthly', undef, @$ALL],
    ['GET', '/api/analytics/monthly/([0-9]{4}-[0-9]{2})/([^/]+)', '/api/analytics/monthly/2026-02/dining', undef, @$ALL],
    ['GET', '/api/analytics/merchants', '/api/analytics/merchants', undef, @$ALL],
    ['GET', '/api/analytics/merchants/([^/]+)', '/api/analytics/merchants/Rowland', undef, @$ALL],
    ['GET', '/api/analytics/fees', '/api/analytics/fees', undef, @$ALL],
    ['GET', '/api/analytics/subscriptions', '/api/analytics/subscriptions', undef, @$ALL],
);

# Every route in the table has a row, and every row is a route.
my @table = grep { length } split /\n/, `@{[Rig::fcgi_bin()]} --routes`;
my %listed = map { ("$_->[0] $_->[1]" => 1) } @matrix;
my %routes = map { ($_ => 1) } @table;
is_deeply([grep { !$listed{$_} } @table], [], 'every route in the route table has a row in the matrix');
is_deeply([grep { !$routes{$_} } sort keys %listed], [], 'every row of the matrix is a route');

my @callers = qw(none dave carol bob alice);
my %col = (alice => 4, bob => 5, carol => 6, dave => 7);
for my $m (@matrix) {
    my ($method, $pattern, $path, $body) = @$m;
    for my $who (@callers) {
        # Writes that would succeed for alice use fresh things on every call.
        $rig->put('/api/budgets/groceries', { amount => 10 }, user => 'alice') if $pattern =~ /budgets/;
        my $p = ref $path eq 'CODE' ? $path->() : $path;
        my $b = ref $body eq 'CODE' ? $body->() : $body;
        my $want = $who eq 'none' ? 401 : $m->[ $col{$who} ];
        my $write = $method ne 'GET';
        my $before = $write && $want ne 'ok' ? db_hash() : undef;
        my %o = $who eq 'none' ? (open => 1) : (user => $who);
        my $res = ref $b eq 'SCALAR'
            ? $rig->request($method, $p, %o, body => $$b, type => 'application/x-ofx')
            : $rig->request($method, $p, %o, defined $b ? (json => $b)
                                               # a write by POST is JSON even with nothing to say
                                               : $method eq 'POST' ? (json => {}) : ());
        my $got = $res->{status} < 300 ? 'ok' : $res->{status};
        is($got, $want, "$who: $method $pattern") or diag($res->{content});
        if (defined $before) {
            is(db_hash(), $before, "$who: $method $pattern changed nothing");
        }
    }
}

done_testing();
