#!/usr/bin/perl
# ledger-fcgi under supervisord as etc/supervisord-ledger.conf runs it: an
# [fcgi-program] with two processes sharing the socket supervisord creates
# (inherited on fd 0) and one database.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Rig;
use FCGIClient;

my $supervisord = Rig::find_program('supervisord')
    or plan skip_all => 'supervisord not installed (apt-get install supervisor)';
my $supervisorctl = Rig::find_program('supervisorctl');
my $dir = tempdir('ledger-sup-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $bin = Rig::fcgi_bin();

# The operator's section, with this test's paths and without the service
# user (the test may not run as root).
my $section = Rig::slurp(Rig::srcdir() . '/etc/supervisord-ledger.conf');
$section =~ s{^command=.*$}{command=$bin --db $dir/ledger.db}m;
$section =~ s{^socket=unix://.*$}{socket=unix://$dir/ledger.sock}m;
$section =~ s{^(socket_owner|user)=.*\n}{}mg;
$section =~ s{^directory=.*$}{directory=$dir}m;
$section =~ s{^stdout_logfile=.*$}{stdout_logfile=$dir/ledger.log}m;
like($section, qr/^numprocs=2$/m, 'the shipped section runs two processes');
like($section, qr/^socket_mode=0660$/m, 'with a socket only owner and group can use');

Rig::write_file("$dir/supervisord.conf", <<"CONF" . $section);
[supervisord]
nodaemon=true
logfile=$dir/supervisord.log
pidfile=$dir/supervisord.pid
childlogdir=$dir

[unix_http_server]
file=$dir/supervisor.sock

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://$dir/supervisor.sock

CONF

my $pid = fork // die;
if ($pid == 0) {
    open STDOUT, '>>', "$dir/supervisord.out";
    open STDERR, '>>', "$dir/supervisord.out";
    exec $supervisord, '-n', '-c', "$dir/supervisord.conf" or POSIX::_exit(127);
}
END {
    local $?;
    if ($pid && kill 0, $pid) { kill 'TERM', $pid; waitpid($pid, 0) }
}

my $end = time + 20;
my $r;
while (time < $end) {
    $r = eval { FCGIClient->new(path => "$dir/ledger.sock")->request(
        FCGIClient::params('GET', '/api/me', REMOTE_USER => 'alice')) };
    last if $r && $r->{status};
    sleep 0.1;
}
is($r && $r->{status}, 200, 'ledger-fcgi answers on the socket supervisord made')
    or diag Rig::slurp("$dir/supervisord.log"), Rig::slurp("$dir/ledger.log");
is((stat "$dir/ledger.sock")[2] & 07777, 0660, 'socket mode 0660');

# Both processes serve; the rows they write go to one database.
my %ids;
for my $i (1 .. 20) {
    my $body = encode_json({ name => "t$i" });
    my $res = FCGIClient->new(path => "$dir/ledger.sock")->request(
        FCGIClient::params('POST', '/api/tags', REMOTE_USER => 'alice',
                           CONTENT_TYPE => 'application/json', CONTENT_LENGTH => length $body), $body);
    $ids{ decode_json($res->{body})->{id} }++ if $res->{status} == 201;
}
is(scalar keys %ids, 20, 'twenty writes, twenty distinct rows');

SKIP: {
    skip 'supervisorctl not installed', 1 unless $supervisorctl;
    # RUNNING once a process has stayed up for startsecs (1 s by default).
    my ($status, @running);
    for (1 .. 50) {
        $status = `$supervisorctl -c $dir/supervisord.conf status 2>&1`;
        @running = $status =~ /^ledger:ledger_\d+\s+RUNNING/mg;
        last if @running == 2;
        sleep 0.2;
    }
    is(scalar @running, 2, 'two processes RUNNING') or diag $status;
}

kill 'TERM', $pid;
my $t0 = time;
waitpid($pid, 0);
$pid = 0;
cmp_ok(time - $t0, '<', 10, 'supervisord stops the program promptly');
my $log = Rig::slurp("$dir/supervisord.log");
my @clean = $log =~ /stopped: ledger_\d+ \(exit status 0\)/g;
is(scalar @clean, 2, 'both processes exited 0 on SIGTERM') or diag $log;

done_testing();
