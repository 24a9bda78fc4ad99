#!/usr/bin/perl
# Memory per request: the peak RSS a large body costs ledger-fcgi, beside
# the body's size.  One process behind nginx, on a copy of a ledger-gen
# database.
#
#   contrib/bench/memory.pl --build DIR --db LEDGER.db [--rows 100000]
#
# Four bodies, each sent once to a process of its own, and its rise of
# VmHWM (the process's peak resident memory) over what the process held
# before is the figure.  Before it every user's ledger is exported: that
# fills SQLite's page cache to its cache_size (64 MiB), which is the
# connection's whatever the request, so that the rise is the request's
# own (and a fresh process, that no earlier request's freed memory is
# reused unseen).
#   - a statement and a CSV commit of --rows rows each (the largest bodies
#     the API takes);
#   - 16 MiB of small values ([0,0,...], the most a body may be: past
#     LEDGER_JSON_MAX_VALUES, 413);
#   - an object of 500,000 keys (past LEDGER_JSON_MAX_MEMBERS, 413).
# Target (issue 33): each under 4 times its body.  Exit 1 when a request
# answered otherwise than expected.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Getopt::Long;
use HTTP::Tiny;
use FindBin;
use lib $FindBin::Bin;
use BenchServe;

my ($build, $src_db, $rows) = ('', '', 100000);
GetOptions('build=s' => \$build, 'db=s' => \$src_db, 'rows=i' => \$rows)
    or die "usage: $0 --build DIR --db PATH [--rows N]\n";
die "usage: $0 --build DIR --db PATH\n" unless -d $build && -f $src_db;
my $src = abs_path(dirname($0) . '/../..');
my ($dir, $port) = BenchServe::site('memory', $src_db, $src);
my $pid;
my $http = HTTP::Tiny->new(timeout => 600);

sub post {
    my ($path, $body) = @_;
    return $http->request('POST', "http://127.0.0.1:$port$path",
                          { content => $body, headers => { 'X-Bench-User' => 'user01',
                                                           'Content-Type' => 'application/json' } });
}

sub hwm_kib {
    open my $fh, '<', "/proc/$pid/status" or die "/proc/$pid/status: $!";
    while (<$fh>) { return $1 if /^VmHWM:\s+(\d+)/ }
    return 0;
}

my @bodies = (
    ["statement of $rows rows", '/api/statements',
     '{"bank_name":"Memory Bank","account_type":"Visa Credit Card","period_start":"2024-01-01",'
     . '"period_end":"2024-12-31","transactions":['
     . BenchServe::rows($rows, 'memory row', ',"transaction_type":"debit"') . ']}', 201],
    ["CSV commit of $rows rows", '/api/import/csv/commit',
     '{"allow_duplicates":true,"rows":[' . BenchServe::rows($rows, 'memory row') . ']}', 201],
    # 16 MiB less a byte: the most max_body_bytes lets through.
    ['16 MiB of small values', '/api/transactions', '[' . join(',', (0) x (8 * 1024 * 1024 - 1)) . ']', 413],
    ['an object of 500,000 keys', '/api/transactions',
     '{' . join(',', map { "\"k$_\":0" } 1 .. 500000) . '}', 413],
);
# A new ledger-fcgi, its page cache filled.
sub fresh_process {
    BenchServe::stop($pid) if $pid;
    ($pid) = BenchServe::serve($dir, "$dir/ledger.sock", 1, "$build/fcgi/ledger-fcgi", '--db',
                               "$dir/ledger.db", '--log-level', 'warn');
    for my $u (1 .. 20) {
        $http->request('GET', "http://127.0.0.1:$port/api/export?format=json",
                       { headers => { 'X-Bench-User' => sprintf('user%02d', $u) } });
    }
}

my $failed = 0;
printf "-- memory per request: one ledger-fcgi, its page cache filled first; target: under 4x the body\n";
printf "  %-28s %9s %7s %13s %13s %7s\n", 'body', 'MiB', 'status', 'peak before', 'peak after', 'x body';
for my $b (@bodies) {
    my ($name, $path, $body, $want) = @$b;
    fresh_process();
    my $before = hwm_kib();
    my $r = post($path, $body);
    my $after = hwm_kib();
    $failed ||= $r->{status} != $want;
    printf "  %-28s %9.1f %7d %10.1f MiB %10.1f MiB %7.2f\n", $name, length($body) / 1048576,
        $r->{status}, $before / 1024, $after / 1024, ($after - $before) * 1024 / length($body);
}
exit($failed ? 1 : 0);
