#!/usr/bin/perl
# /api/trips through nginx: CRUD and bad input, derived participants (a trip
# shared by three users, one of whom appears only through a payment scoped
# to it), assignment and unassignment with the access check, tag-to-trip,
# the trip filters of GET /api/transactions, analytics (rule D exclusions),
# owed (both directions, never netted), and delete (owner only; rows and
# payments lose the trip).  SPEC.md §2 Trip and Participant, Behaviour
# rules 2, 9, 10, 11, 12, Authentication 5; API.md §3 and §7.
#
# Each topic has trips of its own, so every figure and set is exact:
# Tasmania/Bare (CRUD), Hobart (participants, filters), Assign me
# (assignment), Bali/Fiji/NZ (from-tag), Japan (analytics), Owed (owed),
# Doomed (delete).  dave is the outsider until the last sections, where
# trips with payments, owned rows and splits (Payee, Payer, Split only) and
# dave's own trip (Daves walk, with erin) show who takes part.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_id m2);

my $rig = Rig->new;

# ---- helpers -----------------------------------------------------------------

# Money comes back as JSON numbers; compare as two-decimal text.

my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;
ok(!grep({ !$_ } values %uid), 'every test user has an id');

# Participants, explicitly: alice shares with bob and carol, bob with alice.
# dave and erin add nobody and nobody adds them.
# carol adds alice: alice records a payment from carol, which needs carol's
# step towards her.
participant_ok($rig, @$_) for [alice => 'bob'], [alice => 'carol'], [bob => 'alice'], [carol => 'alice'];

# A manual row (201 checked); every body gets a date, an amount and a
# description unless the test gives its own.
sub create {
    my ($user, %f) = @_;
    my $body = { date => '2026-05-02', amount => 10, description => 'something', %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    is($res->{status}, 201, "$user creates '$body->{description}'") or diag($res->{content});
    return $res->{json} // {};
}

sub get_row { $rig->get("/api/transactions/$_[1]", user => $_[0])->{json} // {} }

# The effective trip_id and the override trip_id of a row, as the user sees it.
sub trip_of {
    my ($user, $id) = @_;
    my $row = get_row($user, $id);
    return ["$user cannot read row $id"] unless $row->{id};
    return [$row->{trip_id}, $row->{overrides}{trip_id}];
}

sub new_trip {
    my ($user, %f) = @_;
    my $res = $rig->post('/api/trips', { %f }, user => $user);
    is($res->{status}, 201, "$user creates trip '$f{name}'") or diag($res->{content});
    return $res->{json} // {};
}

# Sorted trip ids of a user's GET /api/trips (and total checked).
sub trip_ids {
    my ($user) = @_;
    my $doc = $rig->get('/api/trips', user => $user)->{json} // {};
    my @ids = sort { $a <=> $b } map { $_->{id} } @{ $doc->{items} // [] };
    is($doc->{total}, scalar @ids, "$user\'s trip list: total counts the items");
    return \@ids;
}

# Trip ids of a user's GET /api/trips, as listed (no check).
sub trip_ids_of { [map { $_->{id} } @{ $rig->get('/api/trips', user => $_[0])->{json}{items} // [] }] }

# Sorted row ids of GET /api/transactions?$query, with the document.
sub list_ids {
    my ($user, $query) = @_;
    my $res = $rig->get("/api/transactions?exclude_categories=&limit=500&$query", user => $user);
    is($res->{status}, 200, "$user GET /api/transactions?$query: 200") or diag($res->{content});
    return ([sort { $a <=> $b } map { $_->{id} } @{ $res->{json}{items} // [] }], $res->{json} // {});
}

sub sorted { [sort { $a <=> $b } @_] }

# An array of objects as {key => two-decimal value}.
sub as_map {
    my ($arr, $key, $val) = @_;
    return { map { ($_->{$key} // 'NULL') => m2($_->{$val}) } @{ $arr // [] } };
}

# ==== CRUD ========================================================================

my $res = $rig->post('/api/trips', { name => 'Tasmania', start_date => '2026-03-01',
                                     end_date => '2026-03-10', notes => 'road trip' }, user => 'alice');
is($res->{status}, 201, 'POST /api/trips creates a trip');
my $tas = $res->{json};
ok($tas->{id} > 0, 'with an id');
is($tas->{owner_id}, $uid{alice}, 'owned by the caller');
is_deeply([@$tas{qw(name start_date end_date notes)}], ['Tasmania', '2026-03-01', '2026-03-10', 'road trip'],
          'name, start_date, end_date, notes as given');
is($tas->{transaction_count}, 0, 'no rows yet');

my $bare = new_trip('alice', name => 'Bare');
is_deeply([@$bare{qw(name start_date end_date notes)}], ['Bare', undef, undef, undef],
          'only a name: dates and notes are null');

# Bad input: 400 naming the field, and no trip written.
my $before = scalar @{ trip_ids('alice') };
for my $case (
    [ {}, 'name', 'no name' ],
    [ { name => 42 }, 'name', 'a name that is a number' ],
    [ { name => ['x'] }, 'name', 'a name that is an array' ],
    [ { name => '' }, 'name', 'an empty name' ],
    [ { name => 'x', start_date => '2026-02-30' }, 'start_date', 'an impossible start_date' ],
    [ { name => 'x', start_date => 20260301 }, 'start_date', 'a start_date that is a number' ],
    [ { name => 'x', end_date => 'soon' }, 'end_date', 'an end_date that is not a date' ],
    [ { name => 'x', start_date => '2026-03-10', end_date => '2026-03-01' }, 'end_date',
      'end_date before start_date' ],
    [ { name => 'x', notes => 5 }, 'notes', 'notes of the wrong type' ],
) {
    error_is($rig->post('/api/trips', $case->[0], user => 'alice'), 400, 'invalid_field',
             "POST /api/trips: $case->[2]", $case->[1]);
}
error_is($rig->request('POST', '/api/trips', user => 'alice', body => '["Tasmania"]',
                       type => 'application/json'), 400, 'invalid_json', 'a body that is not an object');
is(scalar @{ trip_ids('alice') }, $before, 'no trip was written by any of them');

# Read and update, for the owner.
$res = $rig->get("/api/trips/$tas->{id}", user => 'alice');
is($res->{status}, 200, 'GET /api/trips/{id} for the owner');
is_deeply($res->{json}, $tas, 'answers the trip as created');
$res = $rig->patch("/api/trips/$tas->{id}", { notes => 'updated', end_date => '2026-03-12' }, user => 'alice');
is($res->{status}, 200, 'PATCH /api/trips/{id} by the owner');
is_deeply([@{ $res->{json} }{qw(name start_date end_date notes)}],
          ['Tasmania', '2026-03-01', '2026-03-12', 'updated'], 'the given fields change, the others stay');
is_deeply($rig->get("/api/trips/$tas->{id}", user => 'alice')->{json}, $res->{json}, 'and it was stored');
$tas = $res->{json};

# A bad PATCH changes nothing.  An end_date before the STORED start_date is
# as wrong as one before a start_date in the same body.
error_is($rig->patch("/api/trips/$tas->{id}", { start_date => '2026-03-05', end_date => '2026-03-04' },
                     user => 'alice'), 400, 'invalid_field', 'PATCH: end_date before start_date', 'end_date');
error_is($rig->patch("/api/trips/$tas->{id}", { name => 7 }, user => 'alice'), 400, 'invalid_field',
         'PATCH: a name of the wrong type', 'name');
error_is($rig->patch("/api/trips/$tas->{id}", { start_date => '2026-13-01' }, user => 'alice'), 400,
         'invalid_field', 'PATCH: a bad start_date', 'start_date');
error_is($rig->patch("/api/trips/$tas->{id}", { end_date => '2026-02-01' }, user => 'alice'), 400,
         'invalid_field', 'PATCH: an end_date before the stored start_date (2026-03-01)', 'end_date');
error_is($rig->patch("/api/trips/$tas->{id}", { start_date => '2026-04-01' }, user => 'alice'), 400,
         'invalid_field', 'PATCH: a start_date after the stored end_date (2026-03-12)', 'start_date');
is_deeply($rig->get("/api/trips/$tas->{id}", user => 'alice')->{json}, $tas,
          'the refused PATCHes left the trip unchanged');

# Dates are optional, and null clears one (etc/openapi.yaml: nullable).
{
    my $r = $rig->post('/api/trips', { name => 'Undated', start_date => undef, end_date => undef },
                       user => 'alice');
    is($r->{status}, 201, 'POST with null dates') or diag($r->{content});
    is_deeply([@{ $r->{json} }{qw(start_date end_date)}], [undef, undef], 'both stored as null');
    my $id = $r->{json}{id};
    $r = $rig->patch("/api/trips/$id", { start_date => '2026-05-01', end_date => '2026-05-09' }, user => 'alice');
    is_deeply([@{ $r->{json} }{qw(start_date end_date)}], ['2026-05-01', '2026-05-09'], 'dates set');
    $r = $rig->patch("/api/trips/$id", { end_date => undef }, user => 'alice');
    is($r->{status}, 200, 'PATCH end_date null') or diag($r->{content});
    is_deeply([@{ $r->{json} }{qw(start_date end_date)}], ['2026-05-01', undef], 'clears the end, keeps the start');
    $r = $rig->patch("/api/trips/$id", { start_date => undef }, user => 'alice');
    is_deeply([@{ $r->{json} }{qw(start_date end_date)}], [undef, undef], 'and the start');
    is($rig->del("/api/trips/$id", user => 'alice')->{status}, 204, 'the undated trip is deleted again');
}

# Nobody else takes part in Tasmania: 403 for reads and writes.
for my $u (qw(bob dave)) {
    error_is($rig->get("/api/trips/$tas->{id}", user => $u), 403, 'forbidden', "$u GET someone else's trip");
    error_is($rig->patch("/api/trips/$tas->{id}", { name => 'Mine now' }, user => $u), 403, 'forbidden',
             "$u PATCH someone else's trip");
}
is($rig->get("/api/trips/$tas->{id}", user => 'alice')->{json}{name}, 'Tasmania', 'the name did not change');

# A missing trip is 404 on every trip route.
my $missing = 999999;
error_is($rig->get("/api/trips/$missing", user => 'alice'), 404, 'not_found', 'GET a missing trip');
error_is($rig->patch("/api/trips/$missing", { name => 'x' }, user => 'alice'), 404, 'not_found',
         'PATCH a missing trip');
error_is($rig->del("/api/trips/$missing", user => 'alice'), 404, 'not_found', 'DELETE a missing trip');
for my $sub (qw(participants analytics owed)) {
    error_is($rig->get("/api/trips/$missing/$sub", user => 'alice'), 404, 'not_found', "GET a missing trip's $sub");
}
error_is($rig->post("/api/trips/$missing/transactions", { transaction_ids => [1] }, user => 'alice'),
         404, 'not_found', 'assign to a missing trip');

# The list: the owner's trips; nobody else's.
is_deeply(trip_ids('alice'), sorted($tas->{id}, $bare->{id}), "alice's list: her two trips");
is_deeply(trip_ids('bob'), [], "bob's list: none (he takes part in neither)");
is_deeply(trip_ids('dave'), [], "dave's list: none");

# ==== derived participants: the Hobart trip ======================================
# alice owns it and pays h1 (split with bob: bob appears through his split)
# and h2 (hers alone); bob creates his own unshared row b1 in it once he takes
# part; carol appears ONLY through a payment carol -> alice scoped to it.

my $hob = new_trip('alice', name => 'Hobart', start_date => '2026-05-01');

# Before bob takes part, he cannot put a row in the trip.
my $bob_rows = (list_ids('bob', 'sort=date'))[0];
$res = $rig->post('/api/transactions', { date => '2026-05-02', amount => 40, description => 'Ferry',
                                         trip_id => $hob->{id} }, user => 'bob');
error_is($res, 403, 'forbidden', 'POST /api/transactions with the trip_id of a trip bob is not part of', 'trip_id');
is_deeply((list_ids('bob', 'sort=date'))[0], $bob_rows, 'and no row was written');

my $h1 = create('alice', description => 'Hotel', merchant => 'Hotel', amount => 90,
                category => 'accommodation', trip_id => $hob->{id},
                splits => [ { participant_id => $uid{bob}, share_percent => 50 } ]);
is_deeply([$h1->{trip_id}, $h1->{overrides}{trip_id}], [$hob->{id}, $hob->{id}],
          'POST /api/transactions with trip_id: the row is in the trip (override trip_id)');
my $h2 = create('alice', description => 'Taxi', merchant => 'Taxi', amount => 30, category => 'transport',
                trip_id => $hob->{id});
# bob takes part through his split on h1 alone (he owns no row of it yet).
my ($p0) = participants('alice', $hob->{id});
is_deeply(sorted(keys %$p0), sorted(@uid{qw(alice bob)}), 'participants: alice, and bob through his split');
# So he may create a row in the trip.
my $b1 = create('bob', description => 'Ferry', merchant => 'Ferry', amount => 40, category => 'transport',
                trip_id => $hob->{id});
is($b1->{trip_id}, $hob->{id}, 'a participant (bob) creates a row in the trip');

error_is($rig->get("/api/trips/$hob->{id}", user => 'carol'), 403, 'forbidden',
         'carol does not take part before the payment');

# The payment carol -> alice scoped to the trip.  alice records it (she is
# one side and takes part in the trip; carol is her participant).
$res = $rig->post('/api/payments', { from_participant_id => $uid{carol}, to_participant_id => $uid{alice},
                                     amount => 20, date => '2026-05-03', trip_id => $hob->{id} },
                  user => 'alice');
is($res->{status}, 201, 'alice records a payment carol -> alice scoped to Hobart') or diag($res->{content});
my $carol_pay = $res->{json}{id};

sub participants {
    my ($user, $trip) = @_;
    my $res = $rig->get("/api/trips/$trip/participants", user => $user);
    is($res->{status}, 200, "$user GET /api/trips/$trip/participants") or diag($res->{content});
    return { map { $_->{id} => $_ } @{ $res->{json}{items} // [] } }, $res->{json};
}

my ($p, $pdoc) = participants('alice', $hob->{id});
is_deeply(sorted(keys %$p), sorted(@uid{qw(alice bob carol)}),
          'participants: alice (owner), bob (his split), carol (her scoped payment); not dave');
is($pdoc->{total}, 3, 'total 3');
is_deeply({ map { $_ => ($p->{$_}{owner} ? 1 : 0) } keys %$p },
          { $uid{alice} => 1, $uid{bob} => 0, $uid{carol} => 0 }, 'only the owner is flagged owner');
is($p->{ $uid{carol} }{email}, 'carol@example.org', 'participants carry their email');
for my $u (qw(bob carol)) {
    is_deeply(sorted(keys %{ (participants($u, $hob->{id}))[0] }), sorted(@uid{qw(alice bob carol)}),
              "$u sees the same three participants");
}
is($rig->get("/api/trips/$hob->{id}", user => 'carol')->{json}{name}, 'Hobart',
   'carol (only a scoped payment) reads the trip');
is($rig->get("/api/trips/$hob->{id}", user => 'bob')->{json}{transaction_count}, 3,
   'bob reads it: transaction_count 3');
$res = $rig->patch("/api/trips/$hob->{id}", { notes => 'bob was here' }, user => 'bob');
is($res->{status}, 200, 'a participant who is not the owner may PATCH');
is($res->{json}{notes}, 'bob was here', 'and the change is made');
is($res->{json}{owner_id}, $uid{alice}, 'the owner stays alice');

# dave is not involved: 403 on every trip operation, and nothing changes.
my $dave_row = create('dave', description => 'Dave lunch', amount => 12);
for my $sub (qw(participants analytics owed)) {
    error_is($rig->get("/api/trips/$hob->{id}/$sub", user => 'dave'), 403, 'forbidden', "dave GET $sub");
}
error_is($rig->get("/api/trips/$hob->{id}", user => 'dave'), 403, 'forbidden', 'dave GET the trip');
error_is($rig->patch("/api/trips/$hob->{id}", { name => 'Dave trip' }, user => 'dave'), 403, 'forbidden',
         'dave PATCH the trip');
error_is($rig->post("/api/trips/$hob->{id}/transactions", { transaction_ids => [ $dave_row->{id} ] },
                    user => 'dave'), 403, 'forbidden', 'dave assigns his own row to the trip');
error_is($rig->request('DELETE', "/api/trips/$hob->{id}/transactions", user => 'dave',
                       json => { transaction_ids => [ $h2->{id} ] }), 403, 'forbidden',
         'dave unassigns a row of the trip');
error_is($rig->del("/api/trips/$hob->{id}", user => 'dave'), 403, 'forbidden', 'dave DELETE the trip');
is_deeply(trip_of('dave', $dave_row->{id}), [undef, undef], "dave's row stayed out of the trip");
is_deeply(trip_of('alice', $h2->{id}), [$hob->{id}, $hob->{id}], 'h2 stayed in the trip');
is_deeply([@{ $rig->get("/api/trips/$hob->{id}", user => 'alice')->{json} }{qw(name notes)}],
          ['Hobart', 'bob was here'], 'the trip is unchanged by dave');

# Lists are derived the same way.
ok((grep { $_ == $hob->{id} } @{ trip_ids('bob') }), "Hobart is in bob's list (his split)");
is_deeply(trip_ids('carol'), [ $hob->{id} ], "carol's list: Hobart only (her payment)");
is_deeply(trip_ids('dave'), [], "dave's list: still none");

# ==== trip filters on GET /api/transactions (rule 2) =============================
# trip_id alone keeps owner scoping; trip_all_rows=1 gives a participant
# every row of the trip and a non-participant nothing.
my $T = $hob->{id};
my @all = ($h1->{id}, $h2->{id}, $b1->{id});
my ($ids, $doc);
($ids) = list_ids('alice', "trip_id=$T");
is_deeply($ids, sorted($h1->{id}, $h2->{id}), "alice, trip_id alone: h1 h2 (not bob's own b1)");
($ids) = list_ids('bob', "trip_id=$T");
is_deeply($ids, sorted($h1->{id}, $b1->{id}),
          "bob, trip_id alone: h1 (shared) and b1 (his); not alice's unshared h2");
($ids) = list_ids('carol', "trip_id=$T");
is_deeply($ids, [], 'carol, trip_id alone: no rows (she owns or shares none)');
for my $u (qw(alice bob carol)) {
    ($ids, $doc) = list_ids($u, "trip_id=$T&trip_all_rows=1");
    is_deeply($ids, sorted(@all), "$u, trip_all_rows=1: every row of the trip");
    is($doc->{total}, 3, "$u, trip_all_rows=1: total 3");
}
($ids, $doc) = list_ids('dave', "trip_id=$T&trip_all_rows=1");
is_deeply($ids, [], 'dave (not a participant), trip_all_rows=1: no rows');
is($doc->{total}, 0, 'dave: total 0');
($ids, $doc) = list_ids('dave', "trip_id=$T");
is_deeply([$ids, $doc->{total}], [[], 0], 'dave, trip_id alone: no rows');

# ==== only the owner brings people in ============================================
# bob takes part through his split; a payment between him and a contact of
# his own who does not take part (dave) cannot bring dave into alice's trip
# and all its rows, and one between him and carol (who takes part through
# her payment to alice) does not keep carol in it once that payment goes.
participant_ok($rig, @$_) for [bob => 'dave'], [bob => 'carol'], [dave => 'bob'], [carol => 'bob'];
$res = $rig->post('/api/payments', { from_participant_id => $uid{bob}, to_participant_id => $uid{dave},
                                     amount => 0.01, date => '2026-05-04', trip_id => $T }, user => 'bob');
error_is($res, 400, 'invalid_field', "bob's payment to dave scoped to alice's trip", 'trip_id');
error_is($rig->get("/api/trips/$T", user => 'dave'), 403, 'forbidden', 'dave still does not take part');
# Nor a row of bob's own in the trip, split with dave.
my $bob_dave = create('bob', description => 'Bob and Dave dinner', amount => 30, trip_id => $T,
                      splits => [ { participant_id => $uid{dave}, share_percent => 50 } ]);
is($bob_dave->{trip_id}, $T, "bob's own row, split with dave, is in alice's trip");
error_is($rig->get("/api/trips/$T", user => 'dave'), 403, 'forbidden', 'dave does not take part through it');
($ids, $doc) = list_ids('dave', "trip_id=$T&trip_all_rows=1");
is_deeply([$ids, $doc->{total}], [[], 0], "dave, trip_all_rows=1: none of alice's rows");
is_deeply(trip_ids('dave'), [], "dave's list: not alice's trip");
is($rig->del("/api/transactions/$bob_dave->{id}", user => 'bob')->{status}, 204, 'bob deletes that row again');
# The owner decides what is in the trip: alice takes bob's own row out of
# it (a row of bob's not in the trip stays out of her reach: below).
my $bob_in = create('bob', description => 'Bob souvenir', amount => 12, trip_id => $T);
$res = $rig->request('DELETE', "/api/trips/$T/transactions", user => 'alice',
                     json => { transaction_ids => [ $bob_in->{id} ] });
is_deeply([ $res->{status}, $res->{json}{updated} ], [ 200, 1 ], "alice takes bob's row out of her trip")
    or diag($res->{content});
is_deeply(trip_of('bob', $bob_in->{id}), [undef, undef], "bob's row is in no trip now");
error_is($rig->request('DELETE', "/api/trips/$T/transactions", user => 'bob',
                       json => { transaction_ids => [ $h2->{id} ] }),
         403, 'forbidden', "bob (a participant, not the owner) cannot take alice's unshared row out", 'transaction_ids');
is($rig->del("/api/transactions/$bob_in->{id}", user => 'bob')->{status}, 204, 'bob deletes it');
$res = $rig->post('/api/payments', { from_participant_id => $uid{bob}, to_participant_id => $uid{carol},
                                     amount => 5, date => '2026-05-04', trip_id => $T }, user => 'bob');
is($res->{status}, 201, 'bob pays carol, both taking part, scoped to the trip') or diag($res->{content});
my $bob_carol_pay = $res->{json}{id};

# ==== the scoped payment goes: carol no longer takes part ========================
is($rig->del("/api/payments/$carol_pay", user => 'alice')->{status}, 204, 'alice deletes the scoped payment');
($p) = participants('alice', $T);
is_deeply(sorted(keys %$p), sorted(@uid{qw(alice bob)}), 'participants: alice and bob; carol is gone');
error_is($rig->get("/api/trips/$T", user => 'carol'), 403, 'forbidden', 'carol GET the trip: 403');
error_is($rig->get("/api/trips/$T/participants", user => 'carol'), 403, 'forbidden',
         'carol GET its participants: 403');
($ids, $doc) = list_ids('carol', "trip_id=$T&trip_all_rows=1");
is_deeply([$ids, $doc->{total}], [[], 0], 'carol, trip_all_rows=1: no rows any more');
is_deeply(trip_ids('carol'), [], "carol's list: empty");
is($rig->get('/api/payments', user => 'carol')->{status}, 200, "(bob's payment to carol is still hers to see)");
is($rig->del("/api/payments/$bob_carol_pay", user => 'bob')->{status}, 204, 'and bob deletes it');

# ==== assignment (rule 11) ==========================================================

my $asg = new_trip('alice', name => 'Assign me');
my $A = $asg->{id};
my $r1 = create('alice', description => 'r1');
my $r2 = create('alice', description => 'r2');
my $rb = create('bob', description => "bob's own, not shared");

$res = $rig->post("/api/trips/$A/transactions", { transaction_ids => [ $r1->{id}, $r2->{id} ] }, user => 'alice');
is($res->{status}, 200, 'POST /api/trips/{id}/transactions assigns') or diag($res->{content});
is($res->{json}{updated}, 2, 'updated 2');
is_deeply(trip_of('alice', $_->{id}), [$A, $A], "$_->{description}: trip_id and overrides.trip_id are the trip")
    for $r1, $r2;
is($rig->get("/api/trips/$A", user => 'alice')->{json}{transaction_count}, 2, 'transaction_count 2');

$res = $rig->request('DELETE', "/api/trips/$A/transactions", user => 'alice',
                     json => { transaction_ids => [ $r1->{id} ] });
is($res->{status}, 200, 'DELETE /api/trips/{id}/transactions unassigns') or diag($res->{content});
is_deeply(trip_of('alice', $r1->{id}), [undef, undef], 'r1: trip_id null again');
is_deeply(trip_of('alice', $r2->{id}), [$A, $A], 'r2: still in the trip');

# Unassigning from this trip leaves a row of another trip alone.
$rig->request('DELETE', "/api/trips/$A/transactions", user => 'alice', json => { transaction_ids => [ $h2->{id} ] });
is_deeply(trip_of('alice', $h2->{id}), [$T, $T], "unassigning Hobart's h2 from 'Assign me' leaves it in Hobart");

# Another user's row among accessible ones: 403 and nothing changes.
error_is($rig->post("/api/trips/$A/transactions", { transaction_ids => [ $r1->{id}, $rb->{id} ] },
                    user => 'alice'), 403, 'forbidden', "assign alice's r1 with bob's unshared row",
         'transaction_ids');
is_deeply(trip_of('alice', $r1->{id}), [undef, undef], 'r1 (accessible, same request) stayed unassigned');
is_deeply(trip_of('bob', $rb->{id}), [undef, undef], "bob's row stayed unassigned");
error_is($rig->request('DELETE', "/api/trips/$A/transactions", user => 'alice',
                       json => { transaction_ids => [ $r2->{id}, $rb->{id} ] }),
         403, 'forbidden', "unassign alice's r2 with bob's unshared row", 'transaction_ids');
is_deeply(trip_of('alice', $r2->{id}), [$A, $A], 'r2 stayed in the trip');

error_is($rig->post("/api/trips/$A/transactions", { transaction_ids => [ $r1->{id}, 99999999 ] },
                    user => 'alice'), 404, 'not_found', 'a missing id among the ids', 'transaction_ids');
is_deeply(trip_of('alice', $r1->{id}), [undef, undef], 'r1 stayed unassigned');

# Bad bodies.
for my $case ([ {}, 'no transaction_ids' ], [ { transaction_ids => $r1->{id} }, 'an id, not an array' ],
              [ { transaction_ids => [] }, 'an empty array' ],
              [ { transaction_ids => [ 'r1' ] }, 'an array of text' ],
              [ { transaction_ids => [ -3 ] }, 'a negative id' ]) {
    error_is($rig->post("/api/trips/$A/transactions", $case->[0], user => 'alice'), 400, 'invalid_field',
             "assign: $case->[1]", 'transaction_ids');
}
error_is($rig->request('POST', "/api/trips/$A/transactions", user => 'alice', body => "[$r1->{id}]",
                       type => 'application/json'), 400, 'invalid_json', 'assign: a bare array body');
is_deeply(trip_of('alice', $r1->{id}), [undef, undef], 'r1 stayed unassigned through the bad bodies');

# PATCH trip_id: the trip must be one the caller takes part in.
error_is($rig->patch("/api/transactions/$dave_row->{id}", { trip_id => $A }, user => 'dave'),
         403, 'forbidden', "dave PATCHes his row into alice's trip", 'trip_id');
is_deeply(trip_of('dave', $dave_row->{id}), [undef, undef], "dave's row is unchanged");
error_is($rig->patch("/api/transactions/$rb->{id}", { trip_id => $A }, user => 'bob'),
         403, 'forbidden', "bob PATCHes his row into a trip he is not part of", 'trip_id');
$res = $rig->patch("/api/transactions/$r1->{id}", { trip_id => $A }, user => 'alice');
is($res->{status}, 200, 'the owner PATCHes a row into her trip');
is_deeply([$res->{json}{trip_id}, $res->{json}{overrides}{trip_id}], [$A, $A], 'trip_id set by PATCH');
$res = $rig->patch("/api/transactions/$r1->{id}", { trip_id => undef }, user => 'alice');
is_deeply([$res->{json}{trip_id}, $res->{json}{overrides}{trip_id}], [undef, undef], 'trip_id null clears it');

# ==== tag-to-trip ===================================================================

sub new_tag {
    my ($user, $name) = @_;
    my $res = $rig->post('/api/tags', { name => $name }, user => $user);
    is($res->{status}, 201, "$user creates tag $name") or diag($res->{content});
    return $res->{json}{id};
}
sub tag_ids_of { [sort { $a <=> $b } map { $_->{id} } @{ $rig->get('/api/tags', user => $_[0])->{json}{items} // [] }] }
sub has_tag { scalar grep { $_ == $_[1] } @{ tag_ids_of($_[0]) } }

my $bali = new_tag('alice', 'Bali');
my $t1 = create('alice', description => 'Bali t1', tag_ids => [ $bali ]);
my $t2 = create('alice', description => 'Bali t2', tag_ids => [ $bali ]);
my $t4 = create('alice', description => 'not tagged');
# t3: bob's row shared with alice, tagged Bali by alice.
my $t3 = create('bob', description => 'Bali t3 (bob)', splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
is($rig->post("/api/transactions/$t3->{id}/tags", { tag_id => $bali }, user => 'alice')->{status}, 200,
   "alice tags bob's shared row Bali");
# t5: bob's row alice tagged while it was shared, then bob un-shared it:
# alice can no longer access it (the tag link stays: clearing splits does
# not touch tags), so the trip must not take it.
my $t5 = create('bob', description => 'Bali t5 (bob, unshared later)',
                splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
is($rig->post("/api/transactions/$t5->{id}/tags", { tag_id => $bali }, user => 'alice')->{status}, 200,
   "alice tags bob's shared t5 Bali");
is($rig->del("/api/transactions/$t5->{id}/splits", user => 'bob')->{status}, 204, 'bob un-shares t5');

$res = $rig->post('/api/trips/from-tag', { tag_id => $bali }, user => 'alice');
is($res->{status}, 201, 'POST /api/trips/from-tag') or diag($res->{content});
my $bt = $res->{json};
is($bt->{name}, 'Bali', "named after the tag");
is($bt->{owner_id}, $uid{alice}, 'owned by the caller');
is($bt->{transaction_count}, 3, 'holding the three accessible rows with the tag');
is_deeply(trip_of('alice', $_->{id}), [$bt->{id}, $bt->{id}], "$_->{description} is in the trip")
    for $t1, $t2, $t3;
is_deeply(trip_of('alice', $t4->{id}), [undef, undef], 'an untagged row is not');
is_deeply(trip_of('bob', $t5->{id}), [undef, undef], 'a tagged row alice can no longer access is not');
ok(!has_tag('alice', $bali), 'the tag is deleted (keep_tag defaults to false)');
is_deeply(get_row('alice', $t1->{id})->{tags}, [], 't1 has no tags left');

my $fiji = new_tag('alice', 'Fiji');
my $f1 = create('alice', description => 'Fiji f1', tag_ids => [ $fiji ]);
$res = $rig->post('/api/trips/from-tag', { tag_id => $fiji, keep_tag => JSON::PP::true }, user => 'alice');
is($res->{status}, 201, 'from-tag with keep_tag true');
is_deeply([$res->{json}{name}, $res->{json}{transaction_count}], ['Fiji', 1], "trip 'Fiji' with one row");
ok(has_tag('alice', $fiji), 'the tag stays');
is_deeply([map { $_->{id} } @{ get_row('alice', $f1->{id})->{tags} }], [ $fiji ], 'and stays on the row');
is_deeply(trip_of('alice', $f1->{id}), [$res->{json}{id}, $res->{json}{id}], 'the row is in the trip');

my $nz = new_tag('alice', 'NZ');
my $n1 = create('alice', description => 'NZ n1', tag_ids => [ $nz ]);
$res = $rig->post('/api/trips/from-tag', { tag_id => $nz, name => 'New Zealand 2026' }, user => 'alice');
is($res->{status}, 201, 'from-tag with a name');
is($res->{json}{name}, 'New Zealand 2026', 'the name overrides the tag name');
is_deeply(trip_of('alice', $n1->{id}), [$res->{json}{id}, $res->{json}{id}], 'the row is in it');
ok(!has_tag('alice', $nz), 'the tag is deleted');

# Another user's tag, and bad bodies: 400, nothing written.
my $bobtag_bali = new_tag('bob', 'bob-bali');
my $bob_b = create('bob', description => 'bob bali', tag_ids => [ $bobtag_bali ]);
$before = trip_ids('alice');
error_is($rig->post('/api/trips/from-tag', { tag_id => $bobtag_bali }, user => 'alice'), 403, 'forbidden',
         "from-tag with bob's tag", 'tag_id');
error_is($rig->post('/api/trips/from-tag', { tag_id => 999999 }, user => 'alice'), 400, 'invalid_field',
         'from-tag with no such tag', 'tag_id');
error_is($rig->post('/api/trips/from-tag', {}, user => 'alice'), 400, 'invalid_field', 'from-tag without tag_id',
         'tag_id');
error_is($rig->post('/api/trips/from-tag', { tag_id => 'Fiji' }, user => 'alice'), 400, 'invalid_field',
         'from-tag with a tag name for tag_id', 'tag_id');
error_is($rig->post('/api/trips/from-tag', { tag_id => $fiji, keep_tag => 'yes' }, user => 'alice'), 400,
         'invalid_field', 'from-tag with keep_tag not a boolean', 'keep_tag');
is_deeply(trip_ids('alice'), $before, 'no trip was created');
ok(has_tag('bob', $bobtag_bali), "bob's tag still exists");
is_deeply(trip_of('bob', $bob_b->{id}), [undef, undef], "bob's tagged row is in no trip");

# ==== analytics (rule 12 / rule D): the Japan trip ===============================
# alice's rows unless noted; bob takes part through the split on a1.
#
#  row  who    type    amount           date        merchant   category       split        counts
#  a1   alice  debit   120.00           2026-04-01  Sushi Bar  dining         bob 25%      120.00
#  a2   alice  refund   20.00           2026-04-02  Sushi Bar  dining         -            -20.00
#  a3   alice  credit   50.00           2026-04-07  Cashback   other          -            (credit: no)
#  a4   alice  debit   500.00           2026-04-03  Bank       transfers      -            (excluded)
#  a5   alice  debit  1000.00           2026-04-06  Employer   income         -            (excluded)
#  a6   alice  fee       7.50           2026-04-03  Bank       fees           -              7.50
#  a7   alice  debit   100 USD = 150 AUD 2026-04-04 Ryokan     accommodation  bob 50%      150.00
#  b1   bob    debit    60.00           2026-04-04  Ryokan     accommodation  alice 50%     60.00
#  b2   bob    debit    10.00           2026-04-05  Vending    dining         -             10.00
#
# (a4 and a5 are debits so that only the category exclusion keeps them out.)
# total       = 120 - 20 + 7.50 + 150 + 60 + 10                = 327.50
# by_category : dining 120 - 20 + 10 = 110.00; accommodation 150 + 60 = 210.00; fees 7.50
# by_day      : 04-01 120.00; 04-02 -20.00; 04-03 7.50; 04-04 150 + 60 = 210.00; 04-05 10.00
#               (no 04-06: income only; no 04-07: a credit only)
# by_merchant : Sushi Bar 100.00; Bank 7.50; Ryokan 210.00; Vending 10.00
# by_tag      : alice's 'food' on a1, b1 and a4 -> 120 + 60 = 180.00 (a4 excluded);
#               bob's 'bobtag' on b1, b2 -> 70.00, shown to bob only
# by_participant:
#   a1 120 : alice 75% = 90, bob 25% = 30      a2 -20 : alice -20
#   a6 7.50: alice 7.50                        a7 150 : alice 75, bob 75
#   b1 60  : bob 30, alice 30                  b2 10  : bob 10
#   alice = 90 - 20 + 7.50 + 75 + 30 = 182.50; bob = 30 + 75 + 30 + 10 = 145.00 (sum 327.50)

my $jp = new_trip('alice', name => 'Japan', start_date => '2026-04-01', end_date => '2026-04-07');
my $J = $jp->{id};
my $food = new_tag('alice', 'food');
my $bobtag = new_tag('bob', 'bobtag');
my %jrow;
$jrow{a1} = create('alice', description => 'a1', date => '2026-04-01', amount => 120, merchant => 'Sushi Bar',
                   category => 'dining', trip_id => $J, tag_ids => [ $food ],
                   splits => [ { participant_id => $uid{bob}, share_percent => 25 } ]);
$jrow{a2} = create('alice', description => 'a2', date => '2026-04-02', amount => 20, merchant => 'Sushi Bar',
                   category => 'dining', transaction_type => 'refund', trip_id => $J);
$jrow{a3} = create('alice', description => 'a3', date => '2026-04-07', amount => 50, merchant => 'Cashback',
                   category => 'other', transaction_type => 'credit', trip_id => $J);
$jrow{a4} = create('alice', description => 'a4', date => '2026-04-03', amount => 500, merchant => 'Bank',
                   category => 'transfers', trip_id => $J, tag_ids => [ $food ]);
$jrow{a5} = create('alice', description => 'a5', date => '2026-04-06', amount => 1000, merchant => 'Employer',
                   category => 'income', trip_id => $J);
$jrow{a6} = create('alice', description => 'a6', date => '2026-04-03', amount => 7.5, merchant => 'Bank',
                   category => 'fees', transaction_type => 'fee', trip_id => $J);
$jrow{a7} = create('alice', description => 'a7', date => '2026-04-04', amount => 100, currency => 'USD',
                   amount_aud => 150, exchange_rate_to_aud => 1.5, merchant => 'Ryokan',
                   category => 'accommodation', trip_id => $J,
                   splits => [ { participant_id => $uid{bob}, share_percent => 50 } ]);
$jrow{b1} = create('bob', description => 'b1', date => '2026-04-04', amount => 60, merchant => 'Ryokan',
                   category => 'accommodation', trip_id => $J, tag_ids => [ $bobtag ],
                   splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
$jrow{b2} = create('bob', description => 'b2', date => '2026-04-05', amount => 10, merchant => 'Vending',
                   category => 'dining', trip_id => $J, tag_ids => [ $bobtag ]);
is($rig->post("/api/transactions/$jrow{b1}{id}/tags", { tag_id => $food }, user => 'alice')->{status}, 200,
   "alice tags bob's shared b1 with her tag 'food'");
is($rig->get("/api/trips/$J", user => 'alice')->{json}{transaction_count}, 9, 'Japan holds nine rows');

sub analytics {
    my ($user) = @_;
    my $res = $rig->get("/api/trips/$J/analytics", user => $user);
    is($res->{status}, 200, "$user GET /api/trips/{id}/analytics") or diag($res->{content});
    return $res->{json} // {};
}

my $an = analytics('alice');
is(m2($an->{total}), '327.50', 'total 327.50 (refund negative; credit, transfers, income out; fee in; USD row at 150)');
is_deeply(as_map($an->{by_category}, 'category', 'total'),
          { dining => '110.00', accommodation => '210.00', fees => '7.50' }, 'by_category');
is_deeply(as_map($an->{by_day}, 'date', 'total'),
          { '2026-04-01' => '120.00', '2026-04-02' => '-20.00', '2026-04-03' => '7.50',
            '2026-04-04' => '210.00', '2026-04-05' => '10.00' }, 'by_day');
is_deeply(as_map($an->{by_merchant}, 'merchant', 'total'),
          { 'Sushi Bar' => '100.00', Bank => '7.50', Ryokan => '210.00', Vending => '10.00' }, 'by_merchant');
is_deeply(as_map($an->{by_tag}, 'tag_id', 'total'), { $food => '180.00' },
          "by_tag for alice: only her own tag 'food', 180.00");
is_deeply([map { $_->{name} } @{ $an->{by_tag} // [] }], ['food'], 'by_tag names the tag');
is_deeply(as_map($an->{by_participant}, 'participant_id', 'total'),
          { $uid{alice} => '182.50', $uid{bob} => '145.00' },
          'by_participant: split shares apportioned, unsplit rows to their owner');
# Each participant named as /api/me names them (the rig's users have an
# email and no name, so the email).
my %me_name;
for my $who (qw(alice bob)) {
    my $m = $rig->get('/api/me', user => $who)->{json} // {};
    $me_name{$who} = $m->{name} // $m->{email};
}
is_deeply({ map { ($_->{participant_id} => $_->{name}) } @{ $an->{by_participant} // [] } },
          { $uid{alice} => $me_name{alice}, $uid{bob} => $me_name{bob} },
          'by_participant names each participant');

my $ban = analytics('bob');
is(m2($ban->{total}), '327.50', 'bob (a participant) sees the same total');
is_deeply(as_map($ban->{by_tag}, 'tag_id', 'total'), { $bobtag => '70.00' },
          "by_tag for bob: only his own 'bobtag', 70.00");
is_deeply(as_map($ban->{by_participant}, 'participant_id', 'total'),
          as_map($an->{by_participant}, 'participant_id', 'total'), 'by_participant is the same for bob');
is_deeply(as_map($ban->{by_category}, 'category', 'total'), as_map($an->{by_category}, 'category', 'total'),
          'by_category is the same for bob');
error_is($rig->get("/api/trips/$J/analytics", user => 'dave'), 403, 'forbidden', 'dave GET analytics');

# ==== owed (rule 9): the Owed trip ==================================================
# Rows of the trip (o2 is bob's; the others alice's):
#   o1  alice  debit  100  bob 40%    -> bob owes alice 40.00
#   o2  bob    debit   50  alice 30%  -> alice owes bob 15.00
#   o3  alice  refund  10  bob 40%    -> bob owes alice -4.00
#   o4  alice  debit   30  carol 50%  -> carol owes alice 15.00
# alice: owed_to_me bob 40 - 4 = 36.00, carol 15.00; owed_by_me bob 15.00.
# Both directions with bob at once, never netted to 21.00.

my $ow = new_trip('alice', name => 'Owed');
my $O = $ow->{id};
create('alice', description => 'o1', amount => 100, trip_id => $O,
       splits => [ { participant_id => $uid{bob}, share_percent => 40 } ]);
create('bob', description => 'o2', amount => 50, trip_id => $O,
       splits => [ { participant_id => $uid{alice}, share_percent => 30 } ]);
create('alice', description => 'o3', amount => 10, transaction_type => 'refund', trip_id => $O,
       splits => [ { participant_id => $uid{bob}, share_percent => 40 } ]);
create('alice', description => 'o4', amount => 30, trip_id => $O,
       splits => [ { participant_id => $uid{carol}, share_percent => 50 } ]);

# What is owed on a trip (the Owed trip unless told), as [owed_to_me, owed_by_me].
sub owed {
    my ($user, $trip) = @_;
    my $res = $rig->get('/api/trips/' . ($trip // $O) . '/owed', user => $user);
    is($res->{status}, 200, "$user GET /api/trips/{id}/owed") or diag($res->{content});
    my $j = $res->{json} // {};
    return [as_map($j->{owed_to_me}, 'participant_id', 'amount'), as_map($j->{owed_by_me}, 'participant_id', 'amount')];
}

is_deeply(owed('alice'), [ { $uid{bob} => '36.00', $uid{carol} => '15.00' }, { $uid{bob} => '15.00' } ],
          'alice: owed_to_me bob 36.00 carol 15.00; owed_by_me bob 15.00 (not netted)');
is_deeply(owed('bob'), [ { $uid{alice} => '15.00' }, { $uid{alice} => '36.00' } ],
          'bob (the mirror): owed_to_me alice 15.00; owed_by_me alice 36.00');

# Payments scoped to the trip reduce the direction they settle:
#   bob -> alice 6.00 (Owed)   : alice's owed_to_me bob 36 - 6 = 30.00
#   alice -> bob 5.00 (Owed)   : alice's owed_by_me bob 15 - 5 = 10.00
# and payments outside it change nothing:
#   alice -> bob 100.00 household; bob -> alice 7.00 scoped to Japan.
for my $pay ([bob => { from_participant_id => $uid{bob}, to_participant_id => $uid{alice}, amount => 6,
                       trip_id => $O }],
             [alice => { from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, amount => 5,
                         trip_id => $O }],
             [alice => { from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, amount => 100 }],
             [bob => { from_participant_id => $uid{bob}, to_participant_id => $uid{alice}, amount => 7,
                       trip_id => $J }]) {
    my $r = $rig->post('/api/payments', { date => '2026-05-20', %{ $pay->[1] } }, user => $pay->[0]);
    is($r->{status}, 201, "$pay->[0] records a payment of $pay->[1]{amount}") or diag($r->{content});
}
is_deeply(owed('alice'), [ { $uid{bob} => '30.00', $uid{carol} => '15.00' }, { $uid{bob} => '10.00' } ],
          'alice after payments: owed_to_me bob 30.00 carol 15.00; owed_by_me bob 10.00');
is_deeply(owed('bob'), [ { $uid{alice} => '10.00' }, { $uid{alice} => '30.00' } ],
          'bob after payments: owed_to_me alice 10.00; owed_by_me alice 30.00');
is_deeply(owed('carol'), [ {}, { $uid{alice} => '15.00' } ], 'carol: owes alice 15.00, is owed nothing');
error_is($rig->get("/api/trips/$O/owed", user => 'dave'), 403, 'forbidden', 'dave GET owed');

# ==== delete (rule 10) ==============================================================

my $dm = new_trip('alice', name => 'Doomed');
my $D = $dm->{id};
my $d1 = create('alice', description => 'd1', amount => 20, trip_id => $D,
                splits => [ { participant_id => $uid{bob}, share_percent => 50 } ]);
my $d2 = create('bob', description => 'd2', amount => 10, trip_id => $D);
$res = $rig->post('/api/payments', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice},
                                     amount => 5, date => '2026-05-21', trip_id => $D }, user => 'bob');
is($res->{status}, 201, 'bob records a payment scoped to Doomed');
my $dpay = $res->{json}{id};

error_is($rig->del("/api/trips/$D", user => 'bob'), 403, 'forbidden', 'a participant who is not the owner cannot delete');
error_is($rig->del("/api/trips/$D", user => 'dave'), 403, 'forbidden', 'a non-participant cannot delete');
$res = $rig->get("/api/trips/$D", user => 'alice');
is_deeply([$res->{status}, $res->{json}{transaction_count}], [200, 2], 'the trip still exists, with its two rows');

$res = $rig->del("/api/trips/$D", user => 'alice');
is($res->{status}, 204, 'the owner deletes the trip: 204');
error_is($rig->get("/api/trips/$D", user => 'alice'), 404, 'not_found', 'GET the deleted trip');
error_is($rig->get("/api/trips/$D", user => 'bob'), 404, 'not_found', 'bob GET the deleted trip');
error_is($rig->del("/api/trips/$D", user => 'alice'), 404, 'not_found', 'DELETE it again');
is_deeply(trip_of('alice', $d1->{id}), [undef, undef], "alice's d1: trip_id null");
is_deeply(trip_of('bob', $d2->{id}), [undef, undef], "bob's d2: trip_id null");
($ids) = list_ids('alice', "trip_id=$D");
is_deeply($ids, [], 'no rows carry the trip any more');
my ($pr) = grep { $_->{id} == $dpay } @{ $rig->get('/api/payments', user => 'alice')->{json}{items} // [] };
ok($pr, 'the payment still exists');
is_deeply([$pr->{trip_id}, $pr->{scope}], [undef, 'household'], 'and its scope is household: trip_id null');
ok((grep { $_->{id} == $dpay } @{ $rig->get('/api/payments?scope=household', user => 'bob')->{json}{items} // [] }),
   'it is listed under scope=household');
ok(!(grep { $_ == $D } @{ trip_ids('alice') }), "it is gone from alice's list");
ok(!(grep { $_ == $D } @{ trip_ids('bob') }), "and from bob's");

# ==== a reconciled row makes nobody a participant =====================================

# A manual row reconciled with a statement row is hidden from every query
# (SPEC.md 3), so it no longer makes its owner a participant of its trip:
# alice took part in bob's trip only through a split on his row and her own
# manual row, since reconciled; once the statement row leaves the trip and
# bob takes the split back, she is an outsider like dave.
my $H = new_trip('bob', name => 'Hidden')->{id};
my $h1 = create('bob', description => 'bob private', amount => 40, trip_id => $H,
                splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);
my $hm = create('alice', description => 'alice card', amount => 25, date => '2026-03-10',
                payment_method => 'card', trip_id => $H);
$res = $rig->post('/api/statements', { bank_name => 'Hidden Bank', account_type => 'Visa Credit Card',
                   period_start => '2026-03-01', period_end => '2026-03-31',
                   transactions => [ { date => '2026-03-10', description => 'shop', amount => 25,
                                       transaction_type => 'debit' } ] }, user => 'alice');
is($res->{status}, 201, 'alice imports a statement') or diag($res->{content});
my $hs = $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items}[0]{id};
$res = $rig->post('/api/reconcile', { matches => [ { manual_id => $hm->{id}, statement_transaction_id => $hs } ] },
                  user => 'alice');
is($res->{status}, 200, 'her manual row is reconciled with the statement row') or diag($res->{content});
is($rig->patch("/api/transactions/$hs", { trip_id => undef }, user => 'alice')->{status}, 200,
   'the statement row leaves the trip');
is($rig->del("/api/transactions/$h1->{id}/splits", user => 'bob')->{status}, 204, 'bob takes his split back')
    or diag('bob: splits delete');
error_is($rig->get("/api/trips/$H", user => 'alice'), 403, 'forbidden', 'alice GET the trip: an outsider now');
error_is($rig->patch("/api/trips/$H", { name => 'Mine now' }, user => 'alice'), 403, 'forbidden', 'alice PATCH the trip');
ok(!(grep { $_ == $H } @{ trip_ids('alice') }), "the trip is not in alice's list");
($ids) = list_ids('alice', "trip_id=$H&trip_all_rows=1");
is_deeply($ids, [], "trip_all_rows shows alice none of bob's rows");
is($rig->get("/api/trips/$H", user => 'bob')->{status}, 200, 'bob still reads his trip');

# ==== derived participants: a payment's payee, a row's owner, a split ==============
# ---- the receiving side of a trip-scoped payment takes part in the trip ------------
{
    my $trip = ok_json($rig->post('/api/trips', { name => 'Payee' }, user => 'alice'), 'trip')->{id};
    ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{carol},
        date => '2026-05-03', amount => 20, trip_id => $trip }, user => 'alice'), 'payment to carol');
    is($rig->get("/api/trips/$trip", user => 'carol')->{status}, 200,
       'the payee of a trip-scoped payment may read the trip');
    ok((grep { $_ == $trip } @{ trip_ids_of('carol') }), 'the trip is in the payee\'s trip list');
    my %who = map { $_->{id} => 1 } @{ $rig->get("/api/trips/$trip/participants", user => 'alice')->{json}{items} // [] };
    ok($who{ $uid{carol} }, 'the payee is among the trip\'s participants');
    is($rig->get("/api/trips/$trip", user => 'dave')->{status}, 403, 'a stranger still may not');
}

# ---- owning a row of the trip is taking part, with no split -------------------------
{
    my $trip = ok_json($rig->post('/api/trips', { name => 'Payer' }, user => 'alice'), 'trip')->{id};
    my $a = manual_id($rig, alice => date => '2026-05-02', amount => 40, description => 'Payer A', trip_id => $trip,
                            splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my $b = manual_id($rig, bob => date => '2026-05-02', amount => 30, description => 'Payer B');
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [$b] }, user => 'bob')->{status}, 200,
       'bob (split in) puts his own row on the trip');
    is($rig->del("/api/transactions/$a/splits", user => 'alice')->{status}, 204, 'alice unshares her row');
    is($rig->get("/api/trips/$trip", user => 'bob')->{status}, 200,
       'bob, who now only paid for a row of the trip, may still read it');
    my $list = $rig->get("/api/transactions?trip_id=$trip&trip_all_rows=1&exclude_categories=", user => 'bob')->{json};
    is($list->{total}, 2, 'and trip_all_rows shows him both rows of the trip');
}

# ---- a split alone makes a participant, listed among their trips --------------------
{
    my $trip = ok_json($rig->post('/api/trips', { name => 'Split only' }, user => 'alice'), 'trip')->{id};
    manual_id($rig, alice => date => '2026-05-02', amount => 40, description => 'Split only A', trip_id => $trip,
                    splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    ok((grep { $_ == $trip } @{ trip_ids_of('bob') }),
       'a trip where bob only has a split is in his trip list');
    ok(!(grep { $_ == $trip } @{ trip_ids_of('carol') }), 'and not in carol\'s');
}

# ==== only the owner brings people in: participants' moves and shares =============
# Only a trip's owner brings people in.  A participant moving a row shared
# with them into someone else's trip would make the row's owner a
# participant, who would read all of the trip and could bring in the next
# person the same way; a participant writing the owner's shares on a row of the owner's
# trip would bring in whoever they named.
{
    participant_ok($rig, dave => $_) for qw(erin alice);
    participant_ok($rig, carol => $_) for qw(erin dave);
    my $trip = ok_json($rig->post('/api/trips', { name => 'Daves walk', notes => 'private' }, user => 'dave'),
                       'dave makes a trip')->{id};
    my $shared = manual_id($rig, dave => date => '2026-08-01', description => 'Hut fee', amount => 40, trip_id => $trip,
                                 splits => [ { participant_id => $uid{erin}, share_percent => 50 } ]);
    manual_id($rig, dave => date => '2026-08-02', description => 'Daves own boots', amount => 200, trip_id => $trip);
    my $carols = manual_id($rig, carol => date => '2026-08-03', description => 'Carols taxi', amount => 20,
                                 splits => [ { participant_id => $uid{erin}, share_percent => 50 } ]);
    my @tries = (
        [ post => "/api/trips/$trip/transactions", { transaction_ids => [ $carols ] }, 'transaction_ids',
          'POST /trips/{id}/transactions' ],
        [ patch => "/api/transactions/$carols", { trip_id => $trip }, 'trip_id', 'PATCH trip_id' ],
        [ post => '/api/transactions/bulk', { action => 'assign_trip', ids => [ $carols ], trip_id => $trip },
          'trip_id', 'bulk assign_trip' ],
    );
    for my $t (@tries) {
        my ($method, $path, $body, $field, $how) = @$t;
        my $res = $rig->$method($path, $body, user => 'erin');
        is_deeply([ $res->{status}, ($res->{json} // {})->{error}{field} ], [ 403, $field ],
                  "erin may not move carol's row into dave's trip ($how)") or diag($res->{content});
    }
    is($rig->get("/api/transactions/$carols", user => 'carol')->{json}{trip_id}, undef, 'the row is where it was');
    is($rig->get("/api/trips/$trip", user => 'carol')->{status}, 403, 'and carol takes no part in the trip');
    my $erins = manual_id($rig, erin => date => '2026-08-04', description => 'Erins snacks', amount => 9);
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $erins ] }, user => 'erin')->{status}, 200,
       'erin moves her own row in (she takes part already)');
    # Her own row split with a contact of hers: the contact takes no part
    # (only splits on the trip owner's rows make participants).
    participant_ok($rig, erin => 'bob');
    my $erins_shared = manual_id($rig, erin => date => '2026-08-04', description => 'Erins shared taxi', amount => 30,
                                       splits => [ { participant_id => $uid{bob}, share_percent => 50 } ]);
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $erins_shared ] }, user => 'erin')->{status},
       200, 'erin moves in her row shared with bob');
    ok(!grep({ $_->{id} == $uid{bob} } @{ $rig->get("/api/trips/$trip/participants", user => 'dave')->{json}{items} // [] }),
       "bob is not among the trip's participants");
    is($rig->get("/api/trips/$trip", user => 'bob')->{status}, 403, 'nor may he see the trip');
    # The shares of dave's row in his trip: erin may change them, not name
    # a contact of dave's who is not in the trip.
    my $res = $rig->post("/api/transactions/$shared/splits", [ { participant_id => $uid{erin}, share_percent => 50 },
                                                               { participant_id => $uid{alice}, share_percent => 10 } ],
                         user => 'erin');
    is_deeply([ $res->{status}, ($res->{json} // {})->{error}{field} ], [ 403, 'participant_id' ],
              "erin may not name alice in the split of dave's row in his trip") or diag($res->{content});
    is($rig->get("/api/trips/$trip", user => 'alice')->{status}, 403, 'alice takes no part in it');
    is($rig->post("/api/transactions/$shared/splits", [ { participant_id => $uid{erin}, share_percent => 60 } ],
                  user => 'erin')->{status}, 200, 'erin changes her own share');
    # Nor may she move in a row of dave's whose split names someone not in
    # the trip: they would take part.
    my $outside = manual_id($rig, dave => date => '2026-08-06', description => 'Daves dinner out', amount => 90,
                                  splits => [ { participant_id => $uid{erin}, share_percent => 30 },
                                              { participant_id => $uid{alice}, share_percent => 30 } ]);
    for my $t ([ post => "/api/trips/$trip/transactions", { transaction_ids => [ $outside ] }, 'transaction_ids' ],
               [ patch => "/api/transactions/$outside", { trip_id => $trip }, 'trip_id' ],
               [ post => '/api/transactions/bulk', { action => 'assign_trip', ids => [ $outside ], trip_id => $trip },
                 'trip_id' ]) {
        my $res = $rig->${\ $t->[0]}($t->[1], $t->[2], user => 'erin');
        is_deeply([ $res->{status}, ($res->{json} // {})->{error}{field} ], [ 403, $t->[3] ],
                  "erin may not move dave's row split with alice into his trip ($t->[0] $t->[1])")
            or diag($res->{content});
    }
    is($rig->get("/api/trips/$trip", user => 'alice')->{status}, 403, 'alice still takes no part');
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $outside ] }, user => 'dave')->{status}, 200,
       'dave himself may');
    is($rig->get("/api/trips/$trip", user => 'alice')->{status}, 200, 'and then alice takes part');

    # The trip's owner brings people in: carol's row shared with dave.
    my $to_dave = manual_id($rig, carol => date => '2026-08-05', description => 'Carols fuel', amount => 60,
                                  splits => [ { participant_id => $uid{dave}, share_percent => 50 } ]);
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $to_dave ] }, user => 'dave')->{status}, 200,
       'dave moves a row carol shares with him into his trip');
    is($rig->get("/api/trips/$trip", user => 'carol')->{status}, 200, 'and so carol takes part');
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $carols ] }, user => 'erin')->{status}, 200,
       'now erin may move carol\'s other row in');
}

# ==== owed in the home currency, credits negated, a reconciled row once ============
# Trip FX: alice's debit USD 100.00, amount_aud 150.00 (rate 1.5), split with
# dave 50%: dave owes alice 150.00 x 50% = 75.00 (not 50.00 of the USD amount).
# Trip Cr: alice's debit 100.00 and credit 20.00, each split with erin 50%:
#   erin owes alice 50.00 - 10.00 = 40.00 (a credit counted positive would give 60.00)
participant_ok($rig, alice => $_) for qw(dave erin);
{
    my $tfx = new_trip('alice', name => 'FX trip')->{id};
    my $usd = create('alice', date => '2024-07-03', amount => 100, currency => 'USD', amount_aud => 150,
                     exchange_rate_to_aud => 1.5, description => 'NYC hotel', category => 'accommodation',
                     trip_id => $tfx, splits => [ { participant_id => $uid{dave}, share_percent => 50 } ]);
    is(m2(get_row('alice', $usd->{id})->{amount_aud}), '150.00', 'the USD row holds amount_aud 150.00');
    is_deeply(owed('alice', $tfx), [ { $uid{dave} => '75.00' }, {} ],
              'trip owed (alice): dave owes 75.00, half of amount_aud 150.00, not of USD 100.00');
    is_deeply(owed('dave', $tfx), [ {}, { $uid{alice} => '75.00' } ],
              'trip owed (dave): owed_by_me alice 75.00 in the home currency');

    my $tcr = new_trip('alice', name => 'Credit trip')->{id};
    create('alice', date => '2024-08-03', amount => 100, description => 'Ski hire', category => 'travel',
           trip_id => $tcr, splits => [ { participant_id => $uid{erin}, share_percent => 50 } ]);
    create('alice', date => '2024-08-04', amount => 20, transaction_type => 'credit', description => 'Ski hire credit',
           category => 'travel', trip_id => $tcr, splits => [ { participant_id => $uid{erin}, share_percent => 50 } ]);
    is_deeply(owed('alice', $tcr), [ { $uid{erin} => '40.00' }, {} ],
              'trip owed (alice): erin owes 50.00 - 10.00 = 40.00; the credit negates');
    is_deeply(owed('erin', $tcr), [ {}, { $uid{alice} => '40.00' } ],
              'trip owed (erin): owed_by_me alice 40.00; the credit negates');
}

# A manual trip row reconciled into its statement row is one row: hidden,
# it counts neither in the trip's analytics nor in what is owed on it.
{
    my $trip = $rig->post('/api/trips', { name => 'Reconciled trip' }, user => 'dave')->{json}{id};
    my $m = create('dave', date => '2019-06-01', description => 'Hotel', amount => 200, trip_id => $trip,
                   payment_method => 'card', splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
    my $tag = $rig->post('/api/tags', { name => 'hotels' }, user => 'dave')->{json}{id};
    is($rig->post("/api/transactions/$m->{id}/tags", { tag_id => $tag }, user => 'dave')->{status}, 200,
       'the hotel tagged');
    my $s = $rig->post('/api/statements', { bank_name => 'Trip Card', account_type => 'Visa Credit Card',
        period_start => '2019-06-01', period_end => '2019-06-30',
        transactions => [ { date => '2019-06-02', description => 'HOTEL', amount => 200, transaction_type => 'debit' } ] },
        user => 'dave');
    is($s->{status}, 201, "dave creates statement 'Trip Card'") or diag($s->{content});
    my ($srow) = @{ $rig->get("/api/transactions?statement_id=$s->{json}{id}", user => 'dave')->{json}{items} // [] };
    is($rig->post('/api/reconcile', { matches => [ { manual_id => $m->{id}, statement_transaction_id => $srow->{id} } ] },
                  user => 'dave')->{status}, 200, 'the hotel reconciled into its statement row');
    my $a = $rig->get("/api/trips/$trip/analytics", user => 'dave')->{json};
    is(m2($a->{total}), '200.00', 'the trip spent 200.00, not twice that');
    is_deeply([ map { m2($_->{total}) } @{ $a->{by_tag} // [] } ], [ '200.00' ], 'its tag 200.00 too');
    my $o = $rig->get("/api/trips/$trip/owed", user => 'dave')->{json};
    is_deeply([ map { [ $_->{participant_id}, m2($_->{amount}) ] } @{ $o->{owed_to_me} // [] } ],
              [ [ $uid{alice}, '100.00' ] ], 'alice owes 100.00 on it, once');
}

# ==== identity ========================================================================

error_is($rig->get('/api/trips', open => 1), 401, 'unauthenticated', 'GET /api/trips without identity');
error_is($rig->get("/api/trips/$T", open => 1), 401, 'unauthenticated', 'GET /api/trips/{id} without identity');
error_is($rig->request('POST', '/api/trips', open => 1, json => { name => 'x' }), 401, 'unauthenticated',
         'POST /api/trips without identity');
error_is($rig->get("/api/trips/$T/owed", open => 1, user => 'alice'), 401, 'unauthenticated',
         "a client's own Basic header on the open port is not an identity");

done_testing();
