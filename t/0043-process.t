#!/usr/bin/perl
# ledger-fcgi as a process: start-up and migrations, the listening socket
# (unix, loopback TCP, inherited fd 0), signals, the log, and bodies that no
# web server would send, spoken over FastCGI directly.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::UNIX;
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Rig;
use FCGIClient;

my $bin = Rig::fcgi_bin();
my $dir = tempdir('ledger-proc-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my @kids;
END { local $?; kill 'KILL', @kids if @kids; waitpid($_, 0) for @kids }

sub run_cmd {
    my (@cmd) = @_;
    # Each word in single quotes: quotemeta('') is nothing, not an empty word.
    my $out = `@{[ join ' ', map { (my $w = $_) =~ s/'/'\\''/g; "'$w'" } @cmd ]} 2>&1`;
    return ($? >> 8, $out);
}

sub spawn {
    my (%o) = @_;
    my $pid = fork // die;
    if ($pid == 0) {
        if ($o{stdin}) { open STDIN, '<&', $o{stdin} or die } else { open STDIN, '<', '/dev/null' }
        open STDOUT, '>>', "$dir/spawn.out";
        open STDERR, '>>', "$dir/spawn.out";
        exec @{ $o{cmd} } or POSIX::_exit(127);
    }
    push @kids, $pid;
    return $pid;
}

sub wait_exit {
    my ($pid, $timeout) = @_;
    my $end = time + $timeout;
    while (time < $end) {
        if (waitpid($pid, WNOHANG) > 0) {
            @kids = grep { $_ != $pid } @kids;
            return $?;
        }
        sleep 0.02;
    }
    return undef;
}

sub wait_for { my ($c) = @_; my $end = time + 10; until ($c->()) { return 0 if time > $end; sleep 0.02 } 1 }

sub me_params { FCGIClient::params('GET', '/api/me', REMOTE_USER => $_[0] // 'alice') }

# ---- start-up and migrations ------------------------------------------------
my ($rc, $out) = run_cmd($bin, '--db', "$dir/a.db", '--check');
is($rc, 0, '--check on an empty database succeeds');
like($out, qr/schema version (\d+)/, 'and reports the schema version');
my ($v) = $out =~ /schema version (\d+)/;
($rc, $out) = run_cmd($bin, '--db', "$dir/a.db", '--check');
is($rc, 0, '--check on an up-to-date database succeeds');
like($out, qr/schema version $v\b/, 'at the same version');
{
    open my $fh, '|-', 'sqlite3', "$dir/a.db" or die;
    print $fh 'PRAGMA user_version = ' . ($v + 1) . ";\n";
    close $fh;
}
($rc, $out) = run_cmd($bin, '--db', "$dir/a.db", '--check');
isnt($rc, 0, 'a database from a newer release is refused');
like($out, qr/newer/, 'with a clear message');
{
    open my $fh, '|-', 'sqlite3', "$dir/pre.db" or die;
    print $fh "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT, email TEXT, name TEXT);\n"
            . "PRAGMA user_version = 26;\n";
    close $fh;
}
($rc, $out) = run_cmd($bin, '--db', "$dir/pre.db", '--check');
isnt($rc, 0, 'a database from before the baseline is refused');
like($out, qr/schema version 26, from before this release's baseline/, 'saying so');
is(`sqlite3 $dir/pre.db 'PRAGMA user_version'` + 0, 26, 'and it is left at its version');

# An empty database name (an unset variable in --db $LEDGER_DB, a
# half-edited file) or :memory: would be a private database per process,
# gone at exit with every write acknowledged into it: refused.
for my $args (['--db', ''], ['--db', ':memory:'], ['--db', 'file:'], ['--db', 'file:x?mode=memory']) {
    ($rc, $out) = run_cmd($bin, @$args, '--check');
    isnt($rc, 0, "--db '$args->[1]' is refused");
    like($out, qr/db must (?:name a database file|be a file's path)/, 'saying why');
}
{
    open my $fh, '>', "$dir/empty-db.conf" or die;
    print $fh "db =\n";
    close $fh;
    ($rc, $out) = run_cmd($bin, '--config', "$dir/empty-db.conf", '--check');
    isnt($rc, 0, 'so is an empty db = in the config file');
    like($out, qr/empty-db\.conf:1: .*db must name a database file/, 'naming the file and line');
}

($rc, $out) = run_cmd($bin, '--bogus');
is($rc, 2, 'an unknown flag is a usage error');
($rc, $out) = run_cmd($bin, '--db', "$dir/b.db", '--check', '--config', '/nonexistent.conf');
isnt($rc, 0, 'a missing config file is an error');
{
    open my $fh, '>', "$dir/bad.conf" or die;
    print $fh "db = $dir/b.db\nidentity_param = HTTP_X_REMOTE_USER\n";
    close $fh;
}
($rc, $out) = run_cmd($bin, '--config', "$dir/bad.conf", '--check');
isnt($rc, 0, 'an HTTP header as identity_param is refused');
like($out, qr/bad\.conf:2: .*HTTP header/, 'naming the file and line');
{
    open my $fh, '>', "$dir/good.conf" or die;
    print $fh "# sample\ndb = $dir/c.db\nidentity_param = LEDGER_USER\nmax_body_bytes = 100\n"
        . "log_level = debug\nhome_currency = NZD\n";
    close $fh;
}
($rc, $out) = run_cmd($bin, '--config', "$dir/good.conf", '--check');
is($rc, 0, 'a valid config file') or diag $out;
ok(-e "$dir/c.db", 'its db setting is used');
{
    my $port = Rig::free_port();
    my $pid = spawn(cmd => [$bin, '--config', "$dir/good.conf", '--listen', "127.0.0.1:$port"]);
    ok(wait_for(sub { IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) }),
       'served with that config');
    my $r = FCGIClient->new(port => $port)->request(FCGIClient::params('GET', '/api/me', LEDGER_USER => 'alice'));
    my $me = eval { JSON::PP->new->decode($r->{body} // '') } // {};
    is($me->{home_currency}, 'NZD', '/api/me names its home_currency') or diag explain $r;
    kill 'TERM', $pid;
    wait_exit($pid, 5);
}

# ---- --listen: loopback only unless told otherwise ------------------------------
($rc, $out) = run_cmd($bin, '--db', "$dir/d.db", '--listen', '0.0.0.0:' . Rig::free_port());
isnt($rc, 0, '--listen on a non-loopback address is refused');
like($out, qr/loopback/, 'saying why');
($rc, $out) = run_cmd($bin, '--db', "$dir/d.db", '--listen', '192.0.2.1:' . Rig::free_port());
like($out, qr/loopback/, 'any non-loopback address');
{
    my $port = Rig::free_port();
    my $pid = spawn(cmd => [$bin, '--db', "$dir/d.db", '--listen', "127.0.0.1:$port"]);
    ok(wait_for(sub { IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) }),
       '--listen 127.0.0.1:PORT serves');
    my $r = FCGIClient->new(port => $port)->request(me_params());
    is($r->{status}, 200, 'a request over loopback TCP');
    kill 'TERM', $pid;
    is(wait_exit($pid, 5), 0, 'and it exits 0 on SIGTERM');
}
{
    my $port = Rig::free_port();
    my $pid = spawn(cmd => [$bin, '--db', "$dir/d.db", '--listen', "0.0.0.0:$port", '--allow-remote']);
    ok(wait_for(sub { IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) }),
       '--allow-remote overrides the loopback rule');
    kill 'TERM', $pid;
    wait_exit($pid, 5);
}

# ---- the unix socket, signals, bodies ------------------------------------------
my $sock = "$dir/ledger.sock";
my $log = "$dir/ledger.log";
my $pid = spawn(cmd => [$bin, '--db', "$dir/e.db", '--socket', $sock, '--log', $log]);
ok(wait_for(sub { -S $sock }), 'the unix socket appears');
is((stat $sock)[2] & 07777, 0660, 'with mode 0660');

my $r = FCGIClient->new(path => $sock)->request(me_params('alice'));
is($r->{status}, 200, '/api/me over the socket');
like($r->{headers}{'content-type'}, qr{^application/json; charset=utf-8$}, 'JSON content type');
like($r->{headers}{'x-request-id'}, qr/^[0-9a-f]{16}$/, 'X-Request-Id');
my $alice = decode_json($r->{body});

$r = FCGIClient->new(path => $sock)->request(
    FCGIClient::params('GET', '/api/me', HTTP_REMOTE_USER => 'alice', HTTP_X_REMOTE_USER => 'alice'));
is($r->{status}, 401, 'HTTP_* parameters (client headers) never carry identity');
$r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/me', REMOTE_USER => ''));
is($r->{status}, 401, 'an empty REMOTE_USER is no identity');
$r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/me', REMOTE_USER => " \t"));
is($r->{status}, 401, 'nor is one of blanks');
# A '%' that starts no escape is a malformed path, not one to decode twice
# ("%%331" was "%31", then "1": transaction 1).
$r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/transactions/%%331',
                                                                REMOTE_USER => 'alice'));
is($r->{status}, 400, 'a path with %% is 400');
like($r->{body}, qr/two hex digits/, 'saying why');
$r = FCGIClient->new(path => $sock)->request(me_params('x' x 600));
is($r->{status}, 401, 'an over-long identity is refused');

# An email claims the participant someone added by that address, so it
# counts only when the provider verified it (email_verified_param).
{
    my $body = '{"email":"vic@example.org"}';
    my $r = FCGIClient->new(path => $sock)->request(FCGIClient::params('POST', '/api/participants',
        REMOTE_USER => 'alice', CONTENT_TYPE => 'application/json', CONTENT_LENGTH => length $body), $body);
    my $ph = decode_json($r->{body})->{id};
    ok($ph, 'alice adds vic@example.org, who has not signed in: a placeholder');
    my $i = 0;
    for my $v (undef, '0', 'false', '', 'yes') {
        my %p = (OIDC_CLAIM_email => 'vic@example.org');
        $p{OIDC_CLAIM_email_verified} = $v if defined $v;
        my $who = 'mallory' . $i++;
        $r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/me', REMOTE_USER => $who, %p));
        my $me = decode_json($r->{body});
        my $shown = defined $v ? "'$v'" : 'absent';
        ok($me->{id} != $ph && !defined $me->{email},
           "email_verified $shown: the email is ignored, the placeholder not claimed") or diag $r->{body};
    }
    $r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/me', REMOTE_USER => 'vic',
        OIDC_CLAIM_email => 'vic@example.org', OIDC_CLAIM_email_verified => 'true'));
    my $me = decode_json($r->{body});
    is_deeply([$me->{id}, $me->{email}], [$ph, 'vic@example.org'],
              "email_verified 'true': vic claims the placeholder alice made");
    $r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/me', REMOTE_USER => 'wes',
        OIDC_CLAIM_email => 'wes@example.org', OIDC_CLAIM_email_verified => '1'));
    is(decode_json($r->{body})->{email}, 'wes@example.org', "email_verified '1' (mod_auth_openidc's true): the email counts");
}

my %json = (CONTENT_TYPE => 'application/json');
sub tag_params { FCGIClient::params('POST', '/api/tags', REMOTE_USER => 'alice', %json, @_) }
sub tag_count {
    my $r = FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/tags', REMOTE_USER => 'alice'));
    return decode_json($r->{body})->{total};
}

$r = FCGIClient->new(path => $sock)->request(tag_params(CONTENT_LENGTH => '12abc'), '{"name":"x"}');
is($r->{status}, 400, 'a Content-Length that is not all digits is a 400');
$r = FCGIClient->new(path => $sock)->request(tag_params(CONTENT_LENGTH => '-5'), '');
is($r->{status}, 400, 'a negative Content-Length is a 400');
$r = FCGIClient->new(path => $sock)->request(tag_params(CONTENT_LENGTH => '9' x 40), '');
is($r->{status}, 413, 'an absurd Content-Length is a 413, read or not');

# A body that ends before Content-Length says: never processed truncated.
my $before = tag_count();
my $body = '{"name":"short"}';
my $c = FCGIClient->new(path => $sock);
$c->begin(tag_params(CONTENT_LENGTH => length($body) + 10));
$c->send_stdin($body);
$c->end_stdin;
$r = $c->response;
is($r->{status}, 400, 'a body shorter than Content-Length is a 400');
like($r->{body}, qr/ended after/, 'saying it ended early');
is(tag_count(), $before, 'and nothing was written');

# The same body in many small records is read whole.
$body = '{"name":"pieces","color":"#123456"}';
$c = FCGIClient->new(path => $sock);
$c->begin(tag_params(CONTENT_LENGTH => length $body));
$c->send_stdin($_) for split //, $body;
$c->end_stdin;
is($c->response->{status}, 201, 'a body sent one byte per record is read whole');

# NUL bytes in a body are not a string terminator.
$body = qq({"name":"a\0b"});
$r = FCGIClient->new(path => $sock)->request(tag_params(CONTENT_LENGTH => length $body), $body);
is($r->{status}, 400, 'a raw NUL inside a JSON string is refused');

# The write-ahead log is copied into the database between requests
# (ledger_idle), not left to grow: the file grows once the log passes
# 1,000 pages, which a few hundred small writes do.
{
    my $size = -s "$dir/e.db";
    my ($n, $grown) = (0, 0);
    while (!$grown && $n < 3000) {
        my $row = encode_json({ date => '2026-03-01', amount => 1, description => "row $n " . ('x' x 200) });
        $r = FCGIClient->new(path => $sock)->request(
            FCGIClient::params('POST', '/api/transactions', REMOTE_USER => 'alice', %json,
                               CONTENT_LENGTH => length $row), $row);
        last if $r->{status} != 201;
        $n++;
        $grown = -s "$dir/e.db" > $size;
    }
    ok($grown || wait_for(sub { -s "$dir/e.db" > $size }),
       "the database file takes in the log after $n writes") or diag($r->{body});
}

# SIGHUP reopens the log, for logrotate.
rename $log, "$log.1";
kill 'HUP', $pid;
sleep 0.2;
FCGIClient->new(path => $sock)->request(me_params('alice'));
ok(wait_for(sub { -s $log }), 'after SIGHUP the log is reopened at its path');
like(Rig::slurp($log), qr/user=\d+ GET \/api\/me 200 \d+us/, 'one line per request: user, method, path, status, time');
unlike(Rig::slurp("$log.1") . Rig::slurp($log), qr/short|pieces/, 'no request bodies in the log');
# Nor the user's own words in a path: a merchant or a category is *.
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/analytics/merchants/Secret%20Clinic',
                                                           REMOTE_USER => 'alice'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('DELETE', '/api/budgets/private_matters',
                                                           REMOTE_USER => 'alice'));
# And on requests no route answers: no identity, a method not allowed, a
# path no route has, a bad escape in the name.
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/budgets/hidden_one'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('POST', '/api/analytics/merchants/Hidden%20Two',
                                                           REMOTE_USER => 'alice'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/budgets/hidden_three/extra',
                                                           REMOTE_USER => 'alice'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '//api/budgets/hidden_four',
                                                           REMOTE_USER => 'alice'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/transactions/123456',
                                                           REMOTE_USER => 'alice'));
FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', '/api/analytics/monthly/2025-02/hidden%ff',
                                                           REMOTE_USER => 'alice'));
like(Rig::slurp($log), qr{GET /api/analytics/merchants/\* 200 }, 'a merchant history is logged with * for the name');
like(Rig::slurp($log), qr{DELETE /api/budgets/\* 404 }, 'a budget with * for the category');
like(Rig::slurp($log), qr{GET /api/budgets/\* 401 }, 'as are a request without identity');
like(Rig::slurp($log), qr{POST /api/analytics/merchants/\* 405 }, 'one with a method not allowed');
like(Rig::slurp($log), qr{GET /api/budgets/\*/\* 404 }, 'one no route has');
like(Rig::slurp($log), qr{GET //api/budgets/\* 404 }, 'one a web server passed unnormalised');
like(Rig::slurp($log), qr{GET /api/transactions/123456 404 }, 'ids and route words are shown');
like(Rig::slurp($log), qr{GET /api/analytics/monthly/2025-02/\* 400 }, 'and one with a bad escape');
# Names that look like what is shown: one starting like a month or with a
# digit, and one that begins a route word.
for my $name ('2024-05-rent', '7eleven', 'tran') {
    FCGIClient->new(path => $sock)->request(FCGIClient::params('GET', "/api/analytics/merchants/$name",
                                                               REMOTE_USER => 'alice'));
    unlike(Rig::slurp($log), qr{merchants/\Q$name\E}, "a merchant named $name is not in the log");
}
unlike(Rig::slurp($log), qr/Secret|private_matters|[Hh]idden/, 'no name is in the log');

# SIGTERM in the middle of a request: the request finishes, then the process exits 0.
$body = '{"name":"in-flight"}';
$c = FCGIClient->new(path => $sock);
$c->begin(tag_params(CONTENT_LENGTH => length $body));
$c->send_stdin(substr($body, 0, 5));
sleep 0.3;
kill 'TERM', $pid;
sleep 0.3;
ok(kill(0, $pid), 'a SIGTERM mid-request does not kill the request');
$c->send_stdin(substr($body, 5));
$c->end_stdin;
$r = $c->response;
is($r->{status}, 201, 'the request in flight completes');
is(wait_exit($pid, 5), 0, 'then ledger-fcgi exits 0');
ok(!-e $sock, 'and removes its socket');

# SIGTERM while idle in accept: exits promptly.
$pid = spawn(cmd => [$bin, '--db', "$dir/e.db", '--socket', $sock]);
wait_for(sub { -S $sock });
sleep 0.2;
my $t0 = time;
kill 'TERM', $pid;
is(wait_exit($pid, 5), 0, 'SIGTERM while idle: exit 0');
cmp_ok(time - $t0, '<', 2, 'promptly, without waiting for a request');
$pid = spawn(cmd => [$bin, '--db', "$dir/e.db", '--socket', $sock]);
wait_for(sub { -S $sock });
sleep 0.2;
kill 'INT', $pid;
is(wait_exit($pid, 5), 0, 'SIGINT too');

# A socket a running process listens on is not taken over: the second
# start fails, and the first goes on serving; a stale one (its process
# killed) is replaced.  The backlog lets a burst wait (ss shows it).
{
    my $a = spawn(cmd => [$bin, '--db', "$dir/e.db", '--socket', $sock]);
    wait_for(sub { -S $sock });
    my ($brc, $bout) = run_cmd($bin, '--db', "$dir/e.db", '--socket', $sock);
    isnt($brc, 0, 'a second ledger-fcgi on a socket in use fails to start');
    like($bout, qr/in use/, 'saying it is in use');
    my $r2 = eval { FCGIClient->new(path => $sock)->request(me_params('bob')) };
    is($r2 && $r2->{status}, 200, 'and the first still serves on it');
    SKIP: {
        my $ss = Rig::find_program('ss');
        skip 'no ss (iproute2)', 1 unless $ss;
        my ($line) = grep { /\Q$sock\E/ } `$ss -lxn 2>/dev/null`;
        my ($backlog) = ($line // '') =~ /^\S+\s+LISTEN\s+\d+\s+(\d+)/;
        cmp_ok($backlog // 0, '>', 128, 'a listen backlog past 128') or diag($line);
    }
    kill 'KILL', $a;
    waitpid $a, 0;
    ok(-S $sock, 'killed, its socket stays behind');
    my $b = spawn(cmd => [$bin, '--db', "$dir/e.db", '--socket', $sock]);
    ok(wait_for(sub { my $r3 = eval { FCGIClient->new(path => $sock)->request(me_params('bob')) };
                      $r3 && $r3->{status} == 200 }), 'a new process replaces the stale socket');
    kill 'TERM', $b;
    is(wait_exit($b, 5), 0, 'and stops');
}
# The database file replaced (a backup put back), removed, or migrated by a
# newer release under a running process: the next request is a 503 and the
# process exits 1, to be started again on the file now at the path, instead
# of acknowledging writes into a file that is no longer there.
for my $case (['replaced', sub { system('cp', "$dir/moved.db", "$dir/moved.db.new") == 0 or die;
                                 rename "$dir/moved.db.new", "$dir/moved.db" or die }],
              ['removed', sub { unlink "$dir/moved.db", "$dir/moved.db-wal", "$dir/moved.db-shm" }],
              ['migrated by a newer release',
               sub { system('sqlite3', "$dir/moved.db", 'PRAGMA user_version = 9999') == 0 or die }]) {
    unlink "$dir/moved.db", "$dir/moved.db-wal", "$dir/moved.db-shm";
    my $p = spawn(cmd => [$bin, '--db', "$dir/moved.db", '--socket', $sock]);
    wait_for(sub { -S $sock });
    my $r2 = eval { FCGIClient->new(path => $sock)->request(me_params('carol')) };
    is($r2 && $r2->{status}, 200, "$case->[0]: serving first");
    $case->[1]->();
    $r2 = eval { FCGIClient->new(path => $sock)->request(me_params('carol')) };
    is($r2 && $r2->{status}, 503, "$case->[0]: the next request is a 503");
    like($r2 && $r2->{body}, qr/"code":"unavailable"/, 'code unavailable');
    is(wait_exit($p, 5), 1 << 8, 'and the process exits 1, to be started again');
}

# A database an earlier release left 0644 (with its WAL) is made private
# when the service starts on it.
{
    my ($mrc) = run_cmd($bin, '--db', "$dir/old.db", '--check');
    is($mrc, 0, 'a ledger made') or die;
    chmod 0644, "$dir/old.db";
    my ($orc, $oout) = run_cmd($bin, '--db', "$dir/old.db", '--check');
    is($orc, 0, '--check on a database left 0644') or diag($oout);
    like($oout, qr/readable by other accounts/, 'which it says');
    is(sprintf('%04o', (stat "$dir/old.db")[2] & 07777), '0600', 'and makes 0600');
    # Only a database: a --db naming a directory or another file is
    # refused with its mode as it was (--db /tmp made /tmp 1700).
    mkdir "$dir/notadb.d";
    chmod 01777, "$dir/notadb.d";
    Rig::write_file("$dir/notadb.txt", "just text, more than a header's worth of it " x 4);
    chmod 0644, "$dir/notadb.txt";
    # Another application's SQLite database is not a ledger either: it is
    # refused, its tables and mode as they were.
    system('sqlite3', "$dir/other-app.db", 'CREATE TABLE notes (body TEXT)') == 0 or die;
    chmod 0644, "$dir/other-app.db";
    for my $case (["$dir/notadb.d", '1777'], ["$dir/notadb.txt", '0644'], ["$dir/other-app.db", '0644']) {
        my ($nrc) = run_cmd($bin, '--db', $case->[0], '--check');
        isnt($nrc, 0, "--check on $case->[0] fails");
        is(sprintf('%04o', (stat $case->[0])[2] & 07777), $case->[1], 'leaving its mode as it was');
    }
}
# The database holds everyone's money: only the service's user reads it,
# whatever umask it was started with.
is(sprintf('%04o', (stat "$dir/e.db")[2] & 07777), '0600', 'the database file is made 0600');
is(sprintf('%04o', (stat "$dir/e.db-wal")[2] & 07777), '0600', 'and its WAL')
    if -e "$dir/e.db-wal";

# ---- the socket inherited on fd 0 (spawn-fcgi, supervisord, mod_fcgid) ------------
{
    my $path = "$dir/inherited.sock";
    my $l = IO::Socket::UNIX->new(Local => $path, Type => SOCK_STREAM, Listen => 16) or die $!;
    my $p = spawn(cmd => [$bin, '--db', "$dir/f.db"], stdin => $l);
    close $l;
    my $r2;
    wait_for(sub { $r2 = eval { FCGIClient->new(path => $path)->request(me_params('bob')) } });
    is($r2 && $r2->{status}, 200, 'serves the listening socket inherited on fd 0');
    kill 'TERM', $p;
    is(wait_exit($p, 5), 0, 'and stops on SIGTERM');
}
($rc, $out) = run_cmd($bin, '--db', "$dir/g.db");
isnt($rc, 0, 'with no socket at all (stdin not a socket) it refuses to start');
like($out, qr/not a listening socket/, 'and says what to do');

done_testing();
