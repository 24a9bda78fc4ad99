#!/usr/bin/perl
# A stranger never writes into your balances: a payment moves the other
# party's balance, so it needs something the two already share (a split
# between them, or the other side's own step: adding the caller by email,
# or recording a payment with them).  Adding someone by email alone, which
# anyone who knows the address can do, is not enough.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok ok_json);

my $rig = Rig->new;
my %uid = map { $_ => ok_json($rig->get('/api/me', user => $_), "$_ signs in")->{id} } qw(alice bob carol dave);

sub pay {
    my ($user, $from, $to, $amount) = @_;
    return $rig->post('/api/payments', { from_participant_id => $uid{$from}, to_participant_id => $uid{$to},
                                         date => '2026-04-01', amount => $amount }, user => $user);
}
sub net {
    my ($user, $other) = @_;
    return ok_json($rig->get("/api/participants/$uid{$other}/balance", user => $user), "$user's balance with $other")->{net};
}

# dave knows alice's address and nothing else.
participant_ok($rig, dave => 'alice');
error_is(pay('dave', 'dave', 'alice', 1000), 403, 'forbidden', 'dave records "I paid alice 1,000", a stranger to her');
error_is(pay('dave', 'alice', 'dave', 1000), 403, 'forbidden', 'nor "alice paid me 1,000"');
error_is($rig->post('/api/payments', { from_participant_id => $uid{dave}, to_participant_id => $uid{alice},
                                       date => '2026-04-01', scopes => [{ trip_id => undef, amount => 5 }] },
                    user => 'dave'), 403, 'forbidden', 'nor with scopes');
is($rig->sql('SELECT COUNT(*) FROM split_payments'), 0, 'nothing was written');
is(net('alice', 'dave'), 0, "alice's balance with dave is untouched");
is_deeply(ok_json($rig->get('/api/payments', user => 'alice'), "alice's payments")->{items}, [],
          'and she has no payment from him');

# dave's add is a step of his towards alice: she may record a payment
# with him, and a payment she recorded is her step towards him.
is(pay('alice', 'dave', 'alice', 10)->{status}, 201, 'alice records "dave paid me 10" (he added her)');
is(pay('dave', 'dave', 'alice', 5)->{status}, 201, 'now dave may record one with her too');
is(net('alice', 'dave'), -15, 'and both move her balance with him');

# The other side's add is the acceptance.
participant_ok($rig, dave => 'bob');
error_is(pay('dave', 'dave', 'bob', 7), 403, 'forbidden', 'dave, who only added bob, cannot pay him');
participant_ok($rig, bob => 'dave');
is(pay('dave', 'dave', 'bob', 7)->{status}, 201, 'once bob adds dave, he can');

# A shared split relates the two both ways, with no add by the other.
participant_ok($rig, carol => 'bob');
error_is(pay('carol', 'carol', 'bob', 3), 403, 'forbidden', 'carol, who only added bob, cannot pay him');
my $row = ok_json($rig->post('/api/transactions', { date => '2026-04-02', description => 'Dinner', amount => 60,
                                                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }] },
                             user => 'carol'), 'carol shares a dinner with bob');
is(pay('carol', 'carol', 'bob', 3)->{status}, 201, 'with a split between them, carol records a payment to bob');
is(pay('bob', 'bob', 'carol', 30)->{status}, 201, 'and bob, a participant of her row, one to her');
is(net('carol', 'bob'), 30 - 30 + 3, "carol's balance: bob's half, his 30 paid, her 3 paid");

done_testing();
