#!/usr/bin/perl
# Debian's sqlmap against the real stack on 127.0.0.1: every query
# parameter of the transaction list and the merchants list, and every field
# of the JSON bodies that create a transaction, a tag and a rule, at its
# default level and risk (boolean, error, union, stacked and time-based
# techniques).  It must find nothing injectable, and no request of its
# thousands may get a 5xx.
#
# Skipped when sqlmap is not installed (apt-get install sqlmap), and under
# valgrind, where its time-based probes would take hours.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use Rig;

my $sqlmap = Rig::find_program('sqlmap') or plan skip_all => 'sqlmap not installed (apt-get install sqlmap)';
plan skip_all => 'not under valgrind: sqlmap times its probes' if $ENV{LEDGER_VALGRIND};
my $rig = Rig->new;
my $base = 'http://127.0.0.1:' . $rig->port;
my $t = $rig->post('/api/transactions', { date => '2026-01-05', amount => 12.5, description => 'Coffee',
                                          merchant => 'Cafe', category => 'dining' }, user => 'alice');
is($t->{status}, 201, 'alice has a row to find') or diag($t->{content});
my $out_dir = tempdir('ledger-sqlmap-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# [what, url, JSON body or undef]
my @targets = (
    [ 'GET /api/transactions, every parameter',
      "$base/api/transactions?search=Coffee&categories=dining&exclude_categories=transfers"
      . "&bank_names=Manual&transaction_types=debit&amount_min=1&amount_max=100&date_from=2026-01-01"
      . "&date_to=2026-12-31&sort=date&order=desc&limit=10&q=coffee&has_split=all", undef ],
    [ 'GET /api/merchants', "$base/api/merchants?search=Cafe&limit=10", undef ],
    [ 'POST /api/transactions, every field', "$base/api/transactions",
      '{"date":"2026-01-06","amount":3.5,"description":"Tea","merchant":"Teahouse","category":"dining",'
      . '"payment_method":"card","transaction_type":"debit"}' ],
    [ 'POST /api/tags', "$base/api/tags", '{"name":"probe","color":"#336699"}' ],
    [ 'POST /api/rules', "$base/api/rules",
      '{"name":"probe","conditions":[{"field":"description","operator":"contains","value":"Tea"}],'
      . '"actions":[{"type":"set_category","category":"dining"}]}' ],
);
for my $target (@targets) {
    my ($what, $url, $body) = @$target;
    my @cmd = ($sqlmap, '-u', $url, '--batch', '--level=1', '--risk=1', '--flush-session',
               '--auth-type=Basic', '--auth-cred=alice:alice-pw', '--output-dir', $out_dir,
               '--disable-coloring', '--time-sec=2', '--threads=1');
    push @cmd, '--data', $body, '--headers', 'Content-Type: application/json' if defined $body;
    my $out = qx{@{[ join ' ', map { quotemeta } @cmd ]} 2>&1};
    my ($tested) = scalar(() = $out =~ /testing '/g);
    # sqlmap's verdict, after its own false-positive check: a field that
    # comes back in the answer (a rule's condition value does) can look
    # like boolean-based blind at first, and sqlmap then rules it out.
    unlike($out, qr/sqlmap identified the following injection|is vulnerable/,
           "$what: nothing injectable ($tested tests)") or diag($out);
    like($out, qr/do not appear to be injectable|not injectable|all tested parameters/,
         "$what: sqlmap finished its tests") or diag(substr($out, -2000));
}
my @fives = grep { / 5\d\d \d+us$/ } split /\n/, $rig->fcgi_log;
is(scalar @fives, 0, 'no request of sqlmap\'s got a 5xx') or diag(join "\n", @fives[0 .. 9]);
my $requests = () = $rig->fcgi_log =~ /^.* req=/mg;
diag("sqlmap sent $requests requests; none injectable, none a 5xx");
done_testing();
