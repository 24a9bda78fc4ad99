#!/usr/bin/perl
# The demo ledger (README "Quick start", contrib/demo): make-demo writes
# the same bank export for the same seed and end date, and a different one
# for another seed; load-demo, as contrib/quickstart --demo runs it,
# imports a year of it with ledger-admin into a fresh database and sets
# its budgets through the service, after which the API shows what a
# newcomer should see at once: merchants, a category on most rows, a
# monthly Netflix subscription, budgets with the month's spend.  No
# network: everything runs on 127.0.0.1.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use Rig;
use CommonChecks qw(ok_json);

my $demo = Rig::srcdir() . '/contrib/demo';
my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
Rig::find_program('curl') or plan skip_all => 'curl not installed (load-demo uses it)';
my $dir = tempdir('ledger-demo-t-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# ==== the generator =================================================================
sub gen { my ($args) = @_; my $out = `'$demo/make-demo' $args`; is($?, 0, "make-demo $args"); $out }
my $a = gen('--seed 7 --end 2026-06-30');
is(gen('--seed 7 --end 2026-06-30'), $a, 'the same seed and end date: the same file, byte for byte');
isnt(gen('--seed 8 --end 2026-06-30'), $a, 'another seed: another file');
my @lines = split /\r\n/, $a;
is($lines[0], 'Date,Description,Amount', 'a bank export\'s header');
my @dates = map { m{^(\d\d)/(\d\d)/(\d{4}),} ? "$3-$2-$1" : 'bad' } @lines[1 .. $#lines];
ok(!grep({ $_ eq 'bad' } @dates), 'every row starts with a DD/MM/YYYY date');
is($dates[0], '2026-06-30', 'newest first, ending on --end') or diag($lines[1]);
cmp_ok($dates[-1], 'ge', '2025-06-30', 'a year of rows');
cmp_ok($dates[-1], 'le', '2025-07-07', '  from its start');
cmp_ok(scalar @dates, '>', 400, 'several hundred rows (' . scalar(@dates) . ')');
like($a, qr/^\d\d\/\d\d\/\d{4},"NETFLIX\.COM 866-579-7172 CA",-22\.99\r$/m, 'raw card text: Netflix with its phone');
like($a, qr/"SQ \*SEVEN SEEDS COFFEE +Newtown +AU"/, 'a wallet prefix and the fixed-width location');
like($a, qr/"SALARY [^"]*",3412\.55\r$/m, 'salary, money in');
like($a, qr/"AMAZON AU MARKETPLACE +SYDNEY SOUTH +AU",\d+\.\d\d\r$/m, 'a refund, money in');
like($a, qr/TOKYO +JP/, 'a trip abroad');
system("'$demo/make-demo' --months 0 >/dev/null 2>&1");
isnt($? >> 8, 0, 'a bad --months is refused');

# ==== the demo, loaded the way the quick-start loads it =================================
my $rig = Rig->new;
ok_json($rig->get('/api/me', user => 'alice'), 'alice signs in');   # load-demo needs the user
my $url = 'http://127.0.0.1:' . $rig->port;
my $out = `'$demo/load-demo' '$admin' '${\ $rig->db_path }' alice '$url' -u alice:alice-pw 2>&1`;
is($?, 0, 'load-demo imports the demo and sets its budgets') or diag($out);

my @rows;
my $cursor;
do {
    my $page = ok_json($rig->get('/api/transactions?limit=500' . ($cursor ? "&cursor=$cursor" : ''),
                                 user => 'alice'), 'rows');
    push @rows, @{ $page->{items} };
    $cursor = $page->{next_cursor};
} while ($cursor);
my $csv_rows = () = `'$demo/make-demo' --seed 1` =~ /\r\n/g;
# The transactions view hides transfers by default: the rows the bank
# wrote are all in, less those.
cmp_ok(scalar @rows, '>', 0.9 * ($csv_rows - 1), 'the year\'s rows are in alice\'s ledger (' . scalar(@rows) . ')');
# A CSV row keeps the name the preview gave it as its merchant.
sub merchant_of { my ($r) = @_; return $r->{merchant_normalized} // $r->{merchant} // "" }
my $named = grep { length merchant_of($_) } @rows;
cmp_ok($named / @rows, '>=', 0.95, sprintf('%.0f%% of the rows have a merchant', 100 * $named / @rows));
my $categorised = grep { defined $_->{category} } @rows;
cmp_ok($categorised / @rows, '>=', 0.6, sprintf('%.0f%% of the rows have a category', 100 * $categorised / @rows));
my %merchant = map { merchant_of($_) => 1 } @rows;
ok($merchant{$_}, "a row at $_") for 'Netflix', 'Seven Seeds Coffee', 'Woolworths';

my $ml = ok_json($rig->get('/api/merchants', user => 'alice'), 'merchants');
cmp_ok(scalar @{ $ml->{items} }, '>=', 10, '/api/merchants lists the demo\'s merchants');
my $am = ok_json($rig->get('/api/analytics/merchants', user => 'alice'), 'analytics');
cmp_ok(scalar @{ $am->{items} }, '>=', 10, '/api/analytics/merchants ranks them');
my $subs = ok_json($rig->get('/api/analytics/subscriptions', user => 'alice'), 'subscriptions');
my %sub = map { $_->{merchant} => $_ } @{ $subs->{items} };
is($sub{Netflix}{cadence}, 'monthly', 'a monthly Netflix subscription') or diag(explain($subs));
ok($sub{Netflix}{active}, '  active');
is($sub{'Disney Plus'}{cadence}, 'monthly', 'and Disney Plus');
my $b = ok_json($rig->get('/api/budgets', user => 'alice'), 'budgets');
my %budget = map { $_->{category} => $_ } @{ $b->{items} };
is(scalar keys %budget, 6, 'the six budgets');
cmp_ok($budget{groceries}{spent}, '>', 0, 'groceries with this month\'s spend') or diag(explain($b));
cmp_ok($budget{dining}{spent}, '>', 0, 'dining too');
# The second member: half the rent and the groceries is Sam's.
my @rent = grep { $_->{description} =~ /^RENT RAY WHITE/ } @rows;
my @shared = grep { grep({ ($_->{name} // '') eq 'Sam' && $_->{share_percent} == 50 } @{ $_->{splits} }) } @rent;
ok(@rent && @shared == @rent, 'every rent row is split half and half with Sam (' . scalar(@shared) . ')');
my @groceries = grep { ($_->{category} // '') eq 'groceries' } @rows;
ok(@groceries && !grep({ !@{ $_->{splits} } } @groceries), 'and every groceries row');
my $monthly = ok_json($rig->get('/api/analytics/monthly', user => 'alice'), 'monthly');
ok(scalar @{ $monthly->{months} // $monthly->{items} // [] }, 'the monthly report has months') or diag(explain($monthly));

done_testing();
