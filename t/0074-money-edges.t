#!/usr/bin/perl
# Money rules at their edges, through nginx: each section holds one rule a
# mutation audit could break with the whole suite still passing (the
# mutant id is named in the section's heading).  SPEC.md Business rules B
# and D, Behaviour rule 9, section 3 (a reconciled manual row is hidden);
# API.md sections 1 (money), 2 (balances), 3 (apportioned cents), 7 (trip
# owed), 8 (spend, basis=mine), 9 (reconciliation).
#
# The odd cent: 10.01 split 50/50 is 500.5 cents each; largest remainder
# gives the tie to the owner's row (5.01) and the other party 5.00; an
# override share of 50% rounds half away from zero (5.01, refund -5.01).
#
# Every scenario has a month (or a trip, or a pair of users) of its own, so
# every figure below is exact and worked out by hand in a comment:
#   2024-01  alice  interest in USD (fees report)              M17
#   2024-02  alice  a manual fee reconciled (fees report)      M40
#   2024-03  alice  debit 10.01, my_share_percent 50           M19
#   2024-04  alice  refund 10.01, my_share_percent 50          M19
#   2024-05  alice  refund 10.01 split with bob 50%            M34
#   2024-06  alice  debit 10.01 split with carol 50%; the only
#                   row between alice and carol (balances)     M33
#   trip FX   alice and dave: a USD row                        M27
#   trip Cr   alice and erin: a debit and a credit             M35
#   2024-10  alice  debit 100.01 split with bob 50%, alice's
#                   my_share_percent 100 (the owner's alone)
#   amounts past int64 cents refused, nothing written           M30
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok m2);

my $rig = Rig->new;
my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;
ok(!grep({ !$_ } values %uid), 'every test user has an id');

# ---- helpers ------------------------------------------------------------------

# Money comes back as JSON numbers with two decimals; compare as text.

# alice shares with everyone, and everyone with alice.
for my $o (qw(bob carol)) {
    participant_ok($rig, alice => $o);
    participant_ok($rig, $o => 'alice');
}

# A manual row (201 checked); returns it.
sub manual {
    my ($user, %f) = @_;
    my $body = { date => '2024-01-15', amount => 10, description => 'something', %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    is($res->{status}, 201, "$user creates manual row '$body->{description}'") or diag($res->{content});
    return $res->{json} // {};
}

# A statement of $user with rows; returns (statement, {description => row}).
sub statement {
    my ($user, %f) = @_;
    my $body = { bank_name => 'Edge Bank', account_type => 'Visa Credit Card',
                 period_start => '2024-01-01', period_end => '2024-12-31', transactions => [], %f };
    my $res = $rig->post('/api/statements', $body, user => $user);
    is($res->{status}, 201, "$user creates statement '$body->{bank_name}'") or diag($res->{content});
    my $s = $res->{json} // {};
    my $list = $rig->get("/api/transactions?statement_id=$s->{id}&exclude_categories=&limit=500",
                         user => $user)->{json}{items} // [];
    return ($s, { map { $_->{description} => $_ } @$list });
}

sub get_row { $rig->get("/api/transactions/$_[1]", user => $_[0])->{json} // {} }

# {participant_id => amount} of a row's splits.
sub split_amounts { +{ map { $_->{participant_id} => m2($_->{amount}) } @{ $_[0]{splits} // [] } } }

sub fees {
    my ($user, $month) = @_;
    my $res = $rig->get("/api/analytics/fees?from=$month&to=$month", user => $user);
    is($res->{status}, 200, "$user GET /api/analytics/fees for $month") or diag($res->{content});
    return $res->{json} // {};
}
# [month, fees, interest] of each by_month entry.
sub fee_months { [map { [$_->{month}, m2($_->{fees}), m2($_->{interest})] } @{ $_[0]{by_month} // [] }] }

# One month of GET /api/analytics/monthly?basis=mine: [month total, {category => total}].
sub mine_month {
    my ($user, $month) = @_;
    my $res = $rig->get("/api/analytics/monthly?from=$month&to=$month&basis=mine", user => $user);
    is($res->{status}, 200, "$user GET /api/analytics/monthly basis=mine for $month") or diag($res->{content});
    my ($m) = grep { $_->{month} eq $month } @{ $res->{json}{items} // [] };
    $m //= {};
    return [m2($m->{total}), { map { $_->{category} => m2($_->{total}) } @{ $m->{categories} // [] } }];
}

sub drill_mine {
    my ($user, $month, $cat) = @_;
    my $res = $rig->get("/api/analytics/monthly/$month/$cat?basis=mine", user => $user);
    is($res->{status}, 200, "$user GET drill-down $month/$cat basis=mine") or diag($res->{content});
    return m2($res->{json}{total});
}

sub balance {
    my ($user, $other) = @_;
    my $res = $rig->get("/api/participants/$uid{$other}/balance", user => $user);
    is($res->{status}, 200, "$user GET /api/participants/{$other}/balance") or diag($res->{content});
    my $j = $res->{json} // {};
    return { map { $_ => m2($j->{$_}) } qw(owed_to_me owed_by_me payments_to_me payments_from_me net) };
}

sub new_trip {
    my ($user, $name) = @_;
    my $res = $rig->post('/api/trips', { name => $name }, user => $user);
    is($res->{status}, 201, "$user creates trip '$name'") or diag($res->{content});
    return ($res->{json} // {})->{id};
}

# [{participant_id => amount} owed_to_me, {...} owed_by_me] of a trip.
sub owed {
    my ($user, $trip) = @_;
    my $res = $rig->get("/api/trips/$trip/owed", user => $user);
    is($res->{status}, 200, "$user GET /api/trips/{id}/owed") or diag($res->{content});
    my $j = $res->{json} // {};
    return [map { my $k = $_; +{ map { $_->{participant_id} => m2($_->{amount}) } @{ $j->{$k} // [] } } }
            qw(owed_to_me owed_by_me)];
}

my $res;

# ==== M33: balances use the apportioned cents the rows show =========================
# 2024-06: alice's debit 10.01 split with carol 50%: alice 5.01, carol 5.00.
# It is the only row and there are no payments between them, so
#   alice with carol: owed_to_me 5.00, net 5.00; carol with alice: owed_by_me 5.00, net -5.00
my $sd = manual('alice', date => '2024-06-08', amount => 10.01, description => 'Shared debit',
                category => 'dining', merchant => 'Split Cafe',
                splits => [ { participant_id => $uid{carol}, share_percent => 50 } ]);
is_deeply(split_amounts(get_row('carol', $sd->{id})), { $uid{alice} => '5.01', $uid{carol} => '5.00' },
          'the shared debit row: alice 5.01 (owner takes the tie cent), carol 5.00');
is_deeply(balance('alice', 'carol'),
          { owed_to_me => '5.00', owed_by_me => '0.00', payments_to_me => '0.00', payments_from_me => '0.00',
            net => '5.00' },
          'alice\'s balance with carol: owed_to_me 5.00 (carol\'s row amount), net 5.00');
is_deeply(balance('carol', 'alice'),
          { owed_to_me => '0.00', owed_by_me => '5.00', payments_to_me => '0.00', payments_from_me => '0.00',
            net => '-5.00' },
          'carol\'s balance with alice: owed_by_me 5.00 (her row amount), net -5.00');

# Shares total exactly 100%: two that make 100.01 are refused, as one is.
{
    my $row = manual(alice => date => '2019-05-01', description => 'Split to the hundredth', amount => 10);
    my $res = $rig->post("/api/transactions/$row->{id}/splits",
                         [ { participant_id => $uid{bob}, share_percent => 50 },
                           { participant_id => $uid{carol}, share_percent => 50.01 } ], user => 'alice');
    is($res->{status}, 400, 'shares of 50 and 50.01 (100.01%) are refused') or diag($res->{content});
    is_deeply(get_row(alice => $row->{id})->{splits}, [], 'and the row is not split');
}

done_testing();
