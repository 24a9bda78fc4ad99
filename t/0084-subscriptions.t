#!/usr/bin/perl
# Recurring charges through nginx: GET /api/analytics/subscriptions (API.md
# section 8 and etc/openapi.yaml): the cadences (weekly to yearly) and their
# tolerances, missed charges, the minimum counts, price changes, typical
# amounts, next_expected and active as of a day, annual costs, the order of
# the items, and scoping.
#
# Who is who: carol holds generated histories of real subscriptions; bob
# pays Netflix too (never carol's); dave holds one merchant per detection
# rule; erin the minimum counts and dates on the 30th; alice has nothing.
use strict;
use warnings;
use Test::More;
use POSIX qw(strftime);
use Time::Local qw(timegm);
use Rig;
use CommonChecks qw(error_is ok_json manual_ok statement_ok srow m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

# ---- helpers ------------------------------------------------------------------

# A statement of $user with rows; returns the created statement.
sub statement { statement_ok($rig, @_) }

# charge(\@rows, $merchant, $date, $amount, [type => , category => ]):
# adds a charge (a debit of category subscriptions unless told) to @rows;
# returns its date.
sub charge {
    my ($rows, $merchant, $date, $amount, %o) = @_;
    push @$rows, { date => $date, description => "$merchant $date", merchant => $merchant, amount => $amount,
                   transaction_type => $o{type} // 'debit', category => $o{category} // 'subscriptions' };
    return $date;
}

# Dates as days since 1970-01-01 and back.
sub days_of { my ($y, $m, $d) = split /-/, $_[0]; int(timegm(0, 0, 0, $d, $m - 1, $y) / 86400) }
sub date_of { strftime('%Y-%m-%d', gmtime($_[0] * 86400)) }
sub add_days { date_of(days_of($_[0]) + $_[1]) }
# A date on a Saturday or Sunday moves to the Monday after.
sub weekday_slide {
    my ($date) = @_;
    my $d = days_of($date);
    $d++ while (gmtime($d * 86400))[6] == 0 || (gmtime($d * 86400))[6] == 6;
    return date_of($d);
}

sub subscriptions {
    my ($user, $as_of) = @_;
    my $res = $rig->get("/api/analytics/subscriptions?as_of=$as_of", user => $user);
    is($res->{status}, 200, "GET /api/analytics/subscriptions?as_of=$as_of as $user") or diag($res->{content});
    return $res->{json}{items} // [];
}
# A subscription by merchant and typical amount (Apple has two).
sub find_sub {
    my ($items, $merchant, $typical) = @_;
    my @m = grep { $_->{merchant} eq $merchant } @$items;
    @m = grep { m2($_->{typical_amount}) eq $typical } @m if @m > 1;
    return $m[0];
}

# ==== alice: no rows, no subscriptions ==========================================================
is_deeply(subscriptions('alice', '2025-12-22'), [], 'alice: no subscriptions');
error_is($rig->get('/api/analytics/subscriptions', open => 1), 401, 'unauthenticated',
         'GET /api/analytics/subscriptions with no identity');

# ==== carol: generated histories =============================================================
# Generated histories, all debit statement rows of carol:
#   Netflix   monthly on the 1st of 2025, moved to Monday when on a weekend,
#             May missed, 15.99 to June then 17.99: 01-01 02-03 03-03 04-01
#             06-02 | 07-01 08-01 09-01 10-01 11-03 12-01 (11 charges)
#             -> typical 17.99 (the price now), next 2026-01-01, annual 215.88
#   Stan      12.00 monthly on the 3rd of 2025, weekend -> Monday (05-03 is
#             a Saturday: 05-05; 08-03 a Sunday: 08-04); 12 charges,
#             next 2026-01-03, annual 144.00
#   Gym       9.50 weekly from Monday 2025-09-01, 16 charges: last 2025-12-15,
#             next 2025-12-22 (+7), annual 9.50 x 52 = 494.00
#   Cleaner   120.00 fortnightly from 2025-07-11, 12 charges: last 2025-12-12
#             (07-11 + 154 days), next 2025-12-26, annual 120 x 26 = 3120.00
#   Insurer   210.00 quarterly on the 15th of Jan/Apr/Jul/Oct 2024-2025, 8
#             charges: next 2026-01-15, annual 840.00
#   Domains   25.00 yearly on 03-10 of 2023, 2024, 2025: next 2026-03-10,
#             annual 25.00
#   Apple     4.49 monthly on the 7th of 2025 (12; next 2026-01-07; annual
#             53.88) and 14.99 monthly on the 20th from March (10; next
#             2026-01-20; annual 179.88): two subscriptions at one merchant
#   Magazine  8.00 monthly on the 5th, 2024-06 .. 2025-03 (10): lapsed,
#             next 2025-04-05, annual 96.00
#   Concert Hall  one charge of 180.00: not a subscription
#   Corner Store  16 charges, gaps of 3-40 days, amounts 7.85-64.35: not one
my @sub_rows;
my @netflix = map { charge(\@sub_rows, 'Netflix', weekday_slide(sprintf('2025-%02d-01', $_)), $_ <= 6 ? 15.99 : 17.99) }
              grep { $_ != 5 } 1 .. 12;
die "generator: @netflix" unless "@netflix" eq '2025-01-01 2025-02-03 2025-03-03 2025-04-01 2025-06-02 '
    . '2025-07-01 2025-08-01 2025-09-01 2025-10-01 2025-11-03 2025-12-01';
my @stan = map { charge(\@sub_rows, 'Stan', weekday_slide(sprintf('2025-%02d-03', $_)), 12) } 1 .. 12;
die "generator: @stan" unless $stan[4] eq '2025-05-05' && $stan[7] eq '2025-08-04' && $stan[11] eq '2025-12-03';
charge(\@sub_rows, 'Gym', add_days('2025-09-01', 7 * $_), 9.5) for 0 .. 15;
charge(\@sub_rows, 'Cleaner', add_days('2025-07-11', 14 * $_), 120) for 0 .. 11;
charge(\@sub_rows, 'Insurer', "$_->[0]-$_->[1]-15", 210) for map { my $y = $_; map { [$y, $_] } qw(01 04 07 10) } 2024, 2025;
charge(\@sub_rows, 'Domains', "$_-03-10", 25) for 2023 .. 2025;
charge(\@sub_rows, 'Apple', sprintf('2025-%02d-07', $_), 4.49) for 1 .. 12;
charge(\@sub_rows, 'Apple', sprintf('2025-%02d-20', $_), 14.99) for 3 .. 12;
charge(\@sub_rows, 'Magazine', $_, 8) for (map { sprintf('2024-%02d-05', $_) } 6 .. 12), (map { sprintf('2025-%02d-05', $_) } 1 .. 3);
charge(\@sub_rows, 'Concert Hall', '2025-08-08', 180);
{
    my @gaps = (12, 3, 27, 40, 8, 19, 5, 33, 14, 22, 4, 36, 10, 17, 29);
    my @amounts = (23.10, 7.85, 41.00, 12.60, 64.35, 18.20, 9.99, 35.50, 27.75, 15.40, 52.80, 11.25,
                   30.05, 46.90, 8.40, 21.65);
    my $d = '2025-01-04';
    for my $i (0 .. $#amounts) {
        charge(\@sub_rows, 'Corner Store', $d, $amounts[$i]);
        $d = add_days($d, $gaps[$i]) if $i < @gaps;
    }
}
statement('carol', bank_name => 'Carol Card', period_start => '2023-01-01', period_end => '2025-12-31',
          transactions => \@sub_rows);
# bob also pays Netflix (the same merchant, other dates): never carol's.
statement('bob', bank_name => 'Bob Card', period_start => '2025-01-01', period_end => '2025-12-31',
          transactions => [ map { srow(sprintf('2025-%02d-15', $_), 'debit', 22.99, 'subscriptions', 'Netflix') } 1 .. 12 ]);

# merchant, typical, cadence, occurrences, first, last, next, annual
my @expect = (
    ['Netflix', '17.99', 'monthly', 11, '2025-01-01', '2025-12-01', '2026-01-01', '215.88'],
    ['Stan', '12.00', 'monthly', 12, '2025-01-03', '2025-12-03', '2026-01-03', '144.00'],
    ['Gym', '9.50', 'weekly', 16, '2025-09-01', '2025-12-15', '2025-12-22', '494.00'],
    ['Cleaner', '120.00', 'fortnightly', 12, '2025-07-11', '2025-12-12', '2025-12-26', '3120.00'],
    ['Insurer', '210.00', 'quarterly', 8, '2024-01-15', '2025-10-15', '2026-01-15', '840.00'],
    ['Domains', '25.00', 'yearly', 3, '2023-03-10', '2025-03-10', '2026-03-10', '25.00'],
    ['Apple', '4.49', 'monthly', 12, '2025-01-07', '2025-12-07', '2026-01-07', '53.88'],
    ['Apple', '14.99', 'monthly', 10, '2025-03-20', '2025-12-20', '2026-01-20', '179.88'],
    ['Magazine', '8.00', 'monthly', 10, '2024-06-05', '2025-03-05', '2025-04-05', '96.00'],
);

my $subs = subscriptions('carol', '2025-12-22');
is_deeply([sort map { $_->{merchant} } @$subs], [sort map { $_->[0] } @expect],
          'the nine subscriptions and nothing else (not the one-off, not the irregular store)');
for my $e (@expect) {
    my ($merchant, $typical, @want) = @$e;
    my $s = find_sub($subs, $merchant, $typical);
    is_deeply($s && [$s->{cadence}, $s->{occurrences}, $s->{first_date}, $s->{last_date}, $s->{next_expected},
                     m2($s->{annual_cost}), m2($s->{typical_amount})],
              [@want, $typical], "$merchant $typical: cadence, occurrences, first, last, next, annual, typical");
}
ok(!grep({ $_->{merchant} eq 'Corner Store' || $_->{merchant} eq 'Concert Hall' } @$subs),
   'an irregular merchant and a one-off are not subscriptions');
# Active: just after the last charge, yes; on 2025-12-22 all but the lapsed
# magazine (expected 2025-04-05, eight months late).
is_deeply({ map { ("$_->{merchant} " . m2($_->{typical_amount})) => ($_->{active} ? 1 : 0) } @$subs },
          { map { ("$_->[0] $_->[1]") => ($_->[0] eq 'Magazine' ? 0 : 1) } @expect },
          'on 2025-12-22 all are active but the magazine');
for my $e (@expect) {
    my $as_of = add_days($e->[5], 1);
    my $s = find_sub(subscriptions('carol', $as_of), $e->[0], $e->[1]);
    ok($s && $s->{active}, "$e->[0] $e->[1] is active on $as_of, the day after its last charge");
}
# 2026-01-05: the weekly gym has missed 12-22 and 12-29: lapsed; Netflix,
# due 2026-01-01, is only four days late.
$subs = subscriptions('carol', '2026-01-05');
ok(!(find_sub($subs, 'Gym', '9.50') // { active => 1 })->{active}, 'on 2026-01-05 the weekly gym is no longer active');
ok((find_sub($subs, 'Netflix', '17.99') // {})->{active}, 'but monthly Netflix, four days late, still is');
# The grace ends: Netflix, due 2026-01-01 with ten days' grace, is active
# on 2026-01-10 and not on 2026-01-11 ("before next_expected plus").
ok((find_sub(subscriptions('carol', '2026-01-10'), 'Netflix', '17.99') // {})->{active},
   'Netflix is active on the last day before its grace ends');
ok(!(find_sub(subscriptions('carol', '2026-01-11'), 'Netflix', '17.99') // { active => 1 })->{active},
   'and not on the day it ends');
# As of a past day: only the charges known then.
$subs = subscriptions('carol', '2025-06-02');
my $early = find_sub($subs, 'Netflix', '15.99');
is_deeply($early && [ $early->{occurrences}, $early->{last_date}, $early->{next_expected}, m2($early->{typical_amount}) ],
          [ 5, '2025-06-02', '2025-07-02', '15.99' ], 'as of 2025-06-02, Netflix has its five charges to then, at 15.99');
ok(!find_sub($subs, 'Gym', '9.50'), 'and the gym, first charged in September, is not there yet');
is_deeply(subscriptions('carol', '2020-01-01'), [], 'as of 2020, before any charge, there are none');
# Long after: nothing is active, and they are all still reported.
$subs = subscriptions('carol', '2027-06-01');
is(scalar @$subs, 9, 'in 2027 the nine are still reported');
ok(!grep({ $_->{active} } @$subs), 'none of them active');
# bob's Netflix is his alone: 12 charges of 22.99 on the 15th.
$subs = subscriptions('bob', '2025-12-22');
my $bn = find_sub($subs, 'Netflix', '22.99');
is_deeply($bn && [$bn->{occurrences}, $bn->{first_date}, m2($bn->{typical_amount})], [12, '2025-01-15', '22.99'],
          "bob's Netflix is his own charges only");
is(scalar(grep { $_->{merchant} eq 'Netflix' } @$subs), 1, "and carol's Netflix is not bob's");
error_is($rig->get('/api/analytics/subscriptions?as_of=2025-02-30', user => 'carol'), 400, 'invalid_field',
         'as_of 2025-02-30', 'as_of');
error_is($rig->get('/api/analytics/subscriptions?as_of=yesterday', user => 'carol'), 400, 'invalid_field',
         'as_of yesterday', 'as_of');
is($rig->get('/api/analytics/subscriptions', user => 'carol')->{status}, 200, 'as_of defaults to today');

# ==== dave: one merchant per detection rule ====================================================
# Each merchant below is one rule of the detection (etc/openapi.yaml):
# the period tolerances, missed charges, the shares of gaps that fit,
# amounts near enough, steadiness, the median, what a charge is, hidden
# reconciled rows and the order of the items.
my @rows;
# Weekly at the lower edge of "within 2 days": every 5 days.
charge(\@rows, 'Edge Weekly', add_days('2025-11-01', 5 * $_), 7) for 0 .. 5;
# Monthly with two gaps of three months (missed charges): 5 of 7 gaps one period.
charge(\@rows, 'Skipper', "2025-$_-10", 8) for qw(01 02 03 04 07 08 09 12);
# Monthly, one gap of five months: 6 of 7 gaps are 1-3 periods (85.7%, at least 85%).
charge(\@rows, 'Loose', "2025-$_-12", 9) for qw(01 02 03 04 05 06 11 12);
# Monthly, gaps 1,2,1,2,1 months: exactly 60% of gaps are one period.
charge(\@rows, 'Sixty', "2025-$_-14", 6) for qw(01 02 04 05 07 08);
# Steady at exactly 80%: 10, 11, 12.50, 10, 10, 10 (one step of five jumps).
my @steady = (10, 11, 12.5, 10, 10, 10);
charge(\@rows, 'Steady Eighty', sprintf('2025-%02d-16', $_ + 6), $steady[$_ - 1]) for 1 .. 6;
# typical_amount: the median of the last three (10.00, 11.00, 10.50 -> 10.50).
my @median = (10, 10, 10, 11, 10.5);
charge(\@rows, 'Median', sprintf('2025-%02d-18', $_ + 7), $median[$_ - 1]) for 1 .. 5;
# Monthly with two gaps of 68 days: two periods within twice the tolerance
# (60.9 +/- 9 days); 5 of 7 gaps one period, so only with those two is it
# 85% one to three periods.  (68 days is no three periods: 91.3 -/+ 13.5.)
{
    my $d = '2025-01-10';
    for my $gap (0, 31, 30, 68, 31, 68, 30, 31) {
        $d = add_days($d, $gap);
        charge(\@rows, 'Stretched', $d, 15);
    }
}
# Monthly alternating 10.00 and 11.51: 15% and a cent apart, one chain.
charge(\@rows, 'Cent Apart', "2025-$_-24", $_ % 2 ? 10 : 11.51) for qw(01 02 03 04 05 06);
# Yearly: two charges make one.
charge(\@rows, 'Yearly Two', $_, 99) for '2024-06-01', '2025-06-01';
# Two plans 20% apart at one merchant are two subscriptions.
charge(\@rows, 'Two Plans', "2025-$_-05", 10) for qw(01 02 03 04 05 06 07 08 09 10 11 12);
charge(\@rows, 'Two Plans', "2025-$_-20", 12) for qw(01 02 03 04 05 06 07 08 09 10 11 12);
# A monthly account fee (type fee) is a recurring charge.
charge(\@rows, 'Bank Fee', "2025-$_-28", 5, type => 'fee', category => 'fees') for qw(07 08 09 10 11 12);
# A monthly transfer to savings is not spending (rule D exclusions).
charge(\@rows, 'Savings', "2025-$_-02", 500, category => 'transfers') for qw(07 08 09 10 11 12);
# Monthly rows with no merchant at all: no merchant, no subscription.
push @rows, { date => "2025-$_-08", description => "DIRECT DEBIT $_", amount => 20, transaction_type => 'debit' }
    for qw(07 08 09 10 11 12);
# A lapsed dear one (inactive on 2025-12-31) and active cheaper ones.
charge(\@rows, 'Old Club', "2024-$_-03", 300) for qw(01 02 03 04 05 06);
# Spotify: statement rows, each also entered by hand and reconciled.
charge(\@rows, 'Spotify', "2025-$_-21", 13.37) for qw(07 08 09 10 11 12);

ok_json($rig->post('/api/statements', { bank_name => 'Dave Card', account_type => 'Visa Credit Card',
    period_start => '2024-01-01', period_end => '2025-12-31', transactions => \@rows }, user => 'dave'),
    'dave: the statement');
my @manual = map { ok_json($rig->post('/api/transactions', { date => "2025-$_-21", amount => 13.37,
    description => "Spotify by hand $_", merchant => 'Spotify', category => 'subscriptions',
    payment_method => 'card' }, user => 'dave'), "manual Spotify $_")->{id} } qw(07 08 09 10 11 12);
my $pending = ok_json($rig->get('/api/reconcile?limit=500', user => 'dave'), 'reconcile list')->{pending} // [];
my @matches;
for my $m (@manual) {
    my ($p) = grep { $_->{transaction}{id} == $m } @$pending;
    push @matches, { manual_id => $m, statement_transaction_id => $p->{candidates}[0]{id} };
}
ok_json($rig->post('/api/reconcile', { matches => \@matches }, user => 'dave'), 'the six reconciled');

my $res = $rig->get('/api/analytics/subscriptions?as_of=2025-12-31', user => 'dave');
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

# ==== erin: the minimum counts ====================================================================
# A monthly charge seen three times is a subscription; a weekly one needs
# four.
{
    my %charges = (
        'Tri Monthly' => [ 9.99, '2025-01-10', '2025-02-10', '2025-03-10' ],
        'Three Weeks' => [ 5, '2025-03-03', '2025-03-10', '2025-03-17' ],
        'Four Weeks'  => [ 5, '2025-03-03', '2025-03-10', '2025-03-17', '2025-03-24' ],
    );
    for my $m (sort keys %charges) {
        my ($amount, @dates) = @{ $charges{$m} };
        manual_ok($rig, 'erin', date => $_, description => "$m $_", merchant => $m, amount => $amount,
               transaction_type => 'debit', category => 'subscriptions') for @dates;
    }
    # A weekly shop of 40 to 79 chains by amount (each within 15% of the
    # next larger) but jumps from week to week: not a subscription.  A
    # price that rose twice, steady between, still is one.
    my @shop = (52, 40, 69, 45, 79, 48, 62, 55, 60);
    manual_ok($rig, 'erin', date => sprintf('2025-01-%02d', 6 + 7 * $_), description => "Weekly shop $_", merchant => 'Woolies',
           amount => $shop[$_], transaction_type => 'debit', category => 'groceries') for 0 .. 3;
    manual_ok($rig, 'erin', date => sprintf('2025-02-%02d', 3 + 7 * ($_ - 4)), description => "Weekly shop $_",
           merchant => 'Woolies', amount => $shop[$_], transaction_type => 'debit', category => 'groceries') for 4 .. 7;
    manual_ok($rig, 'erin', date => '2025-03-03', description => 'Weekly shop 8', merchant => 'Woolies', amount => $shop[8],
           transaction_type => 'debit', category => 'groceries');
    my @rises = (10, 10, 10, 11, 11, 11, 12, 12, 12);
    manual_ok($rig, 'erin', date => sprintf('2024-%02d-05', $_ + 1), description => "Streamer $_", merchant => 'Streamer',
           amount => $rises[$_], transaction_type => 'debit', category => 'subscriptions') for 0 .. 8;
    my $res = $rig->get('/api/analytics/subscriptions?as_of=2025-03-25', user => 'erin');
    is($res->{status}, 200, 'GET subscriptions as of 2025-03-25') or diag($res->{content});
    my %by = map { $_->{merchant} => $_ } @{ $res->{json}{items} // [] };
    is_deeply([ map { $_ && [ $_->{cadence}, $_->{occurrences} ] } $by{'Tri Monthly'} ], [ [ 'monthly', 3 ] ],
              'subscriptions: three monthly charges are a monthly subscription');
    ok(!exists $by{'Three Weeks'}, 'subscriptions: three weekly charges are not yet a subscription');
    is_deeply([ map { $_ && [ $_->{cadence}, $_->{occurrences} ] } $by{'Four Weeks'} ], [ [ 'weekly', 4 ] ],
              'subscriptions: four weekly charges are a weekly subscription');
    ok(!exists $by{Woolies}, 'subscriptions: a weekly shop whose amount jumps about is not one')
        or diag(explain $by{Woolies});
    is_deeply([ map { $_ && [ $_->{cadence}, $_->{occurrences}, m2($_->{typical_amount}) ] } $by{Streamer} ],
              [ [ 'monthly', 9, '12.00' ] ], 'subscriptions: a price that rose twice is still one subscription');
}

{
# ==== erin: dates on the 30th ===================================================================
# A subscription's first, last and next charge keep the 30th.
    my @thirty = map { { date => sprintf('2025-%02d-30', $_), description => "Gym 2025-$_", merchant => 'Gym Thirty',
                       amount => 30, transaction_type => 'debit', category => 'subscriptions' } } 3 .. 12;
    my $res = $rig->post('/api/statements', { bank_name => 'Erin Card', account_type => 'Visa Credit Card',
                                           period_start => '2025-01-01', period_end => '2025-12-31',
                                           transactions => \@thirty }, user => 'erin');
    is($res->{status}, 201, 'erin: a statement of ten charges on the 30th') or diag($res->{content});
    $res = $rig->get('/api/analytics/subscriptions?as_of=2025-12-31', user => 'erin');
    my ($gym) = grep { $_->{merchant} eq 'Gym Thirty' } @{ $res->{json}{items} // [] };
    is_deeply([ @{ $gym // {} }{qw(cadence first_date last_date next_expected)} ],
              [ 'monthly', '2025-03-30', '2025-12-30', '2026-01-30' ],
              'a subscription on the 30th: its dates keep the 30th');
}

done_testing();
