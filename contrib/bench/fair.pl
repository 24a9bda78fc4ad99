#!/usr/bin/perl
# Fairness between users: other users' latency and 503s under a mixed load
# of small reads and writes while one user runs the largest job the API
# allows (a 100,000-row CSV commit, the merchant run naming those rows, a
# rule applied to them, its revert, apply-all running it again with the
# user's other rules, a statement of 100,000 rows, its delete, an OFX
# file of as many), beside the same load without it.
#
#   contrib/bench/fair.pl --build DIR --db LEDGER.db [--procs 4]
#                         [--clients 8] [--baseline SECONDS]
#
# nginx in front of --procs ledger-fcgi processes sharing one socket (as
# http.pl runs them), on a copy of a ledger-gen database (users user01 to
# user20).  --clients load processes each loop over user02..user20 at
# random: three in four requests a page of 20 transactions, one in four a
# small manual row created.  user01 runs the big jobs one after another.
# Printed: for the baseline window and each job's window, the other users'
# requests, p50, p99 and max in ms, and the 503s and other failures; the
# job's own time and status.  Target (issue 33): p99 under 250 ms and no
# 503 while any job runs.  Exit 3 when a job itself failed.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Getopt::Long;
use HTTP::Tiny;
use IO::Socket::INET;
use IO::Socket::UNIX;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);
use FindBin;
use lib $FindBin::Bin;
use BenchServe;

my ($build, $src_db, $procs, $clients, $baseline, $rows) = ('', '', 4, 8, 20, 100000);
GetOptions('build=s' => \$build, 'db=s' => \$src_db, 'procs=i' => \$procs, 'clients=i' => \$clients,
           'baseline=i' => \$baseline, 'rows=i' => \$rows)
    or die "usage: $0 --build DIR --db PATH [--procs N] [--clients N] [--baseline S]\n";
die "usage: $0 --build DIR --db PATH\n" unless -d $build && -f $src_db;
my $src = abs_path(dirname($0) . '/../..');
my ($dir, $port) = BenchServe::site('fair', $src_db, $src);
BenchServe::serve($dir, "$dir/ledger.sock", $procs, "$build/fcgi/ledger-fcgi", '--db', "$dir/ledger.db",
                  '--log-level', 'warn');
my $base = "http://127.0.0.1:$port";

sub call {
    my ($http, $user, $method, $path, $body, $type) = @_;
    my %o = (headers => { 'X-Bench-User' => $user });
    if (defined $body) {
        $o{content} = $body;
        $o{headers}{'Content-Type'} = $type // 'application/json';
    }
    return $http->request($method, "$base$path", \%o);
}

# Every user signs in once (the first request makes the user row).
{
    my $http = HTTP::Tiny->new(timeout => 60);
    for my $u (map { sprintf 'user%02d', $_ } 1 .. 20) {
        my $r = call($http, $u, 'GET', '/api/me');
        die "$u: $r->{status} $r->{content}\n" unless $r->{status} == 200;
    }
}

# The load: each client logs "start seconds, ms, status" a request.
my $stop = "$dir/stop";
my @load;
for my $c (1 .. $clients) {
    my $pid = fork // die;
    if ($pid == 0) {
        srand($c);
        my $http = HTTP::Tiny->new(timeout => 120, keep_alive => 1);
        open my $log, '>', "$dir/load-$c.log" or die;
        my $n = 0;
        until (-e $stop) {
            my $u = sprintf 'user%02d', 2 + int(rand 19);
            my $t0 = time;
            my $r = rand() < 0.75
                ? call($http, $u, 'GET', '/api/transactions?limit=20')
                : call($http, $u, 'POST', '/api/transactions',
                       sprintf('{"date":"2026-01-%02d","amount":%d.25,"description":"fair %d %d"}',
                               1 + $n % 28, 1 + $n % 90, $c, $n));
            printf $log "%.6f %.3f %d\n", $t0, 1000 * (time - $t0), $r->{status};
            $n++;
        }
        close $log;
        POSIX::_exit(0);
    }
    push @load, $pid;
}

# The big user's jobs, one after another, each timed.  The rows, each
# with $more in it.
my $commit_body = '{"allow_duplicates":true,"rows":[' . BenchServe::rows($rows, 'fairbench row') . ']}';
my $statement_body = '{"bank_name":"Fair Bank","account_type":"Visa Credit Card",'
                   . '"period_start":"2024-01-01","period_end":"2024-12-31","transactions":['
                   . BenchServe::rows($rows, 'fairbench row', ',"transaction_type":"debit"') . ']}';
# A card's OFX file of as many rows (other dates and texts than the
# statement's, so that none is taken for a row seen before).
my $ofx_file = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS>"
             . '<CCSTMTRS><CURDEF>AUD<CCACCTFROM><ACCTID>4000123412341234</CCACCTFROM>'
             . '<BANKTRANLIST><DTSTART>20230101<DTEND>20231231'
             . join('', map { sprintf('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>2023%02d%02d<TRNAMT>-%d.%02d'
                                      . '<FITID>FB%06d<NAME>FAIRBENCH SHOP %d</STMTTRN>',
                                      1 + $_ % 12, 1 + $_ % 28, 1 + $_ % 300, $_ % 100, $_, $_ % 400) }
                        0 .. $rows - 1)
             . '</BANKTRANLIST><LEDGERBAL><BALAMT>-100.00<DTASOF>20231231</LEDGERBAL>'
             . "</CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>\n";
my $rule_body = '{"name":"fair bench","conditions":[{"field":"description","operator":"contains",'
              . '"value":"fairbench"}],"actions":[{"type":"set_merchant","merchant_normalized":"Bench"}]}';
my $http = HTTP::Tiny->new(timeout => 600);
my $t_start = time;
sleep $baseline;
my @windows = (['no big job (baseline)', $t_start + 1, time, 200, 0]);
my ($rule_id, $run_id, $statement_id);
my @jobs = (
    ["CSV commit of $rows rows", sub { call($http, 'user01', 'POST', '/api/import/csv/commit', $commit_body) }],
    ["merchant run over $rows rows", sub { call($http, 'user01', 'POST', '/api/merchants/clean', '{}') }],
    ["rule apply over $rows rows", sub {
        my $r = call($http, 'user01', 'POST', '/api/rules', $rule_body);
        ($rule_id) = $r->{content} =~ /"id":\s*(\d+)/;
        return $r unless $r->{status} == 201 && $rule_id;
        $r = call($http, 'user01', 'POST', "/api/rules/apply/$rule_id", '{}');
        ($run_id) = $r->{content} =~ /"run_id":\s*(\d+)/;
        return $r;
    }],
    ["revert of that run", sub { call($http, 'user01', 'DELETE', "/api/rules/apply/" . ($run_id // 0)) }],
    ["apply-all (that rule again)", sub { call($http, 'user01', 'POST', '/api/rules/apply', '{}') }],
    ["statement of $rows rows", sub {
        my $r = call($http, 'user01', 'POST', '/api/statements', $statement_body);
        ($statement_id) = $r->{content} =~ /"id":\s*(\d+)/;
        return $r;
    }],
    ["delete of that statement", sub {
        call($http, 'user01', 'DELETE', "/api/statements/" . ($statement_id // 0))
    }],
    ["OFX file of $rows rows", sub { call($http, 'user01', 'POST', '/api/statements/import', $ofx_file,
                                          'application/x-ofx') }],
);
my $failed = 0;
for my $j (@jobs) {
    my ($name, $run) = @$j;
    my $t0 = time;
    my $r = $run->();
    my $t1 = time;
    push @windows, [$name, $t0, $t1, $r->{status}, $t1 - $t0];
    unless ($r->{status} =~ /^2/) {
        $failed = 1;
        print STDERR "fair.pl: $name: $r->{status} ", substr($r->{content} // '', 0, 300), "\n";
    }
    sleep 2;
}
open my $fh, '>', $stop or die;
close $fh;
waitpid($_, 0) for @load;

my @req;
for my $c (1 .. $clients) {
    open my $l, '<', "$dir/load-$c.log" or next;
    while (<$l>) { push @req, [split] }
}

sub pct {
    my ($p, @v) = @_;
    return @v ? $v[int($p * $#v + 0.5)] : 0;
}
printf "-- fairness: nginx, %d ledger-fcgi processes, %d load clients (user02..user20: 3/4 a page of 20,\n"
     . "   1/4 a manual row created), user01 runs the big jobs; target: p99 < 250 ms, no 503\n", $procs, $clients;
printf "  %-32s %8s %7s %7s %9s %9s %5s %6s\n", 'window', 'job s', 'status', 'reqs', 'p50 ms', 'p99 ms',
    '503', 'other';
for my $w (@windows) {
    my ($name, $t0, $t1, $status, $secs) = @$w;
    my @in = grep { $_->[0] >= $t0 && $_->[0] < $t1 } @req;
    my @ms = sort { $a <=> $b } map { $_->[1] } @in;
    my $busy = grep { $_->[2] == 503 } @in;
    my $other = grep { $_->[2] !~ /^(2\d\d|503)$/ } @in;
    printf "  %-32s %8s %7s %7d %9.1f %9.1f %5d %6d   max %.0f ms\n", $name,
        $secs ? sprintf('%.1f', $secs) : '-', $status, scalar @in, pct(0.5, @ms), pct(0.99, @ms),
        $busy, $other, @ms ? $ms[-1] : 0;
}
exit($failed ? 3 : 0);
