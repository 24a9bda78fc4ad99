#!/usr/bin/perl
# Subscription rules of GET /api/analytics/subscriptions (as etc/openapi.yaml
# states them) no other test held: a hand mutation audit of subscription.c
# broke each of these in the code and the suite stayed green.  Each
# merchant below is one rule; carol holds them all, bob nothing.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(ok_json m2 user_ids);
use Time::Local qw(timegm);

my $rig = Rig->new;
my %uid = user_ids($rig);

sub add_days {
    my ($date, $n) = @_;
    my ($y, $m, $d) = split /-/, $date;
    my @t = gmtime(timegm(0, 0, 12, $d, $m - 1, $y) + 86400 * $n);
    return sprintf('%04d-%02d-%02d', $t[5] + 1900, $t[4] + 1, $t[3]);
}

my @rows;
sub charge {
    my ($merchant, $date, $amount, %o) = @_;
    push @rows, { date => $date, description => "$merchant $date", merchant => $merchant, amount => $amount,
                  transaction_type => $o{type} // 'debit', category => $o{category} // 'subscriptions' };
}
# Weekly at the lower edge of "within 2 days": every 5 days.
charge('Edge Weekly', add_days('2025-11-01', 5 * $_), 7) for 0 .. 5;
# Monthly with two gaps of three months (missed charges): 5 of 7 gaps one period.
charge('Skipper', "2025-$_-10", 8) for qw(01 02 03 04 07 08 09 12);
# Monthly, one gap of five months: 6 of 7 gaps are 1-3 periods (85.7%, at least 85%).
charge('Loose', "2025-$_-12", 9) for qw(01 02 03 04 05 06 11 12);
# Monthly, gaps 1,2,1,2,1 months: exactly 60% of gaps are one period.
charge('Sixty', "2025-$_-14", 6) for qw(01 02 04 05 07 08);
# Steady at exactly 80%: 10, 11, 12.50, 10, 10, 10 (one step of five jumps).
my @steady = (10, 11, 12.5, 10, 10, 10);
charge('Steady Eighty', sprintf('2025-%02d-16', $_ + 6), $steady[$_ - 1]) for 1 .. 6;
# typical_amount: the median of the last three (10.00, 11.00, 10.50 -> 10.50).
my @median = (10, 10, 10, 11, 10.5);
charge('Median', sprintf('2025-%02d-18', $_ + 7), $median[$_ - 1]) for 1 .. 5;
# Monthly with two gaps of 68 days: two periods within twice the tolerance
# (60.9 +/- 9 days); 5 of 7 gaps one period, so only with those two is it
# 85% one to three periods.  (68 days is no three periods: 91.3 -/+ 13.5.)
{
    my $d = '2025-01-10';
    for my $gap (0, 31, 30, 68, 31, 68, 30, 31) {
        $d = add_days($d, $gap);
        charge('Stretched', $d, 15);
    }
}
# Monthly alternating 10.00 and 11.51: 15% and a cent apart, one chain.
charge('Cent Apart', "2025-$_-24", $_ % 2 ? 10 : 11.51) for qw(01 02 03 04 05 06);
# Yearly: two charges make one.
charge('Yearly Two', $_, 99) for '2024-06-01', '2025-06-01';
# Two plans 20% apart at one merchant are two subscriptions.
charge('Two Plans', "2025-$_-05", 10) for qw(01 02 03 04 05 06 07 08 09 10 11 12);
charge('Two Plans', "2025-$_-20", 12) for qw(01 02 03 04 05 06 07 08 09 10 11 12);
# A monthly account fee (type fee) is a recurring charge.
charge('Bank Fee', "2025-$_-28", 5, type => 'fee', category => 'fees') for qw(07 08 09 10 11 12);
# A monthly transfer to savings is not spending (rule D exclusions).
charge('Savings', "2025-$_-02", 500, category => 'transfers') for qw(07 08 09 10 11 12);
# Monthly rows with no merchant at all: no merchant, no subscription.
push @rows, { date => "2025-$_-08", description => "DIRECT DEBIT $_", amount => 20, transaction_type => 'debit' }
    for qw(07 08 09 10 11 12);
# A lapsed dear one (inactive on 2025-12-31) and active cheaper ones.
charge('Old Club', "2024-$_-03", 300) for qw(01 02 03 04 05 06);
# Spotify: statement rows, each also entered by hand and reconciled.
charge('Spotify', "2025-$_-21", 13.37) for qw(07 08 09 10 11 12);

ok_json($rig->post('/api/statements', { bank_name => 'Carol Card', account_type => 'Visa Credit Card',
    period_start => '2024-01-01', period_end => '2025-12-31', transactions => \@rows }, user => 'carol'),
    'carol: the statement');
my @manual = map { ok_json($rig->post('/api/transactions', { date => "2025-$_-21", amount => 13.37,
    description => "Spotify by hand $_", merchant => 'Spotify', category => 'subscriptions',
    payment_method => 'card' }, user => 'carol'), "manual Spotify $_")->{id} } qw(07 08 09 10 11 12);
my $pending = ok_json($rig->get('/api/reconcile?limit=500', user => 'carol'), 'reconcile list')->{pending} // [];
my @matches;
for my $m (@manual) {
    my ($p) = grep { $_->{transaction}{id} == $m } @$pending;
    push @matches, { manual_id => $m, statement_transaction_id => $p->{candidates}[0]{id} };
}
ok_json($rig->post('/api/reconcile', { matches => \@matches }, user => 'carol'), 'the six reconciled');

my $res = $rig->get('/api/analytics/subscriptions?as_of=2025-12-31', user => 'carol');
is($res->{status}, 200, 'GET /api/analytics/subscriptions?as_of=2025-12-31');
my @items = @{ $res->{json}{items} // [] };
sub subs_of { my ($m) = @_; [ grep { $_->{merchant} eq $m } @items ] }
sub one_of {
    my ($m) = @_;
    my $s = subs_of($m);
    return @$s == 1 ? $s->[0] : undef;
}

is((one_of('Edge Weekly') // {})->{cadence}, 'weekly', 'weekly: a gap of 5 days is one period (7 within 2 days)');
is((one_of('Skipper') // {})->{cadence}, 'monthly',
   'monthly with two gaps of three months: one to three periods count as missed charges');
is((one_of('Loose') // {})->{cadence}, 'monthly', '6 of 7 gaps (85.7%) one to three periods: at least 85% fits');
is((one_of('Sixty') // {})->{cadence}, 'monthly', 'exactly 60% of gaps one period: at least 60% fits');
is((one_of('Cent Apart') // {})->{cadence}, 'monthly',
   '10.00 and 11.51 are near (within 15% and a cent): one monthly subscription');
is((one_of('Stretched') // {})->{cadence}, 'monthly',
   'gaps of 68 days are two monthly periods: k periods within k times the tolerance');
is_deeply([ map { ($_->{cadence}, m2($_->{typical_amount})) } @{ subs_of('Steady Eighty') } ],
          [ 'monthly', '10.00' ], 'amounts near from one charge to the next at exactly 80% of the steps: steady');
is(m2((one_of('Median') // {})->{typical_amount}), '10.50',
   'typical_amount is the median of the last three charges (10.00, 11.00, 10.50), not the largest');
my $yearly = one_of('Yearly Two') // {};
is_deeply([ @$yearly{qw(cadence occurrences next_expected)} ], [ 'yearly', 2, '2026-06-01' ],
          'two yearly charges are a yearly subscription (2 for yearly)');
is_deeply([ sort map { $_->{cadence} . ' ' . m2($_->{typical_amount}) } @{ subs_of('Two Plans') } ],
          [ 'monthly 10.00', 'monthly 12.00' ], 'two plans 20% apart at one merchant stay two (15% chains)');
is_deeply([ map { ($_->{cadence}, $_->{occurrences}) } @{ subs_of('Bank Fee') } ], [ 'monthly', 6 ],
          'a monthly fee row counts: debit and fee rows are charges');
is_deeply(subs_of('Savings'), [], 'a monthly transfer (category transfers) is no subscription');
is_deeply(subs_of(''), [], 'rows with no merchant are no subscription (charges are grouped per merchant)');
is_deeply([ map { ($_->{occurrences}, $_->{first_date}) } @{ subs_of('Spotify') } ], [ 6, '2025-07-21' ],
          'reconciled manual rows are hidden: Spotify is its six statement rows, not twelve');

# Active first, then by annual cost, dearest first.
my $old = one_of('Old Club') // {};
ok(%$old && !$old->{active} && m2($old->{annual_cost}) eq '3600.00', 'Old Club: lapsed, 3600.00 a year');
my @key = map { [ $_->{active} ? 1 : 0, $_->{annual_cost} ] } @items;
my $sorted = 1;
for my $i (1 .. $#key) {
    $sorted = 0 if $key[$i][0] > $key[$i - 1][0]
                || ($key[$i][0] == $key[$i - 1][0] && $key[$i][1] > $key[$i - 1][1]);
}
ok($sorted && @key > 3, 'items: active ones first, then by annual cost, the dearest first')
    or diag(join ', ', map { "$_->{merchant}:" . ($_->{active} ? 'a' : 'i') . ":$_->{annual_cost}" } @items);

done_testing();
