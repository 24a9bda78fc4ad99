#!/usr/bin/perl
# The README's first command, contrib/quickstart, as a newcomer runs it:
# it says the service is running only once /api/me answers through its
# nginx, serves the web client but not the client's tests, answers nginx's
# own errors as the API's JSON with X-Request-Id, refuses to claim a port
# another program holds, and stops, saying so, when ledger-fcgi does.  It
# runs the ledger-fcgi of this build (LEDGER_BUILD) with its database in a
# temporary directory (LEDGER_RUN), so nothing is built or installed here.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Socket::INET;
use JSON::PP;
use POSIX qw(:sys_wait_h setpgid);
use Time::HiRes qw(sleep time);
use Rig;

my $qs = Rig::srcdir() . '/contrib/quickstart';
plan skip_all => 'no contrib/quickstart' unless -x $qs;
# Its ledger-fcgi runs as it is, never under valgrind: nothing to see there.
plan skip_all => 'the quick-start is not run under valgrind' if $ENV{LEDGER_VALGRIND};
Rig::find_program('nginx') or plan skip_all => 'nginx not installed';
Rig::find_program('curl') or plan skip_all => 'curl not installed (the quick-start uses it)';
my $build = $ENV{LEDGER_BUILDDIR} // Cwd::getcwd();
-x "$build/fcgi/ledger-fcgi" or plan skip_all => "no ledger-fcgi in $build";

my $dir = tempdir('ledger-qs-XXXXXX', TMPDIR => 1, CLEANUP => 1);
chmod 0755, $dir;  # the service's files are its own (0600); nginx needs nothing here
my $http = HTTP::Tiny->new(timeout => 10);

# Starts the quick-start on port, in a process group of its own; its pid.
sub start {
    my ($port, $log, @args) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        setpgid(0, 0);
        $ENV{PORT} = $port;
        $ENV{LEDGER_BUILD} = $build;
        $ENV{LEDGER_RUN} = $ENV{QS_RUN} // $dir;
        open STDOUT, '>', $log or die "$log: $!";
        open STDERR, '>&', \*STDOUT or die "stderr: $!";
        exec $qs, @args or die "exec $qs: $!";
    }
    return $pid;
}

# The quick-start's exit status once it has stopped, or undef after timeout s.
sub finished {
    my ($pid, $timeout) = @_;
    my $end = time + $timeout;
    while (time < $end) {
        return $? >> 8 if waitpid($pid, WNOHANG) == $pid;
        sleep 0.1;
    }
    return undef;
}

my $port = Rig::free_port();
my $log = "$dir/quickstart.out";
my $pid = start($port, $log);
my $up = eval { Rig::wait_until('the quick-start', 30, sub { Rig::slurp($log) =~ /is running at/ }) };
ok($up, 'it says the service is running') or diag(Rig::slurp($log));
my $me = $http->get("http://127.0.0.1:$port/api/me");
is($me->{status}, 200, '/api/me answers through its nginx');
my $doc = eval { decode_json($me->{content}) } // {};
is($doc->{email}, 'demo@example.org', 'as the demo identity');
is($http->get("http://127.0.0.1:$port/")->{status}, 200, 'the web client is at /');
like($http->get("http://127.0.0.1:$port/js/app.js")->{headers}{'content-type'} // '',
     qr{^text/javascript}, 'its modules with a JavaScript type');
is($http->get("http://127.0.0.1:$port/test/package.json")->{status}, 404,
   "the client's own tests are not served");
my $trace = $http->request('TRACE', "http://127.0.0.1:$port/api/me");
is($trace->{status}, 405, "nginx's own error (TRACE)");
like($trace->{headers}{'content-type'} // '', qr{^application/json}, '  as the API\'s JSON');
ok($trace->{headers}{'x-request-id'}, '  with X-Request-Id');

# ledger-fcgi stopping takes the quick-start down with it, saying why.
my ($fcgi) = grep { /^\d+$/ } split /\s+/, `pgrep -f -- '--db $dir/ledger.db'`;
ok($fcgi, 'its ledger-fcgi is running');
kill 'TERM', $fcgi if $fcgi;
my $rc = finished($pid, 20);
is($rc, 1, 'the quick-start stops (status 1) when ledger-fcgi does');
like(Rig::slurp($log), qr/ledger-fcgi stopped; stopping nginx too/, '  and says so');
if (!defined $rc) { kill 'KILL', -$pid; waitpid($pid, 0) }
my $dead = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2);
ok(!$dead, '  its nginx is gone too');

# A port another program holds: it says it did not start, and exits 1;
# whether that program never answers, or answers 200 to everything (as
# another quick-start would) while nginx is still trying to bind.
for my $answers (0, 1) {
    my $holder = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 5,
                                       ReuseAddr => 1) or die "listen: $!";
    my $server;
    if ($answers) {
        $server = fork // die "fork: $!";
        if ($server == 0) {
            while (my $c = $holder->accept) {
                my $req = '';
                while (defined(my $line = <$c>)) { last if $line =~ /^\r?\n$/; $req .= $line }
                print $c "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
                close $c;
            }
            POSIX::_exit(0);
        }
    }
    my $what = $answers ? 'a program answering 200 to everything' : 'a program that never answers';
    my $log2 = "$dir/quickstart-held-$answers.out";
    $pid = start($holder->sockport, $log2);
    $rc = finished($pid, 30);
    is($rc, 1, "the port held by $what: the quick-start exits 1");
    my $out = Rig::slurp($log2);
    unlike($out, qr/is running at/, '  never saying it is running');
    like($out, qr/did not start on 127\.0\.0\.1:\d+/, '  but that it did not start');
    if (!defined $rc) { kill 'KILL', -$pid; waitpid($pid, 0) }
    if ($server) { kill 'KILL', $server; waitpid($server, 0) }
    close $holder;
}

# --demo: the demo identity's empty ledger gets the demo ledger (t/0099
# checks what is in it), once: a second start keeps the rows it has.
{
    my $demo_dir = tempdir('ledger-qs-demo-XXXXXX', TMPDIR => 1, CLEANUP => 1);
    chmod 0755, $demo_dir;
    local $ENV{QS_RUN} = $demo_dir;
    for my $round (1, 2) {
        my $port = Rig::free_port();
        my $log = "$demo_dir/quickstart-$round.out";
        my $pid = start($port, $log, '--demo');
        my $up = eval { Rig::wait_until('the quick-start --demo', 60, sub { Rig::slurp($log) =~ /is running at/ }) };
        ok($up, "--demo ($round): it says the service is running") or diag(Rig::slurp($log));
        my $page = eval { decode_json($http->get("http://127.0.0.1:$port/api/transactions?limit=1")->{content}) } // {};
        my $merchants = eval { decode_json($http->get("http://127.0.0.1:$port/api/merchants")->{content}) } // {};
        my $budgets = eval { decode_json($http->get("http://127.0.0.1:$port/api/budgets")->{content}) } // {};
        state_check($round, $page, $merchants, $budgets, $log);
        kill 'TERM', -$pid;
        waitpid($pid, 0);
    }
    my $total;
    sub state_check {
        my ($round, $page, $merchants, $budgets, $log) = @_;
        cmp_ok($page->{total} // 0, '>', 300, "  the demo identity has the demo's rows");
        cmp_ok(scalar @{ $merchants->{items} // [] }, '>', 5, '  and merchants');
        is(scalar @{ $budgets->{items} // [] }, 6, '  and budgets');
        if ($round == 1) {
            $total = $page->{total};
        } else {
            is($page->{total}, $total, '  a second start loads nothing again');
            like(Rig::slurp($log), qr/has rows already/, '  and says so');
        }
    }
}

done_testing();
