#!/usr/bin/perl
# The HTTP half of the benchmark: the real stack (nginx or Apache httpd in
# front of ledger-fcgi on a unix socket, 1 and then 2 processes sharing it)
# under load from wrk on 127.0.0.1, beside two ceilings measured in the
# same run: an empty FastCGI responder (contrib/bench/empty-fcgi, the same
# accept loop answering a fixed body) behind the same web server and
# process count, and the in-process time of the library call behind each
# endpoint and of the SQLite statements within it (ledger-libbench
# --families, on its own copy of the ledger, with the same bodies).  The
# empty responder also answers the first page's own bytes, for what the
# page costs beyond carrying them.
#
#   contrib/bench/http.pl --build DIR --db LEDGER.db [--server nginx|apache]
#                         [--duration SECONDS] [--connections N] [--procs 1,2]
#                         [--runs N]
#
# It works on a copy of the database (the write endpoints add rows) as the
# generated user01.  For each endpoint family it prints the medians over
# --runs wrk runs (default 3) of requests/s and p50 and p99 latency, the
# share of the empty responder's requests/s, the library's p50 and
# SQLite's p50 for one call and their ratio, and the peak RSS of the
# ledger-fcgi processes.  Targets: a page of 50 transactions at 50% or more
# of the empty responder's requests/s; library time within 2x of SQLite's;
# the same page with If-None-Match of its tag (a 304) at 50% or more.
use strict;
use warnings;
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use Getopt::Long;
use HTTP::Tiny;
use IO::Socket::INET;
use IO::Socket::UNIX;
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep);
use FindBin;
use lib $FindBin::Bin;
use BenchServe;

my ($build, $src_db, $server, $duration, $conns, $procs_list, $runs) = ('', '', 'nginx', 5, 16, '1,2', 3);
GetOptions('build=s' => \$build, 'db=s' => \$src_db, 'server=s' => \$server,
           'duration=i' => \$duration, 'connections=i' => \$conns, 'procs=s' => \$procs_list,
           'runs=i' => \$runs)
    or die "usage: $0 --build DIR --db PATH [--server nginx|apache]\n";
die "usage: $0 --build DIR --db PATH\n" unless -d $build && -f $src_db;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
my $src = abs_path(dirname($0) . '/../..');
my $dir = tempdir('ledger-bench-XXXXXX', TMPDIR => 1, CLEANUP => 1);
chmod 0711, $dir;
# A write by POST is JSON even with nothing to say (the service refuses
# the types a cross-site form can send).
{
    open my $fh, '>', "$dir/empty.json" or die "$dir/empty.json: $!";
    print $fh "{}\n";
    close $fh;
}
my $root = $> == 0;

sub free_port { BenchServe::free_port() }
sub serve { BenchServe::serve($dir, @_) }
sub stop { BenchServe::stop(@_) }

sub web_server {
    my ($port) = @_;
    my $user = $root ? 'www-data' : '';
    if ($server eq 'apache') {
        my $mods = join '', map { "LoadModule ${_}_module /usr/lib/apache2/modules/mod_$_.so\n" }
            qw(mpm_event authz_core proxy proxy_fcgi env);
        open my $fh, '>', "$dir/httpd.conf" or die;
        print $fh $mods, <<"CONF";
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/httpd.pid
ErrorLog $dir/apache-error.log
DefaultRuntimeDir $dir
Mutex file:$dir default
@{[ $user ? "User $user\nGroup $user" : '' ]}
<Location "/api/">
    SetEnv REMOTE_USER user01
    SetHandler "proxy:unix:$dir/ledger.sock|fcgi://localhost/"
</Location>
<Location "/empty/">
    SetHandler "proxy:unix:$dir/empty.sock|fcgi://localhost/"
</Location>
<Location "/empty-page/">
    SetHandler "proxy:unix:$dir/empty-page.sock|fcgi://localhost/"
</Location>
CONF
        close $fh;
        my $pid = fork // die;
        if ($pid == 0) {
            open STDOUT, '>', '/dev/null';
            open STDERR, '>>', "$dir/httpd.err";
            exec 'apache2', '-f', "$dir/httpd.conf", '-DFOREGROUND' or POSIX::_exit(127);
        }
        push @BenchServe::kids, $pid;
        return $pid;
    }
    return BenchServe::nginx($dir, $port, '', <<"LOC");
        location /api/ {
            include $src/etc/nginx-fastcgi-params.conf;
            fastcgi_param REMOTE_USER user01;
            fastcgi_pass unix:$dir/ledger.sock;
            fastcgi_keep_conn off;
        }
        location /empty/ {
            include $src/etc/nginx-fastcgi-params.conf;
            fastcgi_pass unix:$dir/empty.sock;
        }
        location /empty-page/ {
            include $src/etc/nginx-fastcgi-params.conf;
            fastcgi_pass unix:$dir/empty-page.sock;
        }
LOC
}

# wrk's latency ("812.00us", "1.20ms", "2.01s") in milliseconds.
sub ms {
    my ($v) = @_;
    return undef unless defined $v && $v =~ /^([\d.]+)(us|ms|s|m)$/;
    return $1 * { us => 0.001, ms => 1, s => 1000, m => 60000 }->{$2};
}

sub median {
    my @v = sort { $a <=> $b } grep { defined } @_;
    return @v ? $v[$#v / 2] : undef;
}

# One wrk run; the body, if any, is read from a file by the Lua script.
sub wrk1 {
    my ($url, $method, $body_file, $c, $headers) = @_;
    my $script = "$dir/wrk.lua";
    open my $fh, '>', $script or die;
    print $fh "wrk.method = \"$method\"\n";
    for my $h (sort keys %{ $headers // {} }) {
        (my $v = $headers->{$h}) =~ s/(["\\])/\\$1/g;
        print $fh "wrk.headers[\"$h\"] = \"$v\"\n";
    }
    if (defined $body_file) {
        print $fh "local f = assert(io.open(\"$body_file\", \"rb\"))\n",
                  "wrk.body = f:read(\"*a\")\nf:close()\n",
                  "wrk.headers[\"Content-Type\"] = \"application/json\"\n";
    }
    close $fh;
    # A slow family (balances, a rules apply) answers 16 queued requests in
    # more than wrk's default 2 s; those are slow, not failed.
    my $out = `wrk -t2 -c$c -d${duration}s --timeout 60s --latency -s $script '$url' 2>&1`;
    my ($rps) = $out =~ /Requests\/sec:\s+([\d.]+)/;
    my ($p50) = $out =~ /^\s+50%\s+([\d.]+\w+)/m;
    my ($p99) = $out =~ /^\s+99%\s+([\d.]+\w+)/m;
    my ($non2xx) = $out =~ /Non-2xx or 3xx responses:\s+(\d+)/;
    my ($socket) = $out =~ /Socket errors:.*?timeout (\d+)/;
    return { rps => $rps // 0, p50 => ms($p50), p99 => ms($p99), errors => ($non2xx // 0) + ($socket // 0) };
}

# The medians of --runs runs.
sub wrk {
    my @r = map { wrk1(@_) } 1 .. $runs;
    my $errors = 0;
    $errors += $_->{errors} for @r;
    return { rps => median(map { $_->{rps} } @r), p50 => median(map { $_->{p50} } @r),
             p99 => median(map { $_->{p99} } @r), errors => $errors };
}

sub peak_rss {
    my $kb = 0;
    for my $pid (@_) {
        open my $fh, '<', "/proc/$pid/status" or next;
        while (<$fh>) { $kb = $1 if /^VmHWM:\s+(\d+)/ && $1 > $kb }
    }
    return $kb;
}

# The in-process ceilings first, on their own copy (their writes would
# otherwise change what the HTTP runs see), with the same bodies.
copy($src_db, "$dir/inproc.db") or die "copy: $!";
system("$build/contrib/bench/ledger-libbench", '--db', "$dir/inproc.db", '--families', $dir,
       '--iterations', 15) == 0 or die "ledger-libbench --families failed\n";
unlink glob("$dir/inproc.db*");
my %inproc;
open my $tsv, '<', "$dir/families.tsv" or die "families.tsv: $!";
while (<$tsv>) {
    chomp;
    my ($name, $lib, $sql) = split /\t/;
    $inproc{$name} = { lib => $lib, sql => $sql };
}
close $tsv;

my $port = free_port();
my @failed;  # families that answered anything but 2xx: a broken harness
my $http = HTTP::Tiny->new(timeout => 120);
my $base = "http://127.0.0.1:$port";
printf "-- HTTP through %s, wrk -t2 -c%d -d%ds, medians of %d runs, as user01 of %s\n",
    $server, $conns, $duration, $runs, $src_db;

for my $n (split /,/, $procs_list) {
    unlink glob("$dir/ledger.db*");
    copy($src_db, "$dir/ledger.db") or die "copy: $!";
    my @ledger = serve("$dir/ledger.sock", $n, "$build/fcgi/ledger-fcgi", '--db', "$dir/ledger.db",
                       '--log-level', 'warn');
    my @empty = serve("$dir/empty.sock", $n, "$build/contrib/bench/empty-fcgi");
    my $web = web_server($port);
    for (1 .. 100) { last if IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port); sleep 0.1 }
    die "the web server did not start:\n" . `cat $dir/*.err $dir/*error.log 2>/dev/null` unless IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port);

    # What the families need: a cursor 200 pages deep, a row to patch.
    my $cursor;
    for (1 .. 200) {
        my $r = $http->get("$base/api/transactions" . ($cursor ? "?cursor=$cursor" : ''));
        my $j = eval { decode_json($r->{content}) } or last;
        $cursor = $j->{next_cursor} or last;
    }
    my $first = decode_json($http->get("$base/api/transactions?limit=1")->{content})->{items}[0]{id};
    # The second ceiling: the empty responder answering the first page's
    # own bytes, so that the page's share of it is what the service costs
    # beyond carrying a page through FastCGI and the web server.
    my $page = $http->get("$base/api/transactions")->{content} // '';
    {
        open my $fh, '>', "$dir/page-body.json" or die "$dir/page-body.json: $!";
        print $fh $page;
        close $fh;
    }
    my @empty_page = serve("$dir/empty-page.sock", $n, "$build/contrib/bench/empty-fcgi", "$dir/page-body.json");
    # A client polling the page it holds: If-None-Match with its tag, a
    # 304 while nothing is written.
    my $tag = $http->get("$base/api/transactions")->{headers}{etag} // '';
    my @families = (
        ['empty responder (ceiling)', '/empty/', 'GET'],
        [sprintf('empty, a page\'s %.0f kB', length($page) / 1024), '/empty-page/', 'GET'],
        ['transaction page', '/api/transactions', 'GET'],
        ['page, If-None-Match (304)', '/api/transactions', 'GET', undef, { 'If-None-Match' => $tag }],
        ['filtered page', '/api/transactions?categories=dining', 'GET'],
        ['deep page by cursor', '/api/transactions?cursor=' . ($cursor // ''), 'GET'],
        ['splits', "/api/transactions/$first/splits", 'GET'],
        ['balances', '/api/balances', 'GET'],
        ['monthly analytics (60 months)', '/api/analytics/monthly?from=2021-01&to=2025-12', 'GET'],
        ['subscriptions', '/api/analytics/subscriptions', 'GET'],
        ['reconcile list', '/api/reconcile', 'GET'],
        ['CSV preview (1,000 rows)', '/api/import/csv/preview', 'POST', "$dir/csv-preview.json"],
        # The writes last (as in ledger-libbench --families): the rows they
        # add would change what the reads find.  Each process count starts
        # from a fresh copy of the ledger.
        ['create', '/api/transactions', 'POST', "$dir/create.json"],
        ['patch', "/api/transactions/$first", 'PATCH', "$dir/patch.json"],
        ['rules apply', '/api/rules/apply', 'POST', "$dir/empty.json"],
        ['CSV commit (1,000 rows)', '/api/import/csv/commit', 'POST', "$dir/csv-commit.json"],
    );
    printf "%d process%s\n", $n, $n > 1 ? 'es' : '';
    printf "  %-30s %9s %9s %9s %8s %10s %10s %7s %6s\n", 'endpoint', 'req/s', 'p50 ms', 'p99 ms',
        'vs empty', 'lib p50', 'sqlite p50', 'lib/sql', 'errors';
    my ($ceiling, $page_ceiling, $page_rps);
    for my $f (@families) {
        my ($name, $path, $method, $body, $headers) = @$f;
        # One request first: a rules apply's first run over rows no run has
        # seen is the slow one, and the in-process figure beside it is of
        # the runs after (its warm-up rounds).
        $http->request($method, "$base$path", defined $body ? {
            content => scalar(do { local (@ARGV, $/) = $body; <> }),
            headers => { 'Content-Type' => 'application/json' } } : {});
        # A family slower than 50 ms a call gets one connection a process
        # (two at least: wrk wants one a thread): sixteen queued behind one
        # another would not finish within the run.
        my $in = $inproc{$name};
        my $c = $in && $in->{lib} > 50 ? ($n > 2 ? $n : 2) : $conns;
        my $r = wrk("$base$path", $method, $body, $c, $headers);
        # The requests wrk left queued are answered before the next family
        # starts, or they would be counted against it.
        $http->get("$base/api/me") for 1 .. $n;
        push @failed, "$name ($n process" . ($n > 1 ? 'es' : '') . "): $r->{errors} errors"
            if $r->{errors} || !$r->{rps};
        $ceiling //= $r->{rps};
        $page_ceiling = $r->{rps} if $path eq '/empty-page/';
        $page_rps = $r->{rps} if $path eq '/api/transactions' && $method eq 'GET' && !$headers;
        $name .= " (-c$c)" if $c != $conns;
        printf "  %-30s %9.1f %9s %9s %7.0f%% %10s %10s %7s %6d\n", $name, $r->{rps},
            defined $r->{p50} ? sprintf('%.2f', $r->{p50}) : '-',
            defined $r->{p99} ? sprintf('%.2f', $r->{p99}) : '-',
            $ceiling ? 100 * $r->{rps} / $ceiling : 0,
            $in ? sprintf('%.3f', $in->{lib}) : '-', $in ? sprintf('%.3f', $in->{sql}) : '-',
            $in && $in->{sql} > 0 ? sprintf('%.2fx', $in->{lib} / $in->{sql}) : '-', $r->{errors};
    }
    printf "  transaction page: %.0f%% of the empty responder answering a page's bytes\n",
        100 * $page_rps / $page_ceiling if $page_rps && $page_ceiling;
    printf "  peak RSS of ledger-fcgi: %.1f MiB\n", peak_rss(@ledger) / 1024;
    stop($web, @ledger, @empty, @empty_page);
    sleep 0.5;
}
# Exit 3 as ledger-libbench does when a call fails: every family must answer.
if (@failed) {
    print STDERR "http.pl: $_\n" for @failed;
    exit 3;
}
