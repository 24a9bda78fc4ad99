#!/usr/bin/perl
# Payment rules no other test held (a hand mutation audit of payment.c broke
# each of these in the code and the suite stayed green):
# - a payment takes 1 to 20 scopes (etc/openapi.yaml): 20 is accepted,
#   21 refused;
# - the payment as a whole is money too: scopes that together pass
#   10^13 are refused, though each alone is within it (API.md 1, Money);
# - notes are at most 1000 characters;
# - the orders etc/openapi.yaml states: a payment's scopes (household
#   first, then by trip) and the list (latest date first).
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);
participant_ok($rig, 'alice', 'bob');

sub pay { $rig->post('/api/payments', $_[0], user => 'alice') }
sub payments_total { $rig->get('/api/payments', user => 'alice')->{json}{total} // -1 }

# Alice owns every trip, so a payment to bob may be scoped to each of them.
my @trips;
for my $i (1 .. 20) {
    my $res = $rig->post('/api/trips', { name => "Trip $i" }, user => 'alice');
    BAIL_OUT("trip $i: $res->{status} $res->{content}") unless $res->{status} == 201;
    push @trips, $res->{json}{id};
}
my %base = (from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, date => '2026-02-01');

# ---- 1 to 20 scopes ---------------------------------------------------------------
my @twenty = ({ trip_id => undef, amount => 1 }, map { { trip_id => $_, amount => 1 } } @trips[0 .. 18]);
my $res = pay({ %base, scopes => \@twenty });
is($res->{status}, 201, 'a payment of exactly 20 scopes (the most there may be) is accepted')
    or diag($res->{content});
is(scalar @{ $res->{json}{scopes} // [] }, 20, 'it has 20 scope rows');
is(sprintf('%.2f', $res->{json}{amount} // 0), '20.00', 'and its amount is their total');
my $rows = payments_total();
is($rows, 20, 'alice lists its 20 rows');

error_is(pay({ %base, scopes => [ @twenty, { trip_id => $trips[19], amount => 1 } ] }), 400, 'invalid_field',
         '21 scopes: one too many', 'scopes');
is(payments_total(), $rows, 'and nothing was stored');

# ---- the total, not only each scope, is bounded ----------------------------------------
error_is(pay({ %base, scopes => [ { trip_id => undef, amount => 6000000000000 },
                                  { trip_id => $trips[0], amount => 6000000000000 } ] }),
         400, 'invalid_field', 'two scopes of 6 * 10^12 (12 * 10^12 in all, over 10^13)', 'amount');
is(payments_total(), $rows, 'and nothing was stored');
$res = pay({ %base, scopes => [ { trip_id => undef, amount => 5000000000000 },
                                { trip_id => $trips[0], amount => 5000000000000 } ] });
is($res->{status}, 201, 'two scopes of 5 * 10^12: exactly 10^13 in all, accepted') or diag($res->{content});

# ---- notes: at most 1000 characters ---------------------------------------------------
$res = pay({ %base, amount => 1, notes => 'n' x 1000 });
is($res->{status}, 201, 'notes of exactly 1000 characters are accepted') or diag($res->{content});
error_is(pay({ %base, amount => 1, notes => 'n' x 1001 }), 400, 'invalid_field', 'notes of 1001 characters', 'notes');

# ---- the orders etc/openapi.yaml states ---------------------------------------------
# A payment's scopes: the household one first, then by trip.
$res = pay({ %base, date => '2026-03-01',
             scopes => [ { trip_id => $trips[5], amount => 1 }, { trip_id => undef, amount => 2 },
                         { trip_id => $trips[2], amount => 3 } ] });
is($res->{status}, 201, 'a payment of three scopes, given trip, household, trip') or diag($res->{content});
is_deeply([ map { $_->{trip_id} } @{ $res->{json}{scopes} // [] } ], [ undef, $trips[2], $trips[5] ],
          'its scopes: the household one first, then by trip');
# The list: latest date first, and the later recorded first on one date.
my $early = pay({ %base, date => '2026-01-01', amount => 1 });
my $late1 = pay({ %base, date => '2027-01-01', amount => 1 });
my $late2 = pay({ %base, date => '2027-01-01', amount => 2 });
my @listed = map { $_->{id} } @{ $rig->get('/api/payments?limit=500', user => 'alice')->{json}{items} // [] };
is_deeply([ @listed[0, 1] ], [ $late2->{json}{id}, $late1->{json}{id} ],
          'the payments list: the latest date first, the later recorded first on the same date');
is($listed[-1], $early->{json}{id}, '  and the earliest date last');

done_testing();
