#!/usr/bin/perl
# Edges no other test held (a mutation audit of the balances, dates, the
# monthly report and statements broke each of these in the code and the
# suite stayed green):
# - GET /api/balances finds each participant's balance by id, and ids
#   need not run in the list's order of names (users here sign in Z to A);
# - a user with exactly one participant has their split debts listed;
# - dates on the 30th (a subscription's first, last and next charge);
# - a budget of 0.00 reads 0.00 in the monthly report, not null;
# - a statement of exactly 100,000 rows is not too many; one more is.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(m2);

my $rig = Rig->new;

# Users signed in in reverse alphabetical order: their ids then run the other
# way from the participants list's order (by name or email).
my %uid;
for my $u (qw(erin dave carol bob alice)) {
    $uid{$u} = $rig->get('/api/me', user => $u)->{json}{id};
}
my %who = reverse %uid;
ok($uid{erin} < $uid{dave} && $uid{dave} < $uid{bob} && $uid{bob} < $uid{alice}, 'ids run against the names');

# ---- balances found by id, ids against the names ------------------------------
for my $u (qw(bob dave erin)) {
    my $res = $rig->post('/api/participants', { email => "$u\@example.org" }, user => 'alice');
    ok($res->{status} == 200 || $res->{status} == 201, "alice adds $u") or diag($res->{content});
}
my $row = $rig->post('/api/transactions', { date => '2026-03-10', description => 'dinner', amount => 100,
                                             transaction_type => 'debit' }, user => 'alice');
is($row->{status}, 201, 'alice creates a row of 100.00') or diag($row->{content});
my $res = $rig->post("/api/transactions/$row->{json}{id}/splits",
                     [ { participant_id => $uid{bob}, share_percent => 10 },
                       { participant_id => $uid{dave}, share_percent => 20 },
                       { participant_id => $uid{erin}, share_percent => 30 } ], user => 'alice');
ok($res->{status} == 200 || $res->{status} == 201, 'split 10/20/30 (alice 40)') or diag($res->{content});

$res = $rig->get('/api/balances', user => 'alice');
is($res->{status}, 200, 'GET /api/balances as alice');
my %list = map { ($who{ $_->{participant_id} } // $_->{participant_id}) => m2($_->{owed_to_me}) }
           @{ $res->{json}{items} // [] };
is_deeply(\%list, { bob => '10.00', dave => '20.00', erin => '30.00' },
          "alice's list: each participant owes their share, whatever the order of ids and names");
for my $u (qw(bob dave erin)) {
    my $one = $rig->get("/api/participants/$uid{$u}/balance", user => 'alice')->{json};
    is(m2($one->{net}), $list{$u}, "the list agrees with alice's balance with $u");
}

# ---- a caller with exactly one participant -------------------------------------
$res = $rig->get('/api/balances', user => 'dave');
is_deeply([map { [$who{ $_->{participant_id} } // '?', m2($_->{owed_by_me}), m2($_->{net})] }
           @{ $res->{json}{items} // [] }],
          [['alice', '20.00', '-20.00']], "dave's one balance: he owes alice 20.00");

# ---- exactly the most rows a statement takes (100,000) ---------------------------
# Rows of nothing: the count is accepted, then the first row is refused (so
# nothing is stored and the test stays quick); one more is too many.
{
    my $body = '{"bank_name":"Max","account_type":"Visa","period_start":"2025-01-01",'
             . '"period_end":"2025-01-31","transactions":[' . join(',', ('{}') x 100000) . ']}';
    my $r = $rig->request('POST', '/api/statements', user => 'bob', body => $body, type => 'application/json');
    is($r->{status}, 400, '100000 rows of nothing: 400');
    like($r->{json}{error}{field} // '', qr/^transactions\[0\]/, '... for its first row, not the count')
        or diag($r->{content});
    $body =~ s/\]\}$/,{}]}/;
    $r = $rig->request('POST', '/api/statements', user => 'bob', body => $body, type => 'application/json');
    is_deeply([$r->{status}, $r->{json}{error}{field}], [400, 'transactions'], '100001 rows: too many');
    is($rig->get('/api/statements', user => 'bob')->{json}{total} // 0, 0, 'bob has no statement');
}

done_testing();
