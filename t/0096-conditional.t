#!/usr/bin/perl
# Conditional requests through nginx: ETag and 304 on every GET, 412 for a
# write whose If-Match names a version no longer current.
#
# A stale 304 loses data (a client keeps showing what is no longer so), so
# each kind of write another party can make to what alice sees is made
# here, and each must turn alice's next conditional GET into a 200.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use POSIX ();
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_id);

my $rig = Rig->new;
my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
my $dir = tempdir('ledger-cond-XXXXXX', TMPDIR => 1, CLEANUP => 1);

my %uid;
$uid{$_} = $rig->get('/api/me', user => $_)->{json}{id} for @Rig::USERS;
for my $u (@Rig::USERS) {
    participant_ok($rig, $u, $_) for grep { $_ ne $u } @Rig::USERS;
}

sub etag_of { $_[0]{headers}{etag} // '' }

# A GET with If-None-Match: $tag.
sub cond_get {
    my ($user, $path, $tag) = @_;
    return $rig->get($path, user => $user, headers => { 'If-None-Match' => $tag });
}

# $path's tag for $user now, checked well-formed.
sub tag_now {
    my ($user, $path) = @_;
    my $res = $rig->get($path, user => $user);
    is($res->{status}, 200, "GET $path as $user") or diag($res->{content});
    like(etag_of($res), qr/^"[0-9a-f]{16}"$/, "GET $path carries a quoted ETag");
    return etag_of($res);
}

# The next conditional GET of each path is a 200 after $write ran, and a
# 304 before it: a tag that did not move with the write is the bug.
sub moves_with {
    my ($what, $user, $write, @paths) = @_;
    my %tag = map { $_ => tag_now($user, $_) } @paths;
    for my $p (@paths) {
        is(cond_get($user, $p, $tag{$p})->{status}, 304, "$p: 304 before $what");
    }
    $write->();
    for my $p (@paths) {
        my $res = cond_get($user, $p, $tag{$p});
        is($res->{status}, 200, "$p: 200 after $what");
        isnt(etag_of($res), $tag{$p}, "$p: a new tag after $what");
    }
}

# ---- ETag, 304, and the forms of If-None-Match --------------------------------

my $a1 = manual_id($rig, 'alice', date => '2026-02-01', amount => 12.5, description => 'lunch');
my $res = $rig->get('/api/transactions', user => 'alice');
my $tag = etag_of($res);
like($tag, qr/^"[0-9a-f]{16}"$/, 'a list carries a quoted ETag');
is($res->{headers}{'cache-control'}, 'private, no-cache', 'with Cache-Control: private, no-cache');
$res = cond_get('alice', '/api/transactions', $tag);
is($res->{status}, 304, 'If-None-Match with the current tag: 304');
is($res->{content} // '', '', 'with no body');
is(etag_of($res), $tag, 'and the same ETag');
is($res->{headers}{'cache-control'}, 'private, no-cache', 'and the same Cache-Control');
is(cond_get('alice', '/api/transactions', "W/$tag")->{status}, 304, 'a weak form of it: 304');
is(cond_get('alice', '/api/transactions', "\"0000000000000000\", $tag")->{status}, 304,
   'a list naming it: 304');
is(cond_get('alice', '/api/transactions', '*')->{status}, 304, '*: 304');
is(cond_get('alice', '/api/transactions', '"0000000000000000"')->{status}, 200, 'another tag: 200');
is(cond_get('alice', '/api/transactions?limit=5', $tag)->{status}, 200,
   'another query string does not take the tag');
is(cond_get('bob', '/api/transactions', $tag)->{status}, 200, 'another user does not take it');
$res = $rig->request('HEAD', '/api/transactions', user => 'alice');
is($res->{status}, 200, 'HEAD: 200');
is(etag_of($res), $tag, 'with GET\'s tag');
is($rig->request('HEAD', '/api/transactions', user => 'alice',
                 headers => { 'If-None-Match' => $tag })->{status}, 304, 'HEAD with it: 304');

# Reads never move a tag: every list and report, the search and the
# suggestions (which bring derived tables up to date) among them.
my @reads = ('/api/transactions?search=lunch', '/api/suggestions', '/api/merchants',
             '/api/analytics/monthly', '/api/budgets', '/api/balances', '/api/tags',
             '/api/reconcile', '/api/rules/runs', "/api/transactions/$a1", '/api/export?format=csv');
$rig->get($_, user => $_ eq '/api/balances' ? 'bob' : 'alice') for @reads, @reads;
is(cond_get('alice', '/api/transactions', $tag)->{status}, 304, 'reads leave the tag as it was');
for my $p (@reads) {
    my $t = tag_now('alice', $p);
    is(cond_get('alice', $p, $t)->{status}, 304, "$p: 304 on repeat");
}
$res = $rig->get('/api/export?format=csv', user => 'alice', headers => { 'If-None-Match' => '"x"' });
is($res->{status}, 200, 'the export streams');
like(etag_of($res), qr/^"[0-9a-f]{16}"$/, 'with an ETag');
is($res->{headers}{'cache-control'}, 'no-store', 'but never kept in a cache: it is the whole ledger');
is(cond_get('alice', '/api/export?format=csv', etag_of($res))->{status}, 304,
   'and is not streamed again for its tag');
error_is(cond_get('alice', '/api/transactions/999999', '*'), 404, 'not_found', 'a missing row');

# ---- each write another party makes moves alice's tags -------------------------

moves_with('her own write', 'alice',
           sub { ok_json($rig->patch("/api/transactions/$a1", { category => 'dining' }, user => 'alice'),
                         'alice patches') }, '/api/transactions');

my $shared = manual_id($rig, 'alice', date => '2026-02-02', amount => 40, description => 'dinner',
                       splits => [ { participant_id => $uid{bob}, share_percent => 50 } ]);
moves_with('a split participant settling a shared row', 'alice',
           sub { ok_json($rig->post("/api/transactions/$shared/splits/settle", { settled => JSON::PP::true },
                                    user => 'bob'), 'bob settles his share') },
           '/api/transactions', '/api/balances');
moves_with('a payment by the counterpart', 'alice',
           sub { ok_json($rig->post('/api/payments', { from_participant_id => $uid{bob},
                                                       to_participant_id => $uid{alice},
                                                       date => '2026-02-03', amount => 5 }, user => 'bob'),
                         'bob pays alice') },
           '/api/payments', '/api/balances', "/api/participants/$uid{bob}/balance");

my $trip = ok_json($rig->post('/api/trips', { name => 'Hobart' }, user => 'bob'), 'bob makes a trip');
my $bob_row = manual_id($rig, 'bob', date => '2026-02-04', amount => 30, description => 'ferry',
                        trip_id => $trip->{id},
                        splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
moves_with('a trip change by its owner', 'alice',
           sub { ok_json($rig->patch("/api/trips/$trip->{id}", { name => 'Hobart 2026' }, user => 'bob'),
                         'bob renames his trip') },
           '/api/trips', "/api/trips/$trip->{id}/analytics");

ok_json($rig->post('/api/rules', { name => 'lunches', conditions => [ { field => 'description',
        operator => 'contains', value => 'lunch' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'Canteen' } ] }, user => 'alice'),
        'alice makes a rule');
{
    my $rule = ok_json($rig->get('/api/rules', user => 'alice'), 'rules')->{items}[0]{id};
    my $t = tag_now('alice', '/api/transactions');
    ok_json($rig->post("/api/rules/$rule/preview", {}, user => 'alice'), 'a rule preview');
    is(cond_get('alice', '/api/transactions', $t)->{status}, 304, 'a preview, which writes nothing, leaves the tag');
}
moves_with('a rule run', 'alice',
           sub { ok_json($rig->post('/api/rules/apply', {}, user => 'alice'), 'alice runs her rules') },
           '/api/transactions', '/api/merchants');

my $st = ok_json($rig->post('/api/statements', { bank_name => 'Bank', account_type => 'Visa Credit Card',
        period_start => '2026-03-01', period_end => '2026-03-31',
        transactions => [ { date => '2026-03-05', description => 'HARDWARE STORE', amount => 80,
                            transaction_type => 'debit' } ] }, user => 'alice'), 'alice adds a statement');
my $manual = manual_id($rig, 'alice', date => '2026-03-04', amount => 80, description => 'hardware',
                       payment_method => 'card');
my ($st_row) = map { $_->{id} } @{ ok_json($rig->get("/api/transactions?statement_id=$st->{id}",
                                                     user => 'alice'), 'statement rows')->{items} };
moves_with('a reconcile', 'alice',
           sub { ok_json($rig->post('/api/reconcile', { matches => [ { manual_id => $manual,
                                       statement_transaction_id => $st_row } ] }, user => 'alice'),
                         'alice reconciles') },
           '/api/transactions', '/api/reconcile');

moves_with('a CSV commit', 'alice',
           sub { $res = $rig->post('/api/import/csv/commit', { rows => [ { date => '2026-03-10',
                          description => 'csv row', amount => 7, transaction_type => 'debit' } ] },
                          user => 'alice');
                 is($res->{status}, 201, 'alice commits a CSV import') or diag($res->{content}) },
           '/api/transactions', '/api/tags');

Rig::write_file("$dir/one.csv", "date,description,amount\n2026-03-11,admin row,-3.00\n");
moves_with('a ledger-admin import', 'alice',
           sub { my $pid = fork // die "fork: $!";
                 if ($pid == 0) {
                     open STDOUT, '>', '/dev/null';
                     open STDERR, '>', "$dir/admin.err";
                     exec $admin, 'import', '--db', $rig->db_path, '--user', 'alice', "$dir/one.csv"
                         or POSIX::_exit(127);
                 }
                 waitpid($pid, 0);
                 is($?, 0, 'ledger-admin imports for alice') or diag(Rig::slurp("$dir/admin.err")) },
           '/api/transactions');

# ---- one resource: a content tag, If-Match ------------------------------------

# The tag of one resource moves with it alone.
my $one = tag_now('alice', "/api/transactions/$a1");
is(cond_get('alice', "/api/transactions/$a1", $one)->{status}, 304, 'one row: 304 on repeat');
ok_json($rig->patch("/api/transactions/$shared", { category => 'groceries' }, user => 'alice'),
        'alice edits another row');
is(cond_get('alice', "/api/transactions/$a1", $one)->{status}, 304,
   'another row\'s edit leaves this row\'s tag');

my $tag_id = ok_json($rig->post('/api/tags', { name => 'work' }, user => 'alice'), 'a tag')->{id};
ok_json($rig->put('/api/budgets/dining', { amount => 300 }, user => 'alice'), 'a budget');
my $rule_id = ok_json($rig->get('/api/rules', user => 'alice'), 'rules')->{items}[0]{id};
my $pay_id = ok_json($rig->get('/api/payments', user => 'alice'), 'payments')->{items}[0]{id};
my $atrip = ok_json($rig->post('/api/trips', { name => 'Perth' }, user => 'alice'), 'a trip')->{id};
my $st2 = ok_json($rig->post('/api/statements', { bank_name => 'Other', account_type => 'Savings',
        period_start => '2026-04-01', period_end => '2026-04-30', transactions => [] }, user => 'alice'),
        'another statement')->{id};

# GET one answers what the list gives for the item.
for my $case ([ '/api/tags', "/api/tags/$tag_id", 'id', $tag_id ],
              [ '/api/payments', "/api/payments/$pay_id", 'id', $pay_id ],
              [ '/api/budgets', '/api/budgets/dining', 'category', 'dining' ]) {
    my ($list, $path, $key, $v) = @$case;
    my ($item) = grep { $_->{$key} eq $v } @{ ok_json($rig->get($list, user => 'alice'), $list)->{items} };
    is_deeply(ok_json($rig->get($path, user => 'alice'), $path), $item, "GET $path is its list's item");
}
$res = $rig->request('HEAD', "/api/tags/$tag_id", user => 'alice');
is($res->{status}, 200, 'HEAD of one tag: 200');
is(etag_of($res), etag_of($rig->get("/api/tags/$tag_id", user => 'alice')), 'with GET one\'s tag');
is($rig->request('HEAD', "/api/tags/$tag_id", user => 'alice',
                 headers => { 'If-None-Match' => 'W/' . etag_of($res) })->{status}, 304, 'and 304 for it');
error_is($rig->get("/api/tags/$tag_id", user => 'carol'), 403, 'forbidden', 'another user\'s tag');
error_is($rig->get('/api/tags/999999', user => 'alice'), 404, 'not_found', 'a missing tag');
error_is($rig->get("/api/payments/$pay_id", user => 'carol'), 403, 'forbidden', 'a payment between others');
error_is($rig->get('/api/payments/999999', user => 'alice'), 404, 'not_found', 'a missing payment');
error_is($rig->get('/api/budgets/travel', user => 'alice'), 404, 'not_found', 'a category without a budget');

# Each resource: a stale If-Match is 412 and changes nothing; the current
# one (and W/ of it) succeeds, and the answer's ETag is GET one's.
my @resources = (
    [ 'transaction', "/api/transactions/$a1", 'PATCH', { category => 'travel' }, { category => 'health' } ],
    [ 'tag', "/api/tags/$tag_id", 'PATCH', { color => '#112233' }, { color => '#445566' } ],
    [ 'rule', "/api/rules/$rule_id", 'PATCH', { name => 'r2' }, { name => 'r3' } ],
    [ 'trip', "/api/trips/$atrip", 'PATCH', { name => 'Perth 2' }, { name => 'Perth 3' } ],
    [ 'budget', '/api/budgets/dining', 'PUT', { amount => 310 }, { amount => 320 } ],
    [ 'statement', "/api/statements/$st2", 'DELETE' ],
    [ 'payment', "/api/payments/$pay_id", 'DELETE' ],
);
for my $r (@resources) {
    my ($name, $path, $method, $edit, $again) = @$r;
    my $old = tag_now('alice', $path);
    if ($edit) {
        ok_json($rig->request($method, $path, user => 'alice', json => $edit), "$name: an edit without If-Match");
    }
    my $before = $rig->get($path, user => 'alice');
    # A DELETE's stale tag: one that never was current.
    my $stale = $edit ? $old : '"0123456789abcdef"';
    $res = $rig->request($method, $path, user => 'alice', headers => { 'If-Match' => $stale },
                         $again ? (json => $again) : ());
    error_is($res, 412, 'precondition_failed', "$name: $method with a stale If-Match");
    is($rig->get($path, user => 'alice')->{content}, $before->{content}, "$name: unchanged by it");
    # Another user's id answers what it answers without the condition.
    unless ($name eq 'budget') {
        $res = $rig->request($method, $path, user => 'carol', headers => { 'If-Match' => '*' },
                             $again ? (json => $again) : ());
        ok($res->{status} == 403 || $res->{status} == 404, "$name: another user's, with If-Match: *: 403/404")
            or diag("$res->{status} $res->{content}");
        is($rig->get($path, user => 'alice')->{content}, $before->{content}, "$name: unchanged by that");
    }
    $res = $rig->request($method, $path, user => 'alice', headers => { 'If-Match' => 'W/' . etag_of($before) },
                         $again ? (json => $again) : ());
    ok($res->{status} == 200 || $res->{status} == 204, "$name: $method with the current If-Match")
        or diag($res->{content});
    if ($method eq 'DELETE') {
        is($rig->get($path, user => 'alice')->{status}, 404, "$name: deleted");
        error_is($rig->request($method, $path, user => 'alice', headers => { 'If-Match' => '*' }),
                 404, 'not_found', "$name: If-Match on a deleted one");
    } else {
        is(etag_of($res), etag_of($rig->get($path, user => 'alice')), "$name: the answer carries GET one's new tag");
    }
}
error_is($rig->put('/api/budgets/travel', { amount => 5 }, user => 'alice', headers => { 'If-Match' => '*' }),
         412, 'precondition_failed', 'If-Match: * on a budget that does not exist');
is($rig->get('/api/budgets/travel', user => 'alice')->{status}, 404, 'and none is made');
error_is($rig->patch('/api/transactions/999999', { category => 'x' }, user => 'alice',
                     headers => { 'If-Match' => '*' }), 404, 'not_found', 'If-Match on a missing row');
error_is($rig->patch("/api/transactions/$bob_row", { category => 'x' }, user => 'carol',
                     headers => { 'If-Match' => '*' }), 403, 'forbidden', 'If-Match on another user\'s row');

done_testing;
