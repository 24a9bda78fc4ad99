#!/usr/bin/perl
# Access and list rules no other test held (a mutation audit broke each of
# these in the code and the suite stayed green):
# - trip participants are derived (SPEC.md Authentication 5 and the
#   Participant resource): a user whose payment is scoped to the trip (the
#   receiving side too), who owns a row of it, or who has a split on one;
# - apply-all never runs a manual_only rule, even one whose conditions
#   match (Behaviour rule 4);
# - a statement row exactly 3 days and 1% away is matched on apply, not
#   only listed (the reconciliation window is inclusive);
# - a reconciled manual row is hidden from every route, bulk and trip
#   assignment included, and nothing written to it shows after an undo;
# - removing a tag from a row the caller cannot see is 403;
# - the query bar's N-M range is the same given high first.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(participant_ok ok_json user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);
participant_ok($rig, alice => $_) for qw(bob carol);

sub trip_ids_of {
    my ($user) = @_;
    return [map { $_->{id} } @{ $rig->get('/api/trips', user => $user)->{json}{items} // [] }];
}
sub manual {
    my ($user, %row) = @_;
    return ok_json($rig->post('/api/transactions', \%row, user => $user), "$user creates $row{description}")->{id};
}

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
    my $a = manual(alice => date => '2026-05-02', amount => 40, description => 'Payer A', trip_id => $trip,
                   splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my $b = manual(bob => date => '2026-05-02', amount => 30, description => 'Payer B');
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
    manual(alice => date => '2026-05-02', amount => 40, description => 'Split only A', trip_id => $trip,
           splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    ok((grep { $_ == $trip } @{ trip_ids_of('bob') }),
       'a trip where bob only has a split is in his trip list');
    ok(!(grep { $_ == $trip } @{ trip_ids_of('carol') }), 'and not in carol\'s');
}

# ---- apply-all passes over a manual_only rule whose conditions match ----------------
{
    my $tag = ok_json($rig->post('/api/tags', { name => 'never' }, user => 'dave'), 'tag')->{id};
    my $row = manual(dave => date => '2026-05-02', amount => 5, description => 'STARBUCKS 1');
    ok_json($rig->post('/api/rules', { name => 'by hand', manual_only => JSON::PP::true(),
        conditions => [{ field => 'description', operator => 'contains', value => 'starbucks' }],
        actions => [{ type => 'add_tag', tag_id => $tag }] }, user => 'dave'), 'manual_only rule');
    my $res = ok_json($rig->post('/api/rules/apply', undef, user => 'dave'), 'apply all');
    is_deeply($res->{runs}, [], 'apply-all ran no rule: the only one is manual_only');
    is_deeply($rig->get("/api/transactions/$row", user => 'dave')->{json}{tags}, [],
              'and the row it matches has no tag');
}

# ---- exactly 3 days and exactly 1% away is inside the window on apply ---------------
for my $case (['2026-06-13', 101, 'after'], ['2026-06-07', 99, 'before']) {
    my ($date, $amount, $side) = @$case;
    my $m = manual(dave => date => '2026-06-10', amount => 100, description => "Edge $side",
                   payment_method => 'card');
    ok_json($rig->post('/api/statements', { bank_name => "Edge $side", account_type => 'Visa',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [{ date => $date, description => "Edge $side", amount => $amount,
                           transaction_type => 'debit' }] }, user => 'dave'), 'statement');
    my ($p) = grep { $_->{transaction}{id} == $m } @{ $rig->get('/api/reconcile', user => 'dave')->{json}{pending} // [] };
    my @c = map { $_->{id} } @{ $p->{candidates} // [] };
    is(scalar @c, 1, "3 days $side and 1% off: listed as the one candidate");
    my $res = $rig->post('/api/reconcile', { matches => [{ manual_id => $m, statement_transaction_id => $c[0] }] },
                         user => 'dave');
    is($res->{status}, 200, "3 days $side and 1% off: the match applies") or diag($res->{content});
}

# ---- a reconciled manual row is hidden from bulk and trip assignment ----------------
{
    my $m = manual(dave => date => '2026-07-10', amount => 50, description => 'Hidden', payment_method => 'card');
    ok_json($rig->post('/api/statements', { bank_name => 'Hidden', account_type => 'Visa',
        period_start => '2026-07-01', period_end => '2026-07-31',
        transactions => [{ date => '2026-07-10', description => 'Hidden', amount => 50,
                           transaction_type => 'debit' }] }, user => 'dave'), 'statement');
    my ($p) = grep { $_->{transaction}{id} == $m } @{ $rig->get('/api/reconcile', user => 'dave')->{json}{pending} // [] };
    ok_json($rig->post('/api/reconcile', { matches => [{ manual_id => $m,
        statement_transaction_id => $p->{candidates}[0]{id} }] }, user => 'dave'), 'reconcile');
    is($rig->get("/api/transactions/$m", user => 'dave')->{status}, 404, 'the reconciled manual row is 404');
    is($rig->post('/api/transactions/bulk', { action => 'categorize', ids => [$m], category => 'dining' },
                  user => 'dave')->{status}, 404, 'bulk on it is 404');
    my $trip = ok_json($rig->post('/api/trips', { name => 'Hidden' }, user => 'dave'), 'trip')->{id};
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [$m] }, user => 'dave')->{status}, 404,
       'putting it on a trip is 404');
    ok($rig->del("/api/reconcile/$m", user => 'dave')->{status} < 300, 'the reconciliation is undone');
    my $row = $rig->get("/api/transactions/$m", user => 'dave')->{json};
    is($row->{category}, undef, 'the manual row back: the refused bulk wrote no category');
    is($row->{trip_id}, undef, 'nor a trip');
}

# ---- removing a tag from a row one cannot see --------------------------------------
{
    my $row = manual(alice => date => '2026-08-02', amount => 7, description => 'Tagged');
    my $tag = ok_json($rig->post('/api/tags', { name => 'mine' }, user => 'alice'), 'tag')->{id};
    is($rig->post("/api/transactions/$row/tags", { tag_id => $tag }, user => 'alice')->{status} < 300, 1, 'alice tags her row');
    my $own = ok_json($rig->post('/api/tags', { name => 'erins' }, user => 'erin'), 'erin\'s tag')->{id};
    is($rig->del("/api/transactions/$row/tags/$own", user => 'erin')->{status}, 403,
       'erin removing her own tag from alice\'s row: 403');
    is($rig->del("/api/transactions/$row/tags/$tag", user => 'erin')->{status}, 403,
       'erin removing alice\'s tag from it: 403');
    is_deeply([map { $_->{id} } @{ $rig->get("/api/transactions/$row", user => 'alice')->{json}{tags} }], [$tag],
              'and the tag is still on the row');
}

# ---- the share override is the owner's: a participant cannot set it ---------------
{
    my $row = manual(alice => date => '2026-08-03', amount => 100, description => 'Shared share',
                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my $res = $rig->patch("/api/transactions/$row", { my_share_percent => 100 }, user => 'bob');
    is($res->{status}, 403, 'bob setting my_share_percent on alice\'s row: 403');
    is($res->{json}{error}{field}, 'my_share_percent', 'naming my_share_percent');
    is($rig->patch("/api/transactions/$row", { my_share_percent => undef }, user => 'bob')->{status}, 403,
       'clearing it too');
    my $mine = sub { sprintf '%.2f', $rig->get("/api/transactions/$row", user => $_[0])->{json}{my_amount} };
    is($mine->('alice'), '50.00', 'alice\'s share of her row is still her split row\'s');
    is($mine->('bob'), '50.00', 'and bob\'s his');
    is($rig->patch("/api/transactions/$row", { category => 'dining' }, user => 'bob')->{status}, 200,
       'other overrides stay open to him');
    is($rig->patch("/api/transactions/$row", { my_share_percent => 60 }, user => 'alice')->{status}, 200,
       'alice may set it');
    is($mine->('alice'), '60.00', 'and it is her share');
}

# ---- the query bar's range is the same either way round -----------------------------
{
    manual(carol => date => '2026-08-01', amount => $_, description => "Range $_") for 5, 10, 15, 20, 25;
    for my $q ('10-20', '20-10') {
        my $list = $rig->get("/api/transactions?q=$q&exclude_categories=", user => 'carol')->{json};
        is_deeply([sort { $a <=> $b } map { $_->{amount} } @{ $list->{items} }], [10, 15, 20],
                  "q=$q is amounts 10 to 20 inclusive");
    }
}

# ---- an id, once given out, is never given to another row (schema 0023) --------------
# The newest row deleted: SQLite would give its id to the next row anybody
# makes (dave's deleted row came back as alice's).  A retried DELETE or a
# kept id must not name someone else's row.
{
    my $gone = manual(dave => date => '2026-06-01', amount => 1, description => 'Newest, then gone');
    is($rig->del("/api/transactions/$gone", user => 'dave')->{status}, 204, 'dave deletes his newest row');
    my $next = manual(alice => date => '2026-06-01', amount => 2, description => 'After the gone one');
    cmp_ok($next, '>', $gone, "alice's next row takes a new id, not dave's deleted one");
    is($rig->del("/api/transactions/$gone", user => 'dave')->{status}, 404, "dave's retried DELETE is a 404");

    my $s = ok_json($rig->post('/api/statements', { bank_name => 'Gone Bank', account_type => 'Visa',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [ { date => '2026-06-02', description => 'gone row', amount => 5, transaction_type => 'debit' } ] },
        user => 'alice'), 'statement')->{id};
    my ($srow) = map { $_->{id} } @{ $rig->get("/api/transactions?statement_id=$s", user => 'alice')->{json}{items} // [] };
    is($rig->del("/api/statements/$s", user => 'alice')->{status}, 204, 'alice deletes her newest statement');
    my $s2 = ok_json($rig->post('/api/statements', { bank_name => 'Next Bank', account_type => 'Visa',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [ { date => '2026-06-03', description => 'next row', amount => 6, transaction_type => 'debit' } ] },
        user => 'carol'), 'statement')->{id};
    cmp_ok($s2, '>', $s, "carol's statement takes a new id, not alice's deleted one");
    my ($srow2) = map { $_->{id} } @{ $rig->get("/api/transactions?statement_id=$s2", user => 'carol')->{json}{items} // [] };
    cmp_ok($srow2, '>', $srow, 'and so does its row');

    my $p = ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob},
        date => '2026-06-04', amount => 3 }, user => 'alice'), 'payment')->{id};
    is($rig->del("/api/payments/$p", user => 'alice')->{status}, 204, 'alice deletes her newest payment');
    my $p2 = ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{carol},
        date => '2026-06-04', amount => 4 }, user => 'alice'), 'payment')->{id};
    cmp_ok($p2, '>', $p, 'the next payment takes a new id');

    my $last = manual(dave => date => '2026-06-05', amount => 1, description => 'Newest before a file');
    $rig->del("/api/transactions/$last", user => 'dave');
    my $ids = ok_json($rig->post('/api/import/csv/commit', { rows => [
        { date => '2026-06-06', description => 'file row 1', amount => 1 },
        { date => '2026-06-07', description => 'file row 2', amount => 2 } ] }, user => 'erin'), 'csv')->{transaction_ids};
    is_deeply($ids, [ $last + 1, $last + 2 ], "a file's rows take the ids after the deleted newest, in order");
}

# Only a trip's owner brings people in.  A participant moving a row shared
# with them into someone else's trip made the row's owner a participant,
# who read all of the trip and could bring in the next person the same
# way; a participant writing the owner's shares on a row of the owner's
# trip would bring in whoever they named (an audit).
{
    participant_ok($rig, dave => $_) for qw(erin alice);
    participant_ok($rig, carol => $_) for qw(erin dave);
    my $trip = ok_json($rig->post('/api/trips', { name => 'Daves walk', notes => 'private' }, user => 'dave'),
                       'dave makes a trip')->{id};
    my $shared = manual(dave => date => '2026-08-01', description => 'Hut fee', amount => 40, trip_id => $trip,
                        splits => [ { participant_id => $uid{erin}, share_percent => 50 } ]);
    manual(dave => date => '2026-08-02', description => 'Daves own boots', amount => 200, trip_id => $trip);
    my $carols = manual(carol => date => '2026-08-03', description => 'Carols taxi', amount => 20,
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
    my $erins = manual(erin => date => '2026-08-04', description => 'Erins snacks', amount => 9);
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $erins ] }, user => 'erin')->{status}, 200,
       'erin moves her own row in (she takes part already)');
    # Her own row split with a contact of hers: the contact takes no part
    # (only splits on the trip owner's rows make participants).
    participant_ok($rig, erin => 'bob');
    my $erins_shared = manual(erin => date => '2026-08-04', description => 'Erins shared taxi', amount => 30,
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
    # the trip: they would take part (a second audit).
    my $outside = manual(dave => date => '2026-08-06', description => 'Daves dinner out', amount => 90,
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
    my $to_dave = manual(carol => date => '2026-08-05', description => 'Carols fuel', amount => 60,
                         splits => [ { participant_id => $uid{dave}, share_percent => 50 } ]);
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $to_dave ] }, user => 'dave')->{status}, 200,
       'dave moves a row carol shares with him into his trip');
    is($rig->get("/api/trips/$trip", user => 'carol')->{status}, 200, 'and so carol takes part');
    is($rig->post("/api/trips/$trip/transactions", { transaction_ids => [ $carols ] }, user => 'erin')->{status}, 200,
       'now erin may move carol\'s other row in');
}

done_testing;
