#!/usr/bin/perl
# /api/reconcile through nginx (SPEC.md section 3 and Behaviour rule 6,
# API.md section 9): the pending list with its candidates (3 days, 1%, same
# direction, the caller's statement rows not already taken), cash and
# credits rows left out, unmatched rows, paging; applying matches (the
# manual row hidden everywhere, its overrides, tags, splits and payment
# method on the statement row, which shows the manual row's Imported date),
# all or nothing; undo (what it gives back to each row: trips, splits,
# tags, payment method, around rule runs); deleting the statement of a
# reconciled row.
#
# Months keep the scenarios apart (a candidate window never reaches another
# month): January the candidate rules, February erin's paging, March and
# April applying and undoing, May a batch of two, July refused batches,
# August sorting by the Imported date, September deleting a statement;
# the months of 2025 hold one undo case each.
#
# Timeline: every manual row whose Imported date is checked is created
# first; a second later the August "middle" statement; a second after that
# every other statement.  So each statement row's own created_at differs
# from its manual row's, and the three August rows have three distinct ones.
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(sleep);
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_id m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

# ---- helpers ---------------------------------------------------------------------
sub cents { int(sprintf('%.0f', $_[0] * 100)) }

# Names for ids, so a failing set reads "s_m3 s_p3", not numbers.
my %name_of;
sub names { [map { $name_of{$_} // "id$_" } @_] }

# A manual row; the name is its description and how failures call it.
sub manual {
    my ($user, $name, %f) = @_;
    my $body = { date => '2026-01-15', amount => 100, description => $name, %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    is($res->{status}, 201, "$user creates manual row $name") or diag($res->{content});
    my $row = $res->{json} // {};
    $name_of{ $row->{id} // 0 } = $name;
    return $row;
}

# A statement of rows [name, date, amount, type, %more]; returns
# (statement, {name => row}).
sub statement {
    my ($user, @rows) = @_;
    my @tx = map { my ($n, $d, $a, $t, %more) = @$_;
                   { description => $n, date => $d, amount => $a, transaction_type => $t // 'debit', %more } } @rows;
    my $res = $rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Visa Credit Card',
                                              period_start => '2026-01-01', period_end => '2026-12-31',
                                              transactions => \@tx }, user => $user);
    is($res->{status}, 201, "$user creates a statement of " . scalar(@rows) . ' rows') or diag($res->{content});
    my $s = $res->{json} // {};
    my $list = $rig->get("/api/transactions?statement_id=$s->{id}&limit=500", user => $user)->{json}{items} // [];
    my %by = map { $_->{description} => $_ } @$list;
    $name_of{ $by{$_}{id} } = $_ for keys %by;
    return ($s, \%by);
}

sub get_row { $rig->get("/api/transactions/$_[1]", user => $_[0]) }
sub row_of { get_row(@_)->{json} // {} }

# Every row id the caller's list shows, transfers included, and its total.
sub list_ids {
    my ($user, $q) = @_;
    my $doc = $rig->get('/api/transactions?exclude_categories=&limit=500' . ($q ? "&$q" : ''), user => $user)->{json};
    return ([map { $_->{id} } @{ $doc->{items} // [] }], $doc->{total});
}
sub listed { my ($user, $id) = @_; scalar grep { $_ == $id } @{ (list_ids($user))[0] } }

sub rec_list {
    my ($user, $q) = @_;
    my $res = $rig->get('/api/reconcile' . ($q ? "?$q" : '?limit=500'), user => $user);
    is($res->{status}, 200, "GET /api/reconcile for $user" . ($q ? "?$q" : '')) or diag($res->{content});
    return $res->{json} // {};
}
# The pending entry of one manual row, or undef.
sub pending_of {
    my ($doc, $id) = @_;
    return (grep { $_->{transaction}{id} == $id } @{ $doc->{pending} // [] })[0];
}
# Sorted candidate ids of a manual row (undef when it is not pending).
sub cands {
    my ($doc, $id) = @_;
    my $p = pending_of($doc, $id) or return undef;
    return [sort { $a <=> $b } map { $_->{id} } @{ $p->{candidates} }];
}
sub pending_ids { [sort { $a <=> $b } map { $_->{transaction}{id} } @{ $_[0]{pending} // [] }] }
sub unmatched_ids { [sort { $a <=> $b } map { $_->{id} } @{ $_[0]{unmatched} // [] }] }
sub in_list { my ($ids, $id) = @_; scalar grep { $_ == $id } @$ids }
sub ids_sorted { [sort { $a <=> $b } @_] }

sub reconcile {
    my ($user, @pairs) = @_;
    return $rig->post('/api/reconcile',
                      { matches => [map { { manual_id => $_->[0], statement_transaction_id => $_->[1] } } @pairs] },
                      user => $user);
}

# What a reconciliation changes on a row, comparable with is_deeply.
sub state_of {
    my ($r) = @_;
    my $o = $r->{overrides} // {};
    return {
        category => $r->{category}, merchant_normalized => $r->{merchant_normalized},
        trip_id => $r->{trip_id}, payment_method => $r->{payment_method},
        overrides => { category => $o->{category}, merchant_normalized => $o->{merchant_normalized},
                       my_share_percent => m2($o->{my_share_percent}), trip_id => $o->{trip_id} },
        tags => [sort map { $_->{name} } @{ $r->{tags} // [] }],
        splits => [map { [$_->{participant_id}, m2($_->{share_percent}), m2($_->{amount}), $_->{settled} ? 1 : 0] }
                   sort { $a->{participant_id} <=> $b->{participant_id} } @{ $r->{splits} // [] }],
    };
}

# alice's net with bob, in cents (> 0: bob owes alice).
sub net_cents {
    my ($user, $other) = @_;
    my $res = $rig->get("/api/participants/$uid{$other}/balance", user => $user);
    is($res->{status}, 200, "$user reads the balance with $other") or diag($res->{content});
    return cents($res->{json}{net} // 0);
}

# One month of GET /api/analytics/monthly: [total, {category => total}].
sub month {
    my ($user, $m, $q) = @_;
    my $doc = $rig->get("/api/analytics/monthly?from=$m&to=$m" . ($q ? "&$q" : ''), user => $user)->{json} // {};
    my $it = (grep { $_->{month} eq $m } @{ $doc->{items} // [] })[0] // {};
    return [m2($it->{total} // 0),
            { map { $_->{category} => m2($_->{total}) } grep { cents($_->{total}) } @{ $it->{categories} // [] } }];
}

# ---- setup: sharing, tags, trips ------------------------------------------------------
participant_ok($rig, 'alice', 'bob');
participant_ok($rig, 'bob', 'alice');
my %tag = map { $_ => $rig->post('/api/tags', { name => $_, color => '#123456' }, user => 'alice')->{json}{id} }
    qw(receipt stmt-old);
ok($tag{receipt} && $tag{'stmt-old'}, 'alice has the tags receipt and stmt-old');
my $bob_tag = $rig->post('/api/tags', { name => 'bobs' }, user => 'bob')->{json}{id};
my %trip = map { $_ => $rig->post('/api/trips', { name => $_ }, user => 'alice')->{json}{id} } qw(Hobart Perth);
ok($trip{Hobart} && $trip{Perth}, 'alice has the trips Hobart and Perth');

# ---- phase 0: manual rows ------------------------------------------------------------------
# January (candidate rules): 100.00 on 2026-01-15, by card, bank transfer
# and an unknown method; one that will take a statement row; a credit; rows
# paid by cash, credits and other; one with no candidate at all.
my $mA      = manual('alice', 'mA card', payment_method => 'card');
my $mA_bt   = manual('alice', 'mA bank_transfer', payment_method => 'bank_transfer');
my $mA_null = manual('alice', 'mA unknown');
my $mA_take = manual('alice', 'mA taker');
my $mA_cr   = manual('alice', 'mA credit', transaction_type => 'credit', payment_method => 'card');
my $mA_cash = manual('alice', 'mA cash', payment_method => 'cash');
my $mA_cred = manual('alice', 'mA credits', payment_method => 'credits');
my $mA_oth  = manual('alice', 'mA other', payment_method => 'other');
my $mA_none = manual('alice', 'mA nothing near', date => '2026-06-01', amount => 12.34, payment_method => 'card');
my $mB      = manual('bob', 'mB bob', payment_method => 'card');

# March: the full copy.  April: onto a statement row that has its own state.
my $m1 = manual('alice', 'Dinner at Luna', date => '2026-03-10', amount => 100, merchant => 'Cafe Luna',
                category => 'Dining', payment_method => 'card', trip_id => $trip{Hobart},
                tag_ids => [$tag{receipt}], splits => [{ participant_id => $uid{bob}, share_percent => 40 }]);
is($rig->patch("/api/transactions/$m1->{id}", { merchant_normalized => 'Luna' }, user => 'alice')->{status}, 200,
   'm1 gets a merchant_normalized override');
$m1 = row_of('alice', $m1->{id});
my $m2 = manual('alice', 'Lunch at Two', date => '2026-04-04', amount => 60, merchant => 'Cafe Two',
                category => 'dining', payment_method => 'bank_transfer', trip_id => $trip{Hobart},
                tag_ids => [$tag{receipt}, $tag{'stmt-old'}],
                splits => [{ participant_id => $uid{bob}, share_percent => 25 }]);
is($rig->patch("/api/transactions/$m2->{id}", { merchant_normalized => 'Two' }, user => 'alice')->{status}, 200,
   'm2 gets a merchant_normalized override');
$m2 = row_of('alice', $m2->{id});

# May: a batch of two, and a third row that wants one of the same.
my $m3a = manual('alice', 'm3a', date => '2026-05-10', amount => 33);
my $m3b = manual('alice', 'm3b', date => '2026-05-20', amount => 44, payment_method => 'card');
my $m3c = manual('alice', 'm3c', date => '2026-05-10', amount => 33);

# July: refused batches.
my $mg     = manual('alice', 'mg good', date => '2026-07-10', amount => 20, payment_method => 'card');
my $mg2    = manual('alice', 'mg2 good', date => '2026-07-11', amount => 20);
my $mx     = manual('alice', 'mx', date => '2026-07-20', amount => 30);
my $mcash  = manual('alice', 'mcash', date => '2026-07-10', amount => 20, payment_method => 'cash');
my $mcred  = manual('alice', 'mcredits', date => '2026-07-10', amount => 20, payment_method => 'credits');
my $mother = manual('alice', 'mother', date => '2026-07-10', amount => 20, payment_method => 'other');
my $mbob   = manual('bob', 'mbob shared', date => '2026-07-10', amount => 20,
                    splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);

# August and September.
my $msort = manual('alice', 'msort', date => '2026-08-10', amount => 15, payment_method => 'card');
is($rig->patch("/api/transactions/$msort->{id}", { my_share_percent => 30 }, user => 'alice')->{status}, 200,
   'msort gets a my_share_percent override');
$msort = row_of('alice', $msort->{id});
my $mG = manual('alice', 'mG', date => '2026-09-10', amount => 45, category => 'dining', payment_method => 'card',
                splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);

# ---- phases 1 and 2: statements ----------------------------------------------------------
sleep 1.2;
my (undef, $X) = statement('alice', ['x middle', '2026-08-20', 99]);
sleep 1.2;
my ($SA, $sA) = statement('alice',
    ['s_same', '2026-01-15', 100], ['s_m3', '2026-01-12', 100], ['s_p3', '2026-01-18', 100],
    ['s_m4', '2026-01-11', 100], ['s_p4', '2026-01-19', 100],
    ['s_hi_in', '2026-01-15', 101], ['s_hi_out', '2026-01-15', 101.01],
    ['s_lo_in', '2026-01-15', 99], ['s_lo_out', '2026-01-15', 98.99],
    ['s_fee', '2026-01-16', 100, 'fee'],
    ['s_credit', '2026-01-15', 100, 'credit'], ['s_refund', '2026-01-14', 100, 'refund'],
    ['s_credit_m4', '2026-01-11', 100, 'credit'], ['s_credit_hi', '2026-01-15', 101.01, 'credit']);
my (undef, $sB) = statement('bob', ['bob same', '2026-01-15', 100], ['bob july', '2026-07-10', 20]);
my (undef, $sR) = statement('alice',
    ['CAFE LUNA SYDNEY', '2026-03-11', 100.5, 'debit', merchant => 'CAFE LUNA'],
    ['WOOLWORTHS 77', '2026-04-05', 60, 'debit', category => 'groceries', merchant => 'WOOLWORTHS'],
    ['r3a', '2026-05-11', 33], ['r3b', '2026-05-19', 44.44],
    ['rg', '2026-07-10', 20], ['rg2', '2026-07-12', 20.1],
    ['rx far', '2026-07-24', 30], ['rx dear', '2026-07-20', 30.31], ['rx credit', '2026-07-20', 30, 'credit']);
my (undef, $sSort) = statement('alice', ['rsort', '2026-08-10', 15]);
my ($SG, $sG) = statement('alice', ['rG', '2026-09-10', 45]);

# ==== GET /api/reconcile: the candidate rules ===========================================
my $doc = rec_list('alice');
my @in_window = map { $sA->{$_}{id} } qw(s_same s_m3 s_p3 s_hi_in s_lo_in s_fee);
is_deeply(names(@{ cands($doc, $mA->{id}) // [] }), names(@{ ids_sorted(@in_window) }),
          'mA (card, debit 100.00): candidates are 3 days either side, 99.00 to 101.00, a fee too');
for my $n (qw(s_m4 s_p4)) {
    ok(!in_list(cands($doc, $mA->{id}) // [], $sA->{$n}{id}), "$n (4 days away) is not a candidate");
}
ok(in_list(cands($doc, $mA->{id}) // [], $sA->{s_m3}{id}) && in_list(cands($doc, $mA->{id}) // [], $sA->{s_p3}{id}),
   '3 days before and 3 days after are candidates');
ok(in_list(cands($doc, $mA->{id}) // [], $sA->{s_hi_in}{id}), '101.00 (exactly 1% over 100.00) is a candidate');
ok(!in_list(cands($doc, $mA->{id}) // [], $sA->{s_hi_out}{id}), '101.01 (just over 1%) is not');
ok(in_list(cands($doc, $mA->{id}) // [], $sA->{s_lo_in}{id}), '99.00 (exactly 1% under) is a candidate');
ok(!in_list(cands($doc, $mA->{id}) // [], $sA->{s_lo_out}{id}), '98.99 (just under 1% under) is not');
ok(!in_list(cands($doc, $mA->{id}) // [], $sA->{s_credit}{id}), 'a credit is not a candidate for a debit');
ok(!in_list(cands($doc, $mA->{id}) // [], $sB->{'bob same'}{id}), "bob's statement row is never alice's candidate");
is_deeply(cands($doc, $mA_bt->{id}), ids_sorted(@in_window), 'bank_transfer: pending with the same candidates');
is_deeply(cands($doc, $mA_null->{id}), ids_sorted(@in_window), 'unknown (null) method: pending with the same candidates');
is_deeply(names(@{ cands($doc, $mA_cr->{id}) // [] }), names(@{ ids_sorted(map { $sA->{$_}{id} } qw(s_credit s_refund)) }),
          'a credit: candidates are the credit and the refund (money in), not the debits; 4 days and 1.01% out');
my $p = pending_of($doc, $mA->{id});
is($p && $p->{transaction}{description}, 'mA card', 'a pending entry carries its manual row');
is_deeply([sort map { $_->{statement_id} // 0 } @{ $p ? $p->{candidates} : [] }], [($SA->{id}) x 6],
          'candidates are statement rows, shown whole');
for my $m ($mA_cash, $mA_cred, $mA_oth) {
    ok(!pending_of($doc, $m->{id}) && !in_list(unmatched_ids($doc), $m->{id}),
       "$m->{description}: listed neither as pending nor as unmatched");
}
ok(!pending_of($doc, $mA_none->{id}), 'a row without candidates is not pending');
ok(in_list(unmatched_ids($doc), $mA_none->{id}), 'it is in unmatched');
ok(!pending_of($doc, $mB->{id}) && !in_list(unmatched_ids($doc), $mB->{id}), "bob's manual row is not in alice's list");
ok(!pending_of($doc, $mbob->{id}) && !in_list(unmatched_ids($doc), $mbob->{id}),
   "nor bob's manual row that alice has a split on");
ok(!grep({ defined $_->{transaction}{statement_id} } @{ $doc->{pending} // [] })
   && !grep({ defined $_->{statement_id} } @{ $doc->{unmatched} // [] }), 'only manual rows are listed');
my $bdoc = rec_list('bob');
is_deeply(cands($bdoc, $mB->{id}), [$sB->{'bob same'}{id}], "bob's row has only bob's statement row as candidate");
ok(!in_list(unmatched_ids($bdoc), $mA->{id}) && !pending_of($bdoc, $mA->{id}), "alice's rows are not in bob's list");

# A statement row already reconciled with another manual row is no candidate.
my $res = reconcile('alice', [$mA_take->{id}, $sA->{s_same}{id}]);
is($res->{status}, 200, 'mA taker is reconciled with s_same') or diag($res->{content});
$doc = rec_list('alice');
is_deeply(cands($doc, $mA->{id}), ids_sorted(grep { $_ != $sA->{s_same}{id} } @in_window),
          's_same is no longer a candidate of mA');
is_deeply(cands($doc, $mA_null->{id}), ids_sorted(grep { $_ != $sA->{s_same}{id} } @in_window), 'nor of mA unknown');
ok(!pending_of($doc, $mA_take->{id}) && !in_list(unmatched_ids($doc), $mA_take->{id}),
   'a reconciled manual row is not listed');
error_is(reconcile('alice', [$mA->{id}, $sA->{s_same}{id}]), 409, 'conflict',
         'matching another manual row with the taken statement row');
is($rig->del("/api/reconcile/$mA_take->{id}", user => 'alice')->{status}, 204, 'undo mA taker');
$doc = rec_list('alice');
is_deeply(cands($doc, $mA->{id}), ids_sorted(@in_window), 's_same is a candidate of mA again');
is_deeply(cands($doc, $mA_take->{id}), ids_sorted(@in_window), 'and mA taker is pending again');

# ==== GET /api/reconcile: paging (erin alone) ==============================================
my $e1 = manual('erin', 'e1', date => '2026-02-03', amount => 10, payment_method => 'card');
my $e2 = manual('erin', 'e2', date => '2026-02-02', amount => 20);
my $e3 = manual('erin', 'e3', date => '2026-02-01', amount => 30, payment_method => 'bank_transfer');
manual('erin', "e $_", date => '2026-02-04', amount => 10, payment_method => $_) for qw(cash credits other);
my (undef, $sE) = statement('erin', ['e stmt', '2026-02-03', 10]);
$doc = rec_list('erin', 'limit=500');
is($doc->{total}, 3, 'total counts the pending and unmatched rows, not cash, credits or other');
is_deeply([map { $_->{transaction}{id} } @{ $doc->{pending} }], [$e1->{id}], 'e1 is pending');
is_deeply(cands($doc, $e1->{id}), [$sE->{'e stmt'}{id}], 'with its one candidate');
is_deeply([map { $_->{id} } @{ $doc->{unmatched} }], [$e2->{id}, $e3->{id}], 'e2 and e3 are unmatched, newest first');
my @pages;
for my $off (0 .. 3) {
    my $d = rec_list('erin', "limit=1&offset=$off");
    is($d->{total}, 3, "limit=1&offset=$off: total 3");
    is($d->{limit}, 1, "limit=1&offset=$off: limit echoed");
    is($d->{offset}, $off, "limit=1&offset=$off: offset echoed");
    push @pages, [(map { $_->{transaction}{id} } @{ $d->{pending} }), map { $_->{id} } @{ $d->{unmatched} }];
}
is_deeply(\@pages, [[$e1->{id}], [$e2->{id}], [$e3->{id}], []], 'one row a page, newest first, then nothing');
$doc = rec_list('erin', 'limit=2&offset=1');
is_deeply([scalar @{ $doc->{pending} }, map { $_->{id} } @{ $doc->{unmatched} }], [0, $e2->{id}, $e3->{id}],
          'limit=2&offset=1: e2 and e3');
# By cursor: the rows after the last one shown, whatever was written or
# reconciled meanwhile (by offset, a row written newer repeated one and
# rows reconciled away skipped others).
sub page_ids { my ($d) = @_; [(map { $_->{transaction}{id} } @{ $d->{pending} }), map { $_->{id} } @{ $d->{unmatched} }] }
{
    my (@seen, $cursor, $d);
    for (1 .. 4) {
        $d = rec_list('erin', 'limit=1' . (defined $cursor ? "&cursor=$cursor" : ''));
        push @seen, @{ page_ids($d) };
        last unless defined($cursor = $d->{next_cursor});
    }
    is_deeply(\@seen, [$e1->{id}, $e2->{id}, $e3->{id}], 'by cursor: each row once, newest first');
    is($d->{next_cursor}, undef, 'and no cursor after the last page');
    $d = rec_list('erin', 'limit=1');
    my $newer = manual('erin', 'e newer', date => '2026-02-05', amount => 40);
    my $next = rec_list('erin', "limit=1&cursor=$d->{next_cursor}");
    is_deeply(page_ids($next), [$e2->{id}], 'a row written newer meanwhile does not move the next page');
    is($rig->del("/api/transactions/$newer->{id}", user => 'erin')->{status}, 204, 'e newer deleted');
    is(reconcile('erin', [$e1->{id}, $sE->{'e stmt'}{id}])->{status}, 200, 'e1 reconciled meanwhile');
    is_deeply(page_ids(rec_list('erin', "limit=1&cursor=$d->{next_cursor}")), [$e2->{id}],
              'nor does a row reconciled away');
    is($rig->del("/api/reconcile/$e1->{id}", user => 'erin')->{status}, 204, 'e1 undone');
}
# (An id of twenty digits wrapped round to one in range and was taken.)
for my $c ('x', '3', '2026-02-30.5', '2026-02-01.0', '2026-02-01.', '2026-02-01.5x', '2026-02-01-5',
           '2026-02-01.18446744073709551617', '2026-02-01.99999999999999999999') {
    error_is($rig->get("/api/reconcile?cursor=$c", user => 'erin'), 400, 'invalid_field', "GET /api/reconcile?cursor=$c",
             'cursor');
}
for my $q ('limit=0', 'limit=501', 'limit=x', 'offset=-1', 'offset=y') {
    my ($f) = $q =~ /^(\w+)/;
    error_is($rig->get("/api/reconcile?$q", user => 'erin'), 400, 'invalid_field', "GET /api/reconcile?$q", $f);
}
is(rec_list('carol')->{total}, 0, 'carol has nothing pending');
is_deeply([rec_list('carol')->{pending}, rec_list('carol')->{unmatched}], [[], []], 'empty pending and unmatched');

# ==== POST /api/reconcile: one match, everything copied (March) ===========================
my $r1 = $sR->{'CAFE LUNA SYDNEY'};
my $r1_before = row_of('alice', $r1->{id});
my $r1_created = $r1_before->{created_at};
isnt($r1_created, $m1->{created_at}, "the statement row's own created_at is not m1's (setup)");
is($r1_before->{reconciled}, JSON::PP::false, 'r1 is not reconciled yet');
is_deeply(cands(rec_list('alice'), $m1->{id}), [$r1->{id}], 'r1 (a day later, 100.50) is the candidate of m1');
my $net0 = net_cents('alice', 'bob');
my ($ids0, $total0) = list_ids('alice');
ok(in_list($ids0, $m1->{id}), 'm1 is listed before');
is_deeply(month('alice', '2026-03'), ['200.50', { dining => '100.00', uncategorised => '100.50' }],
          'March before: m1 (dining 100.00) and r1 (100.50) both count');
ok(listed('bob', $m1->{id}) && !listed('bob', $r1->{id}), 'bob sees m1 (his split), not r1');
is_deeply(month('bob', '2026-03', 'basis=mine'), ['40.00', { dining => '40.00' }],
          "bob's March (basis=mine) before: his 40% of m1");

$res = reconcile('alice', [$m1->{id}, $r1->{id}]);
is($res->{status}, 200, 'POST /api/reconcile applies one match') or diag($res->{content});
is($res->{json}{reconciled}, 1, 'reconciled: 1');
is_deeply([map { $_->{id} } @{ $res->{json}{transactions} // [] }], [$r1->{id}], 'the answer shows the statement row');

# The manual row is gone from every query.
error_is(get_row('alice', $m1->{id}), 404, 'not_found', 'GET the reconciled manual row');
error_is(get_row('bob', $m1->{id}), 404, 'not_found', 'nor can bob, its split participant');
error_is($rig->patch("/api/transactions/$m1->{id}", { category => 'travel' }, user => 'alice'), 404, 'not_found',
         'PATCH the reconciled manual row');
error_is($rig->del("/api/transactions/$m1->{id}", user => 'alice'), 404, 'not_found', 'DELETE the reconciled manual row');
my ($ids1, $total1) = list_ids('alice');
ok(!in_list($ids1, $m1->{id}), 'm1 is not in the list');
is($total1, $total0 - 1, 'the list total is one less');
ok(!in_list([list_ids('alice', 'bank_names=Manual')]->[0], $m1->{id}), 'nor among the Manual rows');
ok(!in_list([list_ids('alice', 'search=Luna')]->[0], $m1->{id}), 'nor in a search for it');
ok(!listed('bob', $m1->{id}), "nor in bob's list");
ok(listed('bob', $r1->{id}), "bob now sees r1, which carries his split");
is_deeply(month('alice', '2026-03'), ['100.50', { dining => '100.50' }],
          "March after: only r1, now dining; m1's spend is not counted");
is_deeply(month('bob', '2026-03', 'basis=mine'), ['40.20', { dining => '40.20' }],
          "bob's March (basis=mine) after: his 40% of r1 only");

# The statement row carries the manual row's state.
my $r1_after = row_of('alice', $r1->{id});
is_deeply(state_of($r1_after), {
    category => 'dining', merchant_normalized => 'Luna', trip_id => $trip{Hobart}, payment_method => 'card',
    overrides => { category => 'dining', merchant_normalized => 'Luna', my_share_percent => undef,
                   trip_id => $trip{Hobart} },
    tags => ['receipt'],
    splits => [sort { $a->[0] <=> $b->[0] } [$uid{bob}, '40.00', '40.20', 0], [$uid{alice}, '60.00', '60.30', 0]],
}, "r1 has m1's category, merchant override, trip, tag, splits (apportioned on 100.50) and payment method");
is(m2($r1_after->{amount}), '100.50', "the statement row keeps its own amount");
is($r1_after->{date}, '2026-03-11', 'and its own date');
is($r1_after->{created_at}, $m1->{created_at}, "its created_at (Imported date) is now m1's");
is($r1_after->{reconciled}, JSON::PP::true, 'reconciled is true');
is_deeply([map { $_->{created_at} } grep { $_->{id} == $r1->{id} } @{ $rig->get('/api/transactions?search=LUNA',
          user => 'alice')->{json}{items} // [] }], [$m1->{created_at}], 'the list shows the same Imported date');
is(row_of('bob', $r1->{id})->{created_at}, $m1->{created_at}, 'bob sees the same Imported date');

# Balances count the split once: 40% of 100.50 instead of 40% of 100.00.
is(net_cents('alice', 'bob'), $net0 - 4000 + 4020, 'alice-bob net: m1 share 40.00 replaced by r1 share 40.20');
is(net_cents('bob', 'alice'), -($net0 - 4000 + 4020), "and bob's side the same");

# ==== onto a statement row with its own overrides, tags and splits (April) =================
my $r2 = $sR->{'WOOLWORTHS 77'};
is($rig->patch("/api/transactions/$r2->{id}", { category => 'home', merchant_normalized => 'Woolies',
                                                trip_id => $trip{Perth}, payment_method => 'other' },
               user => 'alice')->{status}, 200, 'r2 gets its own overrides and payment method');
$res = $rig->post("/api/transactions/$r2->{id}/tags", { tag_id => $tag{'stmt-old'} }, user => 'alice');
ok($res->{status} == 200 || $res->{status} == 201, 'r2 is tagged stmt-old') or diag($res->{content});
is($rig->post("/api/transactions/$r2->{id}/splits", [{ participant_id => $uid{bob}, share_percent => 50 }],
              user => 'alice')->{status}, 200, 'r2 is split 50/50 with bob');
is($rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::true }, user => 'alice')->{status},
   200, "and bob's row settled (the owner's own row is never marked)");
$res = $rig->post("/api/transactions/$r2->{id}/tags", { tag_id => $bob_tag }, user => 'bob');
ok($res->{status} == 200 || $res->{status} == 201, 'bob tags r2 with his own tag (he is a participant)')
    or diag($res->{content});
my $r2_before = row_of('alice', $r2->{id});
is_deeply(state_of($r2_before), {
    category => 'home', merchant_normalized => 'Woolies', trip_id => $trip{Perth}, payment_method => 'other',
    overrides => { category => 'home', merchant_normalized => 'Woolies', my_share_percent => undef,
                   trip_id => $trip{Perth} },
    tags => ['stmt-old'],
    splits => [sort { $a->[0] <=> $b->[0] } [$uid{bob}, '50.00', '30.00', 1], [$uid{alice}, '50.00', '30.00', 0]],
}, 'r2 before the match (setup)');
my $r2_bob_before = state_of(row_of('bob', $r2->{id}));
is_deeply($r2_bob_before->{tags}, ['bobs'], 'bob sees his own tag on r2');
$net0 = net_cents('alice', 'bob');
$res = reconcile('alice', [$m2->{id}, $r2->{id}]);
is($res->{status}, 200, 'm2 is matched with r2') or diag($res->{content});
my $r2_after = state_of(row_of('alice', $r2->{id}));
is_deeply([@$r2_after{qw(category merchant_normalized trip_id)}], ['dining', 'Two', $trip{Hobart}],
          "the manual row's category, merchant override and trip win over r2's");
is_deeply($r2_after->{tags}, ['receipt', 'stmt-old'], "m2's tags are added to r2's");
is_deeply($r2_after->{splits},
          [sort { $a->[0] <=> $b->[0] } [$uid{bob}, '25.00', '15.00', 0], [$uid{alice}, '75.00', '45.00', 0]],
          "m2's splits replace r2's");
is(net_cents('alice', 'bob'), $net0 - 3000 - 1500 + 1500, 'net: r2 30.00 + m2 15.00 become r2 15.00');
# Tags are private: bob's tag put on r2 while it is reconciled is his, and
# alice's undo (which puts her tags back as they were) leaves it alone.
my $bob_later = $rig->post('/api/tags', { name => 'bobs-later' }, user => 'bob')->{json}{id};
$res = $rig->post("/api/transactions/$r2->{id}/tags", { tag_id => $bob_later }, user => 'bob');
ok($res->{status} == 200 || $res->{status} == 201, 'bob tags the reconciled r2 with another tag of his')
    or diag($res->{content});

# ==== DELETE /api/reconcile/{manual_id}: undo ==================================================
error_is($rig->del("/api/reconcile/$m2->{id}", user => 'bob'), 403, 'forbidden',
         "bob (a split participant) cannot undo alice's reconciliation");
error_is($rig->del("/api/reconcile/$m2->{id}", user => 'carol'), 403, 'forbidden', 'nor can carol');
error_is($rig->del('/api/reconcile/999999999', user => 'alice'), 404, 'not_found', 'undo a missing row');
error_is($rig->del("/api/reconcile/$mA->{id}", user => 'alice'), 409, 'conflict', 'undo a row never reconciled');
error_is($rig->del("/api/reconcile/$r2->{id}", user => 'alice'), 409, 'conflict', 'undo naming the statement row');
error_is($rig->del("/api/reconcile/$m2->{id}", open => 1), 401, 'unauthenticated', 'undo without identity');
ok(!get_row('alice', $m2->{id})->{json}{id}, 'none of them undid it');

$net0 = net_cents('alice', 'bob');
is($rig->del("/api/reconcile/$m2->{id}", user => 'alice')->{status}, 204, 'alice undoes m2');
is_deeply(state_of(row_of('alice', $r2->{id})), state_of($r2_before),
          "r2's overrides, payment method, tags (stmt-old kept, receipt gone), splits and settled flags are back");
is_deeply(state_of(row_of('bob', $r2->{id}))->{tags}, ['bobs', 'bobs-later'],
          "bob's own tags on r2 stay, the one he added after the match too");
is(row_of('alice', $r2->{id})->{reconciled}, JSON::PP::false, 'r2 is no longer reconciled');
is(row_of('alice', $r2->{id})->{created_at}, $r2_before->{created_at}, 'and shows its own created_at again');
is_deeply(state_of(row_of('alice', $m2->{id})), state_of($m2), 'm2 is visible again, as it was');
ok(listed('alice', $m2->{id}), 'm2 is in the list again');
is(net_cents('alice', 'bob'), $net0 + 3000 + 1500 - 1500, 'net: back to r2 30.00 + m2 15.00');
error_is($rig->del("/api/reconcile/$m2->{id}", user => 'alice'), 409, 'conflict', 'undo again');
is_deeply(cands(rec_list('alice'), $m2->{id}), [$r2->{id}], 'm2 is pending again with r2 as its candidate');

# Undo the March match: r1 exactly as before, m1 back everywhere.
$net0 = net_cents('alice', 'bob');
is($rig->del("/api/reconcile/$m1->{id}", user => 'alice')->{status}, 204, 'alice undoes m1');
is_deeply(state_of(row_of('alice', $r1->{id})), state_of($r1_before),
          'r1 has no overrides, tags, splits or payment method again');
is(row_of('alice', $r1->{id})->{created_at}, $r1_created, 'r1 shows its own created_at again');
is(row_of('alice', $r1->{id})->{reconciled}, JSON::PP::false, 'r1 is not reconciled');
is_deeply(state_of(row_of('alice', $m1->{id})), state_of($m1), 'm1 is back, unchanged');
is(row_of('alice', $m1->{id})->{reconciled}, JSON::PP::false, 'm1 is not reconciled');
is((list_ids('alice'))[1], $total0, 'the list total is back');
ok(listed('bob', $m1->{id}) && !listed('bob', $r1->{id}), 'bob sees m1 again, and not r1');
is_deeply(month('alice', '2026-03'), ['200.50', { dining => '100.00', uncategorised => '100.50' }],
          'March spend is back to both rows');
is(net_cents('alice', 'bob'), $net0 - 4020 + 4000, 'net: back to m1 40.00');
error_is($rig->del("/api/reconcile/$m1->{id}", user => 'alice'), 409, 'conflict', 'undo m1 again');

# After undo the statement row can be matched again.
$res = reconcile('alice', [$m1->{id}, $r1->{id}]);
is($res->{status}, 200, 'm1 and r1 are matched again') or diag($res->{content});
is_deeply(state_of(row_of('alice', $r1->{id})), state_of($r1_after), 'r1 carries the same copy as the first time');
is(row_of('alice', $r1->{id})->{created_at}, $m1->{created_at}, "and m1's Imported date");
error_is(get_row('alice', $m1->{id}), 404, 'not_found', 'm1 is hidden again');
is(net_cents('alice', 'bob'), $net0, 'net as after the first match');

# ==== several matches at once (May) ============================================================
is_deeply(cands(rec_list('alice'), $m3c->{id}), [$sR->{r3a}{id}], 'm3c has r3a as its candidate before');
is_deeply(cands(rec_list('alice'), $m3b->{id}), [$sR->{r3b}{id}], 'm3b: r3b (44.44, exactly 1% over 44.00)');
$res = reconcile('alice', [$m3a->{id}, $sR->{r3a}{id}], [$m3b->{id}, $sR->{r3b}{id}]);
is($res->{status}, 200, 'two matches in one request') or diag($res->{content});
is($res->{json}{reconciled}, 2, 'reconciled: 2');
is_deeply(ids_sorted(map { $_->{id} } @{ $res->{json}{transactions} // [] }),
          ids_sorted($sR->{r3a}{id}, $sR->{r3b}{id}), 'the answer shows both statement rows');
for my $pair ([$m3a, 'r3a'], [$m3b, 'r3b']) {
    error_is(get_row('alice', $pair->[0]{id}), 404, 'not_found', "$pair->[0]{description} is hidden");
    my $r = row_of('alice', $sR->{ $pair->[1] }{id});
    is_deeply([$r->{reconciled}, $r->{created_at}], [JSON::PP::true, $pair->[0]{created_at}],
              "$pair->[1] is reconciled and shows $pair->[0]{description}'s Imported date");
}
is(row_of('alice', $sR->{r3b}{id})->{payment_method}, 'card', "r3b took m3b's payment method (card)");
is(row_of('alice', $sR->{r3a}{id})->{payment_method}, undef, 'r3a: m3a had none, none is set');
$doc = rec_list('alice');
ok(!pending_of($doc, $m3c->{id}) && in_list(unmatched_ids($doc), $m3c->{id}),
   'm3c lost its only candidate (r3a is taken): now unmatched');

# ==== all or nothing: refused batches (July) ===================================================
my %r = map { $_ => $sR->{$_}{id} } ('rg', 'rg2', 'rx far', 'rx dear', 'rx credit');
is_deeply(cands(rec_list('alice'), $mg->{id}), ids_sorted(@r{qw(rg rg2)}), 'mg has rg and rg2 as candidates');
my $good = [$mg->{id}, $r{rg}];
my $good2 = [$mg2->{id}, $r{rg2}];
my $rg_before = state_of(row_of('alice', $r{rg}));
my @bad = (
    [400, 'invalid_field', 'a statement row 4 days away', [$mx->{id}, $r{'rx far'}]],
    [400, 'invalid_field', 'a statement row over 1% away', [$mx->{id}, $r{'rx dear'}]],
    [400, 'invalid_field', 'a credit for a debit', [$mx->{id}, $r{'rx credit'}]],
    [409, 'conflict', 'a manual row already reconciled', [$m3a->{id}, $r{rg2}]],
    [409, 'conflict', 'a statement row already reconciled with another row', [$m3c->{id}, $sR->{r3a}{id}]],
    [403, 'forbidden', "bob's manual row (alice has a split on it)", [$mbob->{id}, $r{rg2}]],
    [403, 'forbidden', "bob's statement row", [$mg2->{id}, $sB->{'bob july'}{id}]],
    [400, 'invalid_field', 'a cash row', [$mcash->{id}, $r{rg2}]],
    [400, 'invalid_field', 'a credits row', [$mcred->{id}, $r{rg2}]],
    [400, 'invalid_field', 'an other row (the list never offers one)', [$mother->{id}, $r{rg2}]],
    [400, 'invalid_field', 'a statement row as manual_id', [$r{rg2}, $r{rg2}]],
    [400, 'invalid_field', 'a manual row as statement_transaction_id', [$mg2->{id}, $mx->{id}]],
    [400, 'invalid_field', 'the same statement row twice', [$mg2->{id}, $r{rg}]],
    [400, 'invalid_field', 'the same manual row twice', [$mg->{id}, $r{rg2}]],
    [404, 'not_found', 'an unknown manual_id', [999999999, $r{rg2}]],
    [404, 'not_found', 'an unknown statement_transaction_id', [$mg2->{id}, 999999999]],
);
for my $b (@bad) {
    my ($status, $code, $what, $pair) = @$b;
    error_is(reconcile('alice', $good, $pair), $status, $code, "a good match with $what");
    my $mrow = get_row('alice', $mg->{id});
    ok($mrow->{status} == 200 && $mrow->{json}{reconciled} == JSON::PP::false,
       "after $what: mg is still visible and unreconciled");
    is_deeply([row_of('alice', $r{rg})->{reconciled}, state_of(row_of('alice', $r{rg}))], [JSON::PP::false, $rg_before],
              "after $what: rg is untouched");
}
# Two good matches and then a bad one: neither good one is applied.
error_is(reconcile('alice', $good, $good2, [$mx->{id}, $r{'rx far'}]), 400, 'invalid_field',
         'two good matches and a bad third');
is_deeply([map { get_row('alice', $_)->{status} } $mg->{id}, $mg2->{id}], [200, 200], 'mg and mg2 are both still visible');
# The bad one first changes nothing either.
error_is(reconcile('alice', [$mbob->{id}, $r{rg2}], $good), 403, 'forbidden', 'a bad match before a good one');
is(get_row('alice', $mg->{id})->{status}, 200, 'mg is still visible');
# Neither is bob allowed to use alice's rows.
error_is(reconcile('bob', [$mg->{id}, $sB->{'bob july'}{id}]), 403, 'forbidden', "bob names alice's manual row");
error_is(reconcile('bob', [$mbob->{id}, $r{rg}]), 403, 'forbidden', "bob names alice's statement row");
$doc = rec_list('alice');
is_deeply(cands($doc, $mg->{id}), ids_sorted(@r{qw(rg rg2)}), 'mg is still pending with both candidates');
is_deeply(cands($doc, $mg2->{id}), ids_sorted(@r{qw(rg rg2)}), 'mg2 too');
$res = reconcile('alice', $good, $good2);
is($res->{status}, 200, 'the two good matches alone apply') or diag($res->{content});
is_deeply([map { get_row('alice', $_)->{status} } $mg->{id}, $mg2->{id}], [404, 404], 'mg and mg2 are hidden');

# ==== bad bodies: 400, nothing applied =========================================================
for my $case ([{}, 'matches missing'], [{ matches => undef }, 'matches null'],
              [{ matches => 'x' }, 'matches a string'], [{ matches => { manual_id => $mx->{id} } }, 'matches an object'],
              [{ matches => [] }, 'matches empty']) {
    error_is($rig->post('/api/reconcile', $case->[0], user => 'alice'), 400, 'invalid_field', $case->[1], 'matches');
}
for my $case ([[5], 'an entry that is a number'], [['x'], 'an entry that is a string'], [[undef], 'a null entry'],
              [[[$mx->{id}, $r{rg}]], 'an entry that is an array']) {
    my $res = $rig->post('/api/reconcile', { matches => $case->[0] }, user => 'alice');
    error_is($res, 400, 'invalid_field', $case->[1]);
    like($res->{json}{error}{field} // '', qr/^matches/, "$case->[1]: the error names matches");
}
# A free pair of January: any bad entry beside it must leave it unapplied.
my $free_m = $mA->{id};
my $free_s = $sA->{s_m3}{id};
for my $case ([{ manual_id => "$free_m", statement_transaction_id => $free_s }, 'manual_id', 'a string manual_id'],
              [{ manual_id => $free_m, statement_transaction_id => "$free_s" }, 'statement_transaction_id',
               'a string statement_transaction_id'],
              [{ manual_id => 1.5, statement_transaction_id => $free_s }, 'manual_id', 'a fractional manual_id'],
              [{ manual_id => 0, statement_transaction_id => $free_s }, 'manual_id', 'manual_id 0'],
              [{ manual_id => -3, statement_transaction_id => $free_s }, 'manual_id', 'a negative manual_id'],
              [{ manual_id => undef, statement_transaction_id => $free_s }, 'manual_id', 'a null manual_id'],
              [{ manual_id => JSON::PP::true, statement_transaction_id => $free_s }, 'manual_id', 'a boolean manual_id'],
              [{ statement_transaction_id => $free_s }, 'manual_id', 'no manual_id'],
              [{ manual_id => $free_m }, 'statement_transaction_id', 'no statement_transaction_id'],
              [{ manual_id => [$free_m], statement_transaction_id => $free_s }, 'manual_id', 'an array manual_id']) {
    my $res = $rig->post('/api/reconcile', { matches => [$case->[0]] }, user => 'alice');
    error_is($res, 400, 'invalid_field', $case->[2]);
    like($res->{json}{error}{field} // '', qr/\Q$case->[1]\E/, "$case->[2]: the error names $case->[1]");
}
# A good match beside a bad entry is not applied.
error_is($rig->post('/api/reconcile', { matches => [{ manual_id => $free_m, statement_transaction_id => $free_s },
                                                     { manual_id => 'x' }] }, user => 'alice'),
         400, 'invalid_field', 'a good match, then an entry with a bad id');
error_is($rig->post('/api/reconcile', { matches => [{ manual_id => $free_m, statement_transaction_id => $free_s }, 7] },
                    user => 'alice'), 400, 'invalid_field', 'a good match, then an entry that is not an object');
error_is($rig->request('POST', '/api/reconcile', user => 'alice', body => '[1]', type => 'application/json'),
         400, 'invalid_json', 'a body that is an array');
error_is($rig->request('POST', '/api/reconcile', user => 'alice', body => '{"matches": [', type => 'application/json'),
         400, 'invalid_json', 'malformed JSON');
is(get_row('alice', $mA->{id})->{json}{reconciled}, JSON::PP::false, 'mA is still visible and unreconciled');
is(row_of('alice', $sA->{s_m3}{id})->{reconciled}, JSON::PP::false, 's_m3 is not reconciled');

# ==== the Imported date sorts as shown (August) =================================================
my $rsort = $sSort->{rsort}{id};
my $xmid = $X->{'x middle'}{id};
ok($msort->{created_at} lt row_of('alice', $xmid)->{created_at}
   && row_of('alice', $xmid)->{created_at} lt row_of('alice', $rsort)->{created_at},
   'setup: msort, then x middle, then rsort were imported a second apart');
is(reconcile('alice', [$msort->{id}, $rsort])->{status}, 200, 'msort is matched with rsort');
is(row_of('alice', $rsort)->{created_at}, $msort->{created_at}, "rsort shows msort's Imported date");
is_deeply([map { m2($_) } @{ row_of('alice', $rsort) }{qw(my_share_pct my_amount)},
           row_of('alice', $rsort)->{overrides}{my_share_percent}], ['30.00', '4.50', '30.00'],
          "rsort took msort's my_share_percent override (30% of 15.00)");
my $q = 'date_from=2026-08-01&date_to=2026-08-31&sort=created_at';
my ($asc) = list_ids('alice', "$q&order=asc");
is_deeply(names(@$asc), names($rsort, $xmid), 'sort=created_at&order=asc follows the Imported date shown');
my ($desc) = list_ids('alice', "$q&order=desc");
is_deeply(names(@$desc), names($xmid, $rsort), 'sort=created_at&order=desc too');

# ==== deleting the statement of a reconciled row (September) ====================================
my $rG = $sG->{rG}{id};
is_deeply(month('alice', '2026-09'), ['90.00', { dining => '45.00', uncategorised => '45.00' }],
          'September before: mG and rG');
$net0 = net_cents('alice', 'bob');
is(reconcile('alice', [$mG->{id}, $rG])->{status}, 200, 'mG is matched with rG');
is_deeply(month('alice', '2026-09'), ['45.00', { dining => '45.00' }], 'September: rG only, as dining');
is(net_cents('alice', 'bob'), $net0, 'net unchanged (the same 22.50 share, counted once)');
is($rig->del("/api/statements/$SG->{id}", user => 'alice')->{status}, 204, "rG's statement is deleted");
my $back = get_row('alice', $mG->{id});
is($back->{status}, 200, 'mG is visible again');
is($back->{json}{reconciled}, JSON::PP::false, 'and not reconciled');
is_deeply(state_of($back->{json}), state_of($mG), 'with its own state');
ok(listed('alice', $mG->{id}), 'mG is in the list');
ok(listed('bob', $mG->{id}), "and in bob's");
$doc = rec_list('alice');
ok(in_list(unmatched_ids($doc), $mG->{id}), 'mG is listed again (unmatched: its candidate is gone)');
is_deeply(month('alice', '2026-09'), ['45.00', { dining => '45.00' }], "September: mG's spend counts again");
is(net_cents('alice', 'bob'), $net0, "net: mG's 22.50 share counts again");
error_is($rig->del("/api/reconcile/$mG->{id}", user => 'alice'), 409, 'conflict', 'undoing it now');

# ==== amounts compare in the home currency =======================================================
# carol's manual USD 50.00 row cost AUD 75.55: the card's AUD 75.55 row the
# next day is it (0% apart); an AUD 50.00 purchase the same day is not
# (34% apart), though its raw amount equals the manual row's.
{
    my $usd = manual('carol', 'USD gizmo', date => '2026-05-03', amount => 50, currency => 'USD',
                     amount_aud => 75.55, exchange_rate_to_aud => 1.511);
    my (undef, $cr) = statement('carol', ['US MERCHANT', '2026-05-04', 75.55], ['LOCAL AUD 50', '2026-05-03', 50]);
    is_deeply(cands(rec_list('carol'), $usd->{id}), [ $cr->{'US MERCHANT'}{id} ],
              'the candidate is the AUD 75.55 row, not the AUD 50.00 one');
    error_is(reconcile('carol', [ $usd->{id}, $cr->{'LOCAL AUD 50'}{id} ]), 400, 'invalid_field',
             'matching it with the AUD 50.00 row', 'statement_transaction_id');
    is(reconcile('carol', [ $usd->{id}, $cr->{'US MERCHANT'}{id} ])->{status}, 200,
       'matching it with the AUD 75.55 row');
}

# ==== the type: the manual row's where the bank gave only the direction (October) ==============
# A manual refund matched with the bank's credit stays a refund (spend
# 100.00 - 30.00); a manual fee matched with the bank's debit is a fee
# (in the fees report); the bank's own fee matched with a manual debit
# stays a fee.  Undoing gives the statement row its own type back.
{
    my $ref = manual('alice', 'shoe return', date => '2026-10-12', amount => 30, category => 'shopping',
                     payment_method => 'card');
    is($rig->patch("/api/transactions/$ref->{id}", { transaction_type => 'refund' }, user => 'alice')->{status},
       200, 'the manual row is corrected to a refund');
    my $fee = manual('alice', 'account fee', date => '2026-10-20', amount => 12, category => 'fees',
                     transaction_type => 'fee', payment_method => 'bank_transfer');
    my $deb = manual('alice', 'plain debit', date => '2026-10-25', amount => 25, payment_method => 'card');
    my (undef, $o) = statement('alice', ['SHOEBIZ CR', '2026-10-12', 30, 'credit', category => 'shopping'],
                               ['GROCER', '2026-10-13', 100, 'debit', category => 'shopping'],
                               ['MONTHLY ACCT', '2026-10-20', 12, 'debit', category => 'fees'],
                               ['BANK FEE', '2026-10-25', 25, 'fee', category => 'fees']);
    my %id = map { $_ => $o->{$_}{id} } keys %$o;
    my $fees = sub { m2($rig->get('/api/analytics/fees?from=2026-10&to=2026-10', user => 'alice')->{json}{total_fees}) };
    is_deeply(month('alice', '2026-10'), ['144.00', { shopping => '70.00', fees => '49.00', uncategorised => '25.00' }],
              'October before: shopping 100.00 - the manual refund 30.00 (the credit is no spend),'
              . ' fees 12.00 twice and 25.00, the plain debit 25.00');
    is($fees->(), '37.00', 'fees before: the manual fee 12.00 and the bank fee 25.00');
    is(reconcile('alice', [$ref->{id}, $id{'SHOEBIZ CR'}], [$fee->{id}, $id{'MONTHLY ACCT'}],
                 [$deb->{id}, $id{'BANK FEE'}])->{status}, 200, 'the three are matched');
    is_deeply([map { row_of('alice', $id{$_})->{transaction_type} } 'SHOEBIZ CR', 'MONTHLY ACCT', 'BANK FEE'],
              [qw(refund fee fee)], "the credit takes the refund, the debit the fee; the bank's fee stays");
    is_deeply(month('alice', '2026-10'), ['107.00', { shopping => '70.00', fees => '37.00' }],
              'October after: the same spend, each purchase once');
    is($fees->(), '37.00', 'fees after: the matched fee and the bank fee');
    my (undef, $n) = list_ids('alice', 'date_from=2026-10-01&date_to=2026-10-31&transaction_types=refund');
    is($n, 1, 'the list counts one refund in October');
    is($rig->del("/api/reconcile/$fee->{id}", user => 'alice')->{status}, 204, 'the fee match is undone');
    is(row_of('alice', $id{'MONTHLY ACCT'})->{transaction_type}, 'debit', 'the bank row is a debit again');
    is(row_of('alice', $fee->{id})->{transaction_type}, 'fee', 'the manual row is still a fee');
    is($fees->(), '37.00', 'fees: the manual fee counts again, the bank debit does not');
}

# ==== what a row's other parties did while it was matched (November) ===========================
# bob takes part in alice's manual row.  While it is matched he settles his
# part and tags the statement row, the only row he can see; alice's undo
# puts her statement row back as it was, but bob's acts are his: his
# settle is on the manual row's split, his tags go with it, and none of
# them stays on the statement row he no longer takes part in.
{
    my $bob_note = $rig->post('/api/tags', { name => 'bob-note' }, user => 'bob')->{json}{id};
    my $bob_paid = $rig->post('/api/tags', { name => 'bob-paid' }, user => 'bob')->{json}{id};
    my $mn = manual('alice', 'november dinner', date => '2026-11-10', amount => 100, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 40 }]);
    $res = $rig->post("/api/transactions/$mn->{id}/tags", { tag_id => $bob_note }, user => 'bob');
    ok($res->{status} == 200 || $res->{status} == 201, 'bob tags the manual row') or diag($res->{content});
    my (undef, $nv) = statement('alice', ['NOVEMBER DINNER', '2026-11-11', 100]);
    my $rn = $nv->{'NOVEMBER DINNER'}{id};
    is(reconcile('alice', [$mn->{id}, $rn])->{status}, 200, 'matched');
    is_deeply(state_of(row_of('bob', $rn))->{tags}, ['bob-note'], "bob's tag came with the match");
    is($rig->post("/api/transactions/$rn/splits/settle", { settled => JSON::PP::true }, user => 'bob')->{status},
       200, 'bob settles his part of the statement row');
    $res = $rig->post("/api/transactions/$rn/tags", { tag_id => $bob_paid }, user => 'bob');
    ok($res->{status} == 200 || $res->{status} == 201, 'and tags it') or diag($res->{content});
    is($rig->del("/api/reconcile/$mn->{id}", user => 'alice')->{status}, 204, 'alice undoes the match');
    my $back = state_of(row_of('bob', $mn->{id}));
    is_deeply([map { $_->[3] } grep { $_->[0] == $uid{bob} } @{ $back->{splits} }], [1],
              "bob's settle is on the manual row's split");
    is_deeply($back->{tags}, ['bob-note', 'bob-paid'], 'his tags are on the manual row');
    is($rig->post("/api/transactions/$rn/splits", [{ participant_id => $uid{bob}, share_percent => 30 }],
                  user => 'alice')->{status}, 200, 'alice later splits the statement row with bob');
    is_deeply(state_of(row_of('bob', $rn))->{tags}, [],
              'bob finds none of his tags on it (the match copied one, he added one: both went back)');
}

# ==== more of the other parties' acts, and a tag made a trip while matched (December) ==========
# The splits stay with the row they came from, as they are: a split is a
# debt between people, whoever changed it while matched (here the owner
# adds carol, carol settles, the owner marks bob's part settled).  The
# statement row takes back its own split.  A participant's tag they took
# off the matched row stays off.
{
    participant_ok($rig, 'alice', 'carol');
    participant_ok($rig, 'carol', 'alice');
    my $bob_x = $rig->post('/api/tags', { name => 'bob-x' }, user => 'bob')->{json}{id};
    my $md = manual('alice', 'december show', date => '2026-12-10', amount => 80, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    $res = $rig->post("/api/transactions/$md->{id}/tags", { tag_id => $bob_x }, user => 'bob');
    ok($res->{status} == 200 || $res->{status} == 201, 'bob tags the manual row') or diag($res->{content});
    my (undef, $dv) = statement('alice', ['DECEMBER SHOW', '2026-12-10', 80]);
    my $rd = $dv->{'DECEMBER SHOW'}{id};
    is($rig->post("/api/transactions/$rd/splits", [{ participant_id => $uid{carol}, share_percent => 30 }],
                  user => 'alice')->{status}, 200, 'the bank row is split with carol before the match');
    is(reconcile('alice', [$md->{id}, $rd])->{status}, 200, 'matched (bob\'s split replaces carol\'s)');
    is($rig->post("/api/transactions/$rd/splits", [{ participant_id => $uid{bob}, share_percent => 50 },
                                                  { participant_id => $uid{carol}, share_percent => 30 }],
                  user => 'alice')->{status}, 200, 'alice adds carol back while matched');
    is($rig->post("/api/transactions/$rd/splits/settle", { settled => JSON::PP::true }, user => 'carol')->{status},
       200, 'carol settles her part');
    is($rig->post("/api/transactions/$rd/splits/settle", { settled => JSON::PP::true }, user => 'alice')->{status},
       200, "alice marks bob's part settled");
    is($rig->del("/api/transactions/$rd/tags/$bob_x", user => 'bob')->{status}, 204, 'bob takes his tag off');
    is($rig->del("/api/reconcile/$md->{id}", user => 'alice')->{status}, 204, 'alice undoes the match');
    my %settled_of = map { my $r = $_; ($r => { map { $_->[0] => $_->[3] } @{ state_of(row_of('alice', $r))->{splits} } }) }
        $md->{id}, $rd;
    is_deeply($settled_of{ $md->{id} }, { $uid{alice} => 0, $uid{bob} => 1, $uid{carol} => 1 },
              'the manual row takes the split as it was left: carol in it and settled, bob settled');
    is_deeply($settled_of{$rd}, { $uid{alice} => 0, $uid{carol} => 0 },
              'the statement row has its own split back');
    is_deeply(state_of(row_of('bob', $md->{id}))->{tags}, [], 'the tag bob took off stays off');

    # A participant who clears the split of the matched row (as a party
    # may) owes nothing on it after the undo either.
    my $mc = manual('alice', 'december taxi', date => '2026-12-14', amount => 40, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 25 }]);
    my (undef, $cv) = statement('alice', ['DECEMBER TAXI', '2026-12-14', 40]);
    my $rc_ = $cv->{'DECEMBER TAXI'}{id};
    is(reconcile('alice', [$mc->{id}, $rc_])->{status}, 200, 'the taxi is matched');
    my $net_matched = net_cents('alice', 'bob');
    is($rig->del("/api/transactions/$rc_/splits", user => 'bob')->{status}, 204, 'bob clears its split');
    my $net_cleared = net_cents('alice', 'bob');
    is($net_cleared, $net_matched - 1000, "bob's 10.00 is no longer owed");
    is($rig->del("/api/reconcile/$mc->{id}", user => 'alice')->{status}, 204, 'alice undoes the match');
    is_deeply(state_of(row_of('alice', $mc->{id}))->{splits}, [], 'the manual row comes back unsplit');
    is(net_cents('alice', 'bob'), $net_cleared, 'and bob owes what he owed before the undo');

    # The owner makes a tag a trip while a manual row with it is matched:
    # the purchase is in the trip after the undo too (the manual row brought
    # no trip, so the trip stays with the statement row, as a split would).
    my $perth = $rig->post('/api/tags', { name => 'perth-dec' }, user => 'alice')->{json}{id};
    my $mh = manual('alice', 'perth hotel', date => '2026-12-20', amount => 300, payment_method => 'card',
                    tag_ids => [$perth]);
    my (undef, $hv) = statement('alice', ['PERTH HOTEL', '2026-12-20', 300]);
    is(reconcile('alice', [$mh->{id}, $hv->{'PERTH HOTEL'}{id}])->{status}, 200, 'the hotel is matched');
    $res = $rig->post('/api/trips/from-tag', { tag_id => $perth }, user => 'alice');
    is($res->{status}, 201, 'its tag becomes a trip') or diag($res->{content});
    my $trip = $res->{json}{id} // 0;
    is($res->{json}{transaction_count}, 1, 'holding the purchase once');
    is($rig->del("/api/reconcile/$mh->{id}", user => 'alice')->{status}, 204, 'the match is undone');
    is(row_of('alice', $hv->{'PERTH HOTEL'}{id})->{trip_id}, $trip, 'the statement row is in the trip');
    is($rig->get("/api/trips/$trip", user => 'alice')->{json}{transaction_count}, 1, 'which holds the purchase once');

    # A participant makes their tag a trip while the owner's manual row
    # with it is matched: the purchase is in their trip after the undo.
    my $bob_trip_tag = $rig->post('/api/tags', { name => 'bob-trip' }, user => 'bob')->{json}{id};
    my $mb = manual('alice', 'shared cabin', date => '2026-12-22', amount => 120, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    $res = $rig->post("/api/transactions/$mb->{id}/tags", { tag_id => $bob_trip_tag }, user => 'bob');
    ok($res->{status} == 200 || $res->{status} == 201, 'bob tags the cabin') or diag($res->{content});
    my (undef, $bv) = statement('alice', ['CABIN CO', '2026-12-22', 120]);
    is(reconcile('alice', [$mb->{id}, $bv->{'CABIN CO'}{id}])->{status}, 200, 'alice matches the cabin');
    $res = $rig->post('/api/trips/from-tag', { tag_id => $bob_trip_tag }, user => 'bob');
    is($res->{status}, 201, 'bob makes his tag a trip') or diag($res->{content});
    my $bob_trip = $res->{json}{id} // 0;
    is($rig->del("/api/reconcile/$mb->{id}", user => 'alice')->{status}, 204, 'alice undoes the match');
    is($rig->get("/api/trips/$bob_trip", user => 'bob')->{json}{transaction_count}, 1,
       "bob's trip holds the cabin once");

    # A trip the manual row brought follows it: its trip owner taking the
    # matched row out of the trip takes the purchase out.
    my $tt = $rig->post('/api/trips', { name => 'Adelaide' }, user => 'alice')->{json}{id};
    my $md2 = manual('alice', 'adelaide lunch', date => '2026-12-24', amount => 44, payment_method => 'card',
                     trip_id => $tt);
    my (undef, $av) = statement('alice', ['ADELAIDE LUNCH', '2026-12-24', 44]);
    my $ra = $av->{'ADELAIDE LUNCH'}{id};
    is(reconcile('alice', [$md2->{id}, $ra])->{status}, 200, 'the lunch is matched');
    is(row_of('alice', $ra)->{trip_id}, $tt, 'the statement row took its trip');
    is($rig->request('DELETE', "/api/trips/$tt/transactions", user => 'alice',
                     json => { transaction_ids => [$ra] })->{status}, 200, 'it is taken out of the trip');
    is($rig->del("/api/reconcile/$md2->{id}", user => 'alice')->{status}, 204, 'the match is undone');
    is(row_of('alice', $md2->{id})->{trip_id}, undef, 'the manual row comes back out of the trip');
    is($rig->get("/api/trips/$tt", user => 'alice')->{json}{transaction_count}, 0, 'which holds nothing');

    # A trip put in while matched goes with the split: the debt stays in
    # the trip it was run up in (the split went back to the manual row and
    # the trip stayed on the statement row).
    my $tw = $rig->post('/api/trips', { name => 'Wollongong' }, user => 'alice')->{json}{id};
    my $mw = manual('alice', 'wollongong dinner', date => '2026-12-26', amount => 90, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 40 }]);
    my (undef, $wv) = statement('alice', ['WOLLONGONG DINNER', '2026-12-26', 90]);
    my $rw = $wv->{'WOLLONGONG DINNER'}{id};
    is(reconcile('alice', [$mw->{id}, $rw])->{status}, 200, 'the dinner is matched');
    is($rig->patch("/api/transactions/$rw", { trip_id => $tw }, user => 'alice')->{status}, 200,
       'and put in the trip');
    is($rig->del("/api/reconcile/$mw->{id}", user => 'alice')->{status}, 204, 'the match is undone');
    my $back = row_of('alice', $mw->{id});
    is_deeply([$back->{trip_id}, scalar @{ $back->{splits} }], [$tw, 2], 'the manual row has the split and the trip');
    is(row_of('alice', $rw)->{trip_id}, undef, 'the statement row neither');
    is($rig->get("/api/trips/$tw", user => 'alice')->{json}{transaction_count}, 1, 'the trip holds the dinner once');
}

# ==== deleting the statement of a matched row is an undo for the manual row ==================
# What was done to the purchase while matched comes back with the manual
# row, as an undo gives it (bob's settle went with the statement row).
{
    my $mz = manual('alice', 'december gift', date => '2026-12-27', amount => 60, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my ($zs, $zv) = statement('alice', ['DECEMBER GIFT', '2026-12-27', 60]);
    my $rz = $zv->{'DECEMBER GIFT'}{id};
    is(reconcile('alice', [$mz->{id}, $rz])->{status}, 200, 'the gift is matched');
    is($rig->post("/api/transactions/$rz/splits/settle", { settled => JSON::PP::true }, user => 'bob')->{status},
       200, 'bob settles his part');
    is($rig->del("/api/statements/$zs->{id}", user => 'alice')->{status}, 204, 'the statement is deleted');
    my %settled = map { $_->[0] => $_->[3] } @{ state_of(row_of('alice', $mz->{id}))->{splits} };
    is($settled{ $uid{bob} }, 1, "the manual row is back with bob's part settled");
    error_is($rig->del("/api/reconcile/$mz->{id}", user => 'alice'), 409, 'conflict', 'and is no longer reconciled');
}

# ==== trips and runs around an undo, three more cases ==========================================
{
    # A trip deleted while matched is no move: the statement row keeps
    # its own trip (it lost it).
    my $tm = $rig->post('/api/trips', { name => 'Mildura' }, user => 'alice')->{json}{id};
    my $ts = $rig->post('/api/trips', { name => 'Shepparton' }, user => 'alice')->{json}{id};
    my $mm = manual('alice', 'mildura fuel', date => '2026-11-20', amount => 70, payment_method => 'card',
                    trip_id => $tm);
    my (undef, $sv) = statement('alice', ['MILDURA FUEL', '2026-11-20', 70]);
    my $rm = $sv->{'MILDURA FUEL'}{id};
    is($rig->patch("/api/transactions/$rm", { trip_id => $ts }, user => 'alice')->{status}, 200,
       'the bank row is in a trip of its own');
    is(reconcile('alice', [$mm->{id}, $rm])->{status}, 200, 'matched');
    is($rig->del("/api/trips/$tm", user => 'alice')->{status}, 204, "the manual row's trip is deleted");
    is($rig->del("/api/reconcile/$mm->{id}", user => 'alice')->{status}, 204, 'undone');
    is(row_of('alice', $rm)->{trip_id}, $ts, 'the statement row is back in its own trip');

    # But a row put in a new trip after its trip was deleted has moved.
    my $ta = $rig->post('/api/trips', { name => 'Ararat' }, user => 'alice')->{json}{id};
    my $tn = $rig->post('/api/trips', { name => 'Nhill' }, user => 'alice')->{json}{id};
    my $mn2 = manual('alice', 'ararat meal', date => '2026-11-21', amount => 80, payment_method => 'card',
                     trip_id => $ta, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my (undef, $nv2) = statement('alice', ['ARARAT MEAL', '2026-11-21', 80]);
    my $rn2 = $nv2->{'ARARAT MEAL'}{id};
    is(reconcile('alice', [$mn2->{id}, $rn2])->{status}, 200, 'matched');
    is($rig->del("/api/trips/$ta", user => 'alice')->{status}, 204, 'its trip deleted');
    is($rig->patch("/api/transactions/$rn2", { trip_id => $tn }, user => 'alice')->{status}, 200,
       'and the row put in another');
    is($rig->del("/api/reconcile/$mn2->{id}", user => 'alice')->{status}, 204, 'undone');
    is(row_of('alice', $mn2->{id})->{trip_id}, $tn, 'the manual row, with the split, is in the new trip');
    is($rig->get("/api/trips/$tn", user => 'alice')->{json}{transaction_count}, 1, 'which holds it once');

    # Taken out of the trip the manual row brought, with the split on the
    # statement row: the purchase stays out.
    my $tb = $rig->post('/api/trips', { name => 'Bendigo' }, user => 'alice')->{json}{id};
    my $mb2 = manual('alice', 'bendigo hotel', date => '2026-11-22', amount => 80, payment_method => 'card',
                     trip_id => $tb);
    my (undef, $bv2) = statement('alice', ['BENDIGO HOTEL', '2026-11-22', 80]);
    my $rb2 = $bv2->{'BENDIGO HOTEL'}{id};
    is($rig->post("/api/transactions/$rb2/splits", [{ participant_id => $uid{bob}, share_percent => 25 }],
                  user => 'alice')->{status}, 200, 'the bank row is split with bob');
    is(reconcile('alice', [$mb2->{id}, $rb2])->{status}, 200, 'matched');
    is($rig->request('DELETE', "/api/trips/$tb/transactions", user => 'alice',
                     json => { transaction_ids => [$rb2] })->{status}, 200, 'taken out of the trip');
    is($rig->del("/api/reconcile/$mb2->{id}", user => 'alice')->{status}, 204, 'undone');
    is_deeply([row_of('alice', $mb2->{id})->{trip_id}, row_of('alice', $rb2)->{trip_id}], [undef, undef],
              'neither row is in the trip');
    is($rig->get("/api/trips/$tb", user => 'alice')->{json}{transaction_count}, 0, 'which holds nothing');

    # A statement whose matched row a rule run changed since is deleted
    # only once the run is reverted, as the undo is (the run's split went
    # onto the manual row for good).
    my $mr = manual('alice', 'runsplit lunch', date => '2026-11-24', amount => 80, payment_method => 'card',
                    splits => [{ participant_id => $uid{bob}, share_percent => 40 }]);
    my ($rs, $rv) = statement('alice', ['RUNSPLIT LUNCH', '2026-11-24', 80]);
    is(reconcile('alice', [$mr->{id}, $rv->{'RUNSPLIT LUNCH'}{id}])->{status}, 200, 'matched');
    my $rule = $rig->post('/api/rules', { name => 'runsplit', conditions => [
        { field => 'description', operator => 'contains', value => 'RUNSPLIT LUNCH' } ],
        actions => [ { type => 'apply_split', shares => [{ participant_id => $uid{bob}, share_percent => 10 }] } ] },
        user => 'alice')->{json}{id};
    my $run = $rig->post("/api/rules/apply/$rule", {}, user => 'alice')->{json};
    is($run->{transactions}, 1, "a run sets bob's share of the statement row to 10");
    $res = $rig->del("/api/statements/$rs->{id}", user => 'alice');
    error_is($res, 409, 'conflict', 'deleting the statement');
    like($res->{json}{error}{message} // '', qr/rule run $run->{id}/, 'naming the run');
    is($rig->del("/api/rules/apply/$run->{id}", user => 'alice')->{status}, 200, 'the run is reverted');
    is($rig->del("/api/statements/$rs->{id}", user => 'alice')->{status}, 204, 'then the statement goes');
    my %share = map { $_->[0] => $_->[1] } @{ state_of(row_of('alice', $mr->{id}))->{splits} };
    is($share{ $uid{bob} }, '40.00', "the manual row is back with bob's 40%");
}

# ==== a matched manual row is no row of a trip (November) =====================================
# bob puts his manual row in alice's trip, then matches it: alice (the
# trip's owner) cannot take the hidden row out of her trip, and bob's undo
# gives it back to him in the trip.
{
    my $trip = $rig->post('/api/trips', { name => 'Launceston' }, user => 'alice')->{json}{id};
    my $shared = manual('alice', 'launceston dinner', date => '2026-11-02', amount => 10, trip_id => $trip,
                        splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my $mt = manual('bob', 'launceston taxi', date => '2026-11-03', amount => 33, payment_method => 'card',
                    trip_id => $trip);
    is($mt->{trip_id}, $trip, "bob's taxi is in alice's trip");
    my (undef, $bs) = statement('bob', ['TAXI CO', '2026-11-03', 33]);
    is(reconcile('bob', [$mt->{id}, $bs->{'TAXI CO'}{id}])->{status}, 200, 'bob matches it');
    error_is($rig->request('DELETE', "/api/trips/$trip/transactions", user => 'alice',
                           json => { transaction_ids => [$mt->{id}] }),
             404, 'not_found', 'alice taking the hidden row out of her trip');
    is($rig->del("/api/reconcile/$mt->{id}", user => 'bob')->{status}, 204, 'bob undoes the match');
    is(row_of('bob', $mt->{id})->{trip_id}, $trip, 'his taxi is still in the trip');
}

# ==== what an undo gives back, more cases (2025) ===============================================
# A match only fills the statement row's gaps; at the undo a trip put on
# the matched row goes with the split (with no split, to the row the trip
# came from), a deleted trip is no move, and a participant's tag goes
# back only to a row that participant still takes part in.  Each case is a
# month of 2025, out of the way of every window above.
sub bank_row {
    my ($name, $date, $amount) = @_;
    my ($s, $by) = statement('alice', [$name, $date, $amount]);
    return ($by->{$name}{id}, $s->{id});
}
sub trip_of { $rig->post('/api/trips', { name => $_[0] }, user => 'alice')->{json}{id} }
sub match_status { reconcile('alice', [$_[0], $_[1]])->{status} }
sub trip_put { $rig->patch("/api/transactions/$_[0]", { trip_id => $_[1] }, user => 'alice')->{status} }
sub undo { $rig->del("/api/reconcile/$_[0]", user => 'alice')->{status} }
sub card_row { manual('alice', $_[0], payment_method => 'card', @_[1 .. $#_])->{id} }

# A trip deleted while matched; the statement row has its own split.
{
    my ($S, $T) = (trip_of('R06s'), trip_of('R06t'));
    my $m = card_row('r06', date => '2025-01-10', amount => 11, trip_id => $T);
    my ($s) = bank_row('R06', '2025-01-10', 11);
    is($rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{bob}, share_percent => 25 }], user => 'alice')->{status}, 200, 'split');
    is(trip_put($s, $S), 200, 'own trip');
    is(match_status($m, $s), 200, 'matched');
    is($rig->del("/api/trips/$T", user => 'alice')->{status}, 204, 'T deleted');
    is(undo($m), 204, 'undone');
    is(row_of('alice', $s)->{trip_id}, $S, 'statement row (own split) back in its own trip');
}
# The statement row's own trip, and a trip put on it while matched.
{
    my ($S, $X) = (trip_of('R04s'), trip_of('R04x'));
    my $m = card_row('r04', date => '2025-02-10', amount => 12);
    my ($s) = bank_row('R04', '2025-02-10', 12);
    is(trip_put($s, $S), 200, 'own trip');
    is(match_status($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'moved to X');
    is(undo($m), 204, 'undone');
    is_deeply([row_of('alice', $s)->{trip_id}, row_of('alice', $m)->{trip_id}], [$X, undef],
              'the statement row (its trip) is in X, the manual row in none');
}
# Each row in its own trip; the matched row moved to a third.
{
    my ($S, $T, $X) = (trip_of('R08s'), trip_of('R08t'), trip_of('R08x'));
    my $m = card_row('r08', date => '2025-03-10', amount => 13, trip_id => $T);
    my ($s) = bank_row('R08', '2025-03-10', 13);
    is(trip_put($s, $S), 200, 'own trip');
    is(match_status($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'moved to X');
    is(undo($m), 204, 'undone');
    is_deeply([row_of('alice', $m)->{trip_id}, row_of('alice', $s)->{trip_id}], [$X, $S],
              'manual in X, statement row back in its own S');
}
# A split of one person: the trip goes with it.
{
    my $X = trip_of('R25x');
    my $m = card_row('r25', date => '2025-04-10', amount => 14,
                     splits => [{ participant_id => $uid{bob}, share_percent => 100 }]);
    my ($s) = bank_row('R25', '2025-04-10', 14);
    is(match_status($m, $s), 200, 'matched');
    is(trip_put($s, $X), 200, 'put in X');
    is(undo($m), 204, 'undone');
    is_deeply([row_of('alice', $m)->{trip_id}, row_of('alice', $s)->{trip_id}], [$X, undef],
              'the trip goes with the one-party split to the manual row');
}
# The statement row's own payment method.
{
    my $m = manual('alice', 'r03', date => '2025-05-10', amount => 15, payment_method => 'bank_transfer')->{id};
    my ($s) = bank_row('R03', '2025-05-10', 15);
    is($rig->patch("/api/transactions/$s", { payment_method => 'card' }, user => 'alice')->{status}, 200, 'card');
    is(match_status($m, $s), 200, 'matched');
    is(row_of('alice', $s)->{payment_method}, 'card', "the statement row's own payment method stays");
}
# A match recorded without manual_trip_id (an older release's).
{
    my $T = trip_of('R20t');
    my $m = card_row('r20', date => '2025-06-10', amount => 16, trip_id => $T);
    my ($s) = bank_row('R20', '2025-06-10', 16);
    is(match_status($m, $s), 200, 'matched');
    $rig->sql("UPDATE reconciliations SET snapshot = json_remove(snapshot, '\$.manual_trip_id') WHERE manual_id = $m");
    is(undo($m), 204, 'undone');
    is_deeply([row_of('alice', $m)->{trip_id}, row_of('alice', $s)->{trip_id}], [$T, undef],
              'an older snapshot: manual row in T, statement row not');
}
# Rule runs before and after a match.
sub category_run {
    my ($word, $cat) = @_;
    my $r = $rig->post('/api/rules', { name => "r $word $cat",
                                       conditions => [{ field => 'description', operator => 'contains', value => $word }],
                                       actions => [{ type => 'set_category', category => $cat }] }, user => 'alice');
    is($r->{status}, 201, 'rule') or diag($r->{content});
    my $a = $rig->post("/api/rules/apply/$r->{json}{id}", {}, user => 'alice');
    is($a->{status}, 200, 'applied') or diag($a->{content});
    return $a->{json};
}
{
    my $m = card_row('r19', date => '2025-07-10', amount => 17, category => 'dining');
    my ($s) = bank_row('R19X', '2025-07-10', 17);
    is(match_status($m, $s), 200, 'matched');
    my $run = category_run('R19X', 'dining');
    is($run->{transactions}, 0, 'the run changed no row') or diag(explain($run));
    is(undo($m), 204, 'a run since that changed nothing does not block the undo');
}
{
    my $m = card_row('s01', date => '2025-08-10', amount => 18, category => 'dining');
    my ($s, $st) = bank_row('S01X', '2025-08-10', 18);
    category_run('S01X', 'groceries');
    is(match_status($m, $s), 200, 'matched after the run');
    is($rig->del("/api/statements/$st", user => 'alice')->{status}, 204,
       'a run before the match does not block deleting the statement');
}
# A participant's tag on the statement row before the match.
{
    my $bt = $rig->post('/api/tags', { name => 'r15bob' }, user => 'bob')->{json}{id};
    my $m = card_row('r15', date => '2025-09-10', amount => 19,
                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my ($s) = bank_row('R15', '2025-09-10', 19);
    is($rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{bob}, share_percent => 30 }],
                  user => 'alice')->{status}, 200, 'stmt split');
    is($rig->post("/api/transactions/$s/tags", { tag_id => $bt }, user => 'bob')->{status}, 200,
       'bob tags the statement row');
    is(match_status($m, $s), 200, 'matched');
    is(undo($m), 204, 'undone');
    my $n = $rig->sql("SELECT COUNT(*) FROM transaction_tags WHERE transaction_id = $m AND tag_id = $bt");
    chomp $n;
    is($n, 0, "bob's tag the statement row had before is not carried to the manual row");
}
# A participant taken off the split while matched.
{
    $rig->post('/api/participants', { email => 'carol@example.org' }, user => 'alice');
    my $bt = $rig->post('/api/tags', { name => 'r22bob' }, user => 'bob')->{json}{id};
    my $m = card_row('r22', date => '2025-10-10', amount => 21,
                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    is($rig->post("/api/transactions/$m/tags", { tag_id => $bt }, user => 'bob')->{status}, 200, 'bob tags the manual row');
    my ($s) = bank_row('R22', '2025-10-10', 21);
    is(match_status($m, $s), 200, 'matched');
    my $r = $rig->post("/api/transactions/$s/splits", [{ participant_id => $uid{carol}, share_percent => 50 }],
                       user => 'alice');
    is($r->{status}, 200, 'the split is now carol alone') or diag($r->{content});
    is(undo($m), 204, 'undone');
    my $n = $rig->sql("SELECT COUNT(*) FROM transaction_tags WHERE transaction_id = $m AND tag_id = $bt");
    chomp $n;
    is($n, 0, "bob, no longer a party, keeps no tag on the manual row");
}

# ==== the window's edges on apply; a hidden row refused everywhere (dave) ==================
# ---- exactly 3 days and exactly 1% away is inside the window on apply ---------------
for my $case (['2026-06-13', 101, 'after'], ['2026-06-07', 99, 'before']) {
    my ($date, $amount, $side) = @$case;
    my $m = manual_id($rig, dave => date => '2026-06-10', amount => 100, description => "Edge $side",
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
    my $m = manual_id($rig, dave => date => '2026-07-10', amount => 50, description => 'Hidden', payment_method => 'card');
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

# ==== missing identity =========================================================================
error_is($rig->get('/api/reconcile', open => 1), 401, 'unauthenticated', 'GET /api/reconcile without identity');
error_is($rig->request('POST', '/api/reconcile', open => 1,
                       json => { matches => [{ manual_id => $mx->{id}, statement_transaction_id => $r{'rx far'} }] }),
         401, 'unauthenticated', 'POST /api/reconcile without identity');
error_is($rig->del("/api/reconcile/$m1->{id}", open => 1), 401, 'unauthenticated', 'DELETE /api/reconcile without identity');
is(get_row('alice', $m1->{id})->{status}, 404, 'm1 is still reconciled');

done_testing();
