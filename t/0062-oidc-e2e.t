#!/usr/bin/perl
# End to end, on 127.0.0.1 only: a real OpenID Connect provider (the
# `oidc-provider` package under Node, contrib/oidc-test/provider.js), Apache
# httpd with mod_auth_openidc and mod_proxy_fcgi configured from
# etc/apache-ledger.conf, and ledger-fcgi under supervisord from
# etc/supervisord-ledger.conf (two processes, one socket of mode 0660).
# Browsers sign in with a scripted login (curl, a cookie jar, the provider's
# login form); API clients bring a bearer token that Apache checks by token
# introspection.  Needs `npm ci` in contrib/oidc-test (contrib/test does it).
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use IO::Uncompress::Gunzip ();
use IO::Socket::INET;
use IO::Socket::UNIX;
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Rig;

my $src = Rig::srcdir();
my $oidc_dir = "$src/contrib/oidc-test";
my $mods = '/usr/lib/apache2/modules';

my $node = Rig::find_program('node') // Rig::find_program('nodejs')
    or plan skip_all => 'Node.js is not installed (apt-get install nodejs npm)';
plan skip_all => "oidc-provider is not installed (run: cd contrib/oidc-test && npm ci)"
    unless -d "$oidc_dir/node_modules/oidc-provider";
my $httpd = Rig::find_program('apache2') // Rig::find_program('httpd')
    or plan skip_all => 'apache2 is not installed (apt-get install apache2)';
plan skip_all => 'mod_auth_openidc is not installed (apt-get install libapache2-mod-auth-openidc)'
    unless -e "$mods/mod_auth_openidc.so";
my $supervisord = Rig::find_program('supervisord')
    or plan skip_all => 'supervisord is not installed (apt-get install supervisor)';
my $curl = Rig::find_program('curl')
    or plan skip_all => 'curl is not installed (apt-get install curl)';

my $dir = tempdir('ledger-oidc-XXXXXX', TMPDIR => 1, CLEANUP => 1);
chmod 0711, $dir;    # Apache's workers (www-data under root) reach the socket
my $root = $> == 0;
my ($op_port, $web_port, $cli_port) = (Rig::free_port(), Rig::free_port(), Rig::free_port());
my $issuer = "http://127.0.0.1:$op_port";
my $web = "http://127.0.0.1:$web_port";
my $cli_redirect = "http://127.0.0.1:$cli_port/callback";    # nothing listens there
my $sock = "$dir/ledger.sock";

# ---- processes ----------------------------------------------------------------
my %pids;
sub spawn {
    my ($name, @cmd) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>>', "$dir/$name.out";
        open STDERR, '>>', "$dir/$name.out";
        exec @cmd or POSIX::_exit(127);
    }
    $pids{$name} = $pid;
}
sub stop_all {
    for my $name (qw(apache supervisord provider)) {
        my $pid = delete $pids{$name} or next;
        kill 'TERM', $pid;
        my $end = time + 15;
        while (time < $end) { last if waitpid($pid, WNOHANG) > 0; sleep 0.05 }
        if (kill 0, $pid) { kill 'KILL', $pid; waitpid($pid, 0) }
    }
}
END { local $?; stop_all() }
sub logs { join '', map { "---- $_\n" . Rig::slurp("$dir/$_") } @_ }
sub wait_for {
    my ($what, $name, $cond, @logs) = @_;
    my $end = time + 30;
    while (time < $end) {
        return 1 if $cond->();
        BAIL_OUT("$what: $name exited\n" . logs("$name.out", @logs))
            if waitpid($pids{$name}, WNOHANG) > 0;
        sleep 0.1;
    }
    BAIL_OUT("timed out waiting for $what\n" . logs("$name.out", @logs));
}

# The provider.
{
    local $ENV{OIDC_PORT} = $op_port;
    local $ENV{OIDC_REDIRECT_URI} = "$web/oidc/redirect_uri";
    local $ENV{OIDC_CLI_REDIRECT_URI} = $cli_redirect;
    spawn('provider', $node, "$oidc_dir/provider.js");
}
wait_for('the OpenID provider', 'provider', sub { Rig::slurp("$dir/provider.out") =~ /^listening on /m });

# ledger-fcgi under supervisord: the shipped section with this test's paths,
# and the shipped ledger.conf with this test's database.
(my $conf = Rig::slurp("$src/etc/ledger.conf")) =~ s{^db = .*$}{db = $dir/ledger.db}m;
Rig::write_file("$dir/ledger.conf", $conf);
my $section = Rig::slurp("$src/etc/supervisord-ledger.conf");
my $bin = Rig::fcgi_bin();
my $n = 0;
$n += $section =~ s{^command=\S+ --config \S+$}{command=$bin --config $dir/ledger.conf}m;
$n += $section =~ s{^socket=unix://.*$}{socket=unix://$sock}m;
$n += $section =~ s{^directory=.*$}{directory=$dir}m;
$n += $section =~ s{^stdout_logfile=.*$}{stdout_logfile=$dir/ledger.log}m;
# No "ledger" account here.  As root the socket keeps the web server's
# group; otherwise supervisord cannot chown it, and Apache runs as this
# user anyway.
$n += $root ? $section =~ s{^socket_owner=[^:\n]+:}{socket_owner=root:}m
            : $section =~ s{^socket_owner=.*\n}{}m;
$n += $section =~ s{^user=.*\n}{}m;
is($n, 6, 'etc/supervisord-ledger.conf has the lines the test adapts');
like($section, qr/^numprocs=2$/m, 'two processes');
like($section, qr/^socket_mode=0660$/m, 'a socket for owner and group only');
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
spawn('supervisord', $supervisord, '-n', '-c', "$dir/supervisord.conf");
wait_for('the ledger-fcgi socket', 'supervisord', sub {
    -S $sock && IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM);
}, 'supervisord.log', 'ledger.log');
my @st = stat $sock;
is($st[2] & 07777, 0660, 'the socket is mode 0660');
is(scalar getgrgid($st[5]), 'www-data', "and belongs to the web server's group")
    if $root;

# Apache, with the project's own snippet: only names, secrets, URLs and the
# socket path change.
my $site = Rig::slurp("$src/etc/apache-ledger.conf");
my @fill = (
    qr{https://id\.example\.org} => $issuer,
    qr{https://ledger\.example\.org} => $web,
    qr{^OIDCClientID \S+$}m => 'OIDCClientID ledger-apache',
    qr{^OIDCClientSecret \S+$}m => 'OIDCClientSecret apache-secret',
    qr{^OIDCOAuthClientID \S+$}m => 'OIDCOAuthClientID ledger-rs',
    qr{^OIDCOAuthClientSecret \S+$}m => 'OIDCOAuthClientSecret rs-secret',
    qr{^OIDCCryptoPassphrase \S+$}m => 'OIDCCryptoPassphrase ' . join('', map { ('a'..'z')[rand 26] } 1 .. 32),
    qr{/run/ledger/ledger\.sock} => $sock,
    qr{/usr/share/ledger/errors/} => "$src/etc/errors/",
);
while (my ($re, $to) = splice @fill, 0, 2) {
    ok($site =~ s/$re/$to/g, "etc/apache-ledger.conf has $re");
}
Rig::write_file("$dir/ledger-site.conf", $site);
my $load = join '', map { "LoadModule ${_}_module $mods/mod_$_.so\n" }
    qw(mpm_event authz_core authz_user authn_core rewrite auth_openidc proxy proxy_fcgi alias mime
       buffer env reqtimeout filter deflate);
my $user = $root ? "User www-data\nGroup www-data\n" : '';
Rig::write_file("$dir/httpd.conf", <<"CONF");
$load
ServerName 127.0.0.1
Listen 127.0.0.1:$web_port
PidFile $dir/httpd.pid
ErrorLog $dir/apache-error.log
LogLevel warn auth_openidc:info
DefaultRuntimeDir $dir
Mutex file:$dir default
TypesConfig /dev/null
${user}StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
<VirtualHost 127.0.0.1:$web_port>
    Include $dir/ledger-site.conf
</VirtualHost>
CONF
spawn('apache', $httpd, '-f', "$dir/httpd.conf", '-DFOREGROUND');
wait_for('Apache', 'apache', sub {
    IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $web_port);
}, 'apache-error.log');

# ---- curl ----------------------------------------------------------------------
# curl(ARGS...): {status, url (the last one), headers (of the last reply,
# lower-cased names), body, json}.
my $seq = 0;
sub curl {
    my @args = @_;
    $seq++;
    my ($hfile, $bfile) = ("$dir/curl-$seq.h", "$dir/curl-$seq.b");
    open my $fh, '-|', $curl, '-sS', '--max-time', '30', '-D', $hfile, '-o', $bfile,
        '-w', '%{http_code} %{url_effective}', @args or die "curl: $!";
    my $out = do { local $/; <$fh> } // '';
    close $fh;
    my ($status, $url) = split / /, $out, 2;
    my %h;
    # With -L the header file holds every reply in turn: keep the last.
    my @blocks = split /\r?\n\r?\n/, Rig::slurp($hfile);
    my $last = (grep { /^HTTP\// } @blocks)[-1] // '';
    for (split /\r?\n/, $last) { $h{lc $1} = $2 if /^([^:\s]+):\s*(.*)$/ }
    my $body = Rig::slurp($bfile);
    my $json = ($h{'content-type'} // '') =~ m{^application/json} ? eval { decode_json($body) } : undef;
    return { status => $status // 0, url => $url // '', headers => \%h, body => $body, json => $json };
}
sub jar { my $j = "$dir/$_[0].jar"; ('-c', $j, '-b', $j) }

# The browser's way in: /oidc/login, the provider's form, back to /api/me.
sub browser_login {
    my ($who, $password) = @_;
    my $r = curl('-L', jar($who), "$web/oidc/login");
    my ($action) = $r->{body} =~ /<form method="post" action="([^"]+)"/;
    ok($r->{status} == 200 && $r->{url} =~ m{^\Q$issuer\E/interaction/} && $action,
       "$who: /oidc/login leads to the provider's login form")
        or diag "$r->{status} $r->{url}\n$r->{body}", logs('apache-error.log');
    $r = curl('-L', jar($who), '--data-urlencode', "login=$who",
              '--data-urlencode', "password=$password", "$issuer$action");
    return $r;
}

# ---- a browser session ---------------------------------------------------------
my $r = browser_login('alice', 'alice-pw');
is($r->{status}, 200, 'alice signs in and lands on /api/me')
    or diag "$r->{status} $r->{url}\n$r->{body}\n", logs('apache-error.log', 'ledger.log');
is($r->{url}, "$web/api/me", 'through the redirects to the API');
is($r->{json}{email}, 'alice@example.org', 'the email claim reached the service as a parameter');
is($r->{json}{name}, 'Alice Example', 'so did the name claim');
my $alice_id = $r->{json}{id};
my $db = "$dir/ledger.db";
my $sql = sub { my $o = `sqlite3 -cmd '.timeout 5000' $db "$_[0]"`; chomp $o; $o };
is($sql->("SELECT subject FROM users WHERE id = " . ($alice_id // 0)), 'alice',
   "the identity is the provider's subject (OIDCRemoteUserClaim sub)");

$r = curl(jar('alice'), '-H', 'Content-Type: application/json', '--data',
          encode_json({ date => '2026-02-01', amount => 42.5, description => 'Alice only',
                        merchant => 'Secret Shop' }), "$web/api/transactions");
is($r->{status}, 201, 'alice creates a transaction with her session') or diag $r->{body};
my $txn = $r->{json}{id} // 0;
$r = curl(jar('alice'), "$web/api/transactions");
is($r->{json}{total}, 1, 'and sees it');

# ---- a second user ---------------------------------------------------------------
$r = browser_login('bob', 'bob-pw');
is($r->{status}, 200, 'bob signs in');
isnt($r->{json}{id}, $alice_id, 'as a different user');
is($r->{json}{email}, 'bob@example.org', 'with his own email');
$r = curl(jar('bob'), "$web/api/transactions");
is_deeply([$r->{status}, $r->{json}{total}], [200, 0], "bob's list has none of alice's rows");
$r = curl(jar('bob'), "$web/api/transactions/$txn");
ok($r->{status} == 403 || $r->{status} == 404, "bob cannot read alice's row ($r->{status})");
$r = curl(jar('bob'), '-X', 'DELETE', "$web/api/transactions/$txn");
ok($r->{status} == 403 || $r->{status} == 404, "nor delete it ($r->{status})");
$r = curl(jar('bob'), "$web/api/merchants");
unlike($r->{body}, qr/Secret Shop/, "nor see her merchants");

# ---- a participant added by email is claimed only with a verified email ---------
# alice adds carol, who has not signed in, and shares her row with her.
# mallory's provider gives carol's address with email_verified false:
# mallory gets no email and nothing of carol's; carol, verified, gets it.
$r = curl(jar('alice'), '-H', 'Content-Type: application/json', '--data',
          encode_json({ email => 'carol@example.org' }), "$web/api/participants");
my $carol_ph = $r->{json} && $r->{json}{id};
ok($carol_ph, 'alice adds carol@example.org before carol signs in') or diag $r->{body};
$r = curl(jar('alice'), '-H', 'Content-Type: application/json', '--data',
          encode_json([{ participant_id => $carol_ph, share_percent => 50 }]), "$web/api/transactions/$txn/splits");
is($r->{status}, 200, 'and shares her row with her') or diag $r->{body};
$r = browser_login('mallory', 'mallory-pw');
is($r->{status}, 200, 'mallory signs in with carol\'s address, unverified');
isnt($r->{json}{id}, $carol_ph, 'he does not claim the participant alice added for carol');
is($r->{json}{email}, undef, 'and the unverified email is not his');
$r = curl(jar('mallory'), "$web/api/transactions/$txn");
ok($r->{status} == 403 || $r->{status} == 404, "alice's shared row stays closed to him ($r->{status})");
$r = browser_login('carol', 'carol-pw');
is_deeply([$r->{status}, $r->{json}{id}, $r->{json}{email}], [200, $carol_ph, 'carol@example.org'],
          'carol, with her verified email (OIDC_CLAIM_email_verified 1), claims it');
$r = curl(jar('carol'), "$web/api/transactions/$txn");
is($r->{status}, 200, 'and sees the row alice shared');

# A wrong password gets no session.
{
    my $w = curl('-L', jar('stranger'), "$web/oidc/login");
    my ($action) = $w->{body} =~ /action="([^"]+)"/;
    $w = curl('-L', jar('stranger'), '--data-urlencode', 'login=alice',
              '--data-urlencode', 'password=guess', "$issuer$action");
    is($w->{status}, 401, 'a wrong password is refused by the provider');
    $w = curl(jar('stranger'), "$web/api/me");
    is($w->{status}, 401, 'and gives no way into the API');
}

# ---- no session ------------------------------------------------------------------
sub is_json_401 {
    my ($r, $what) = @_;
    subtest $what => sub {
        is($r->{status}, 401, 'status 401');
        ok(!exists $r->{headers}{location}, 'no redirect to the provider');
        like($r->{headers}{'content-type'} // '', qr{^application/json}, 'a JSON body');
        is($r->{json} && $r->{json}{error}{code}, 'unauthenticated', 'the service\'s error')
            or diag $r->{body};
    };
}
is_json_401(curl("$web/api/me"), 'no session: GET /api/me');
is_json_401(curl('-H', 'Accept: text/html,application/xhtml+xml', '-H', 'Sec-Fetch-Mode: navigate',
                 "$web/api/transactions"), 'no session, a browser navigating: still 401, no login redirect');
is_json_401(curl('-H', 'Content-Type: application/json', '--data', '{"name":"x"}', "$web/api/tags"),
            'no session: POST /api/tags');
is_json_401(curl("$web/api/no-such-route"), 'no session: an unknown path under /api');
is_json_401(curl('-b', 'mod_auth_openidc_session=forged', "$web/api/me"), 'a forged session cookie');

# ---- spoofed identities -------------------------------------------------------------
my @spoofs = (
    ['-H', 'X-Remote-User: alice'],
    ['-H', 'Remote-User: alice'],
    ['-H', 'REMOTE_USER: alice'],
    ['-H', 'OIDC_CLAIM_sub: alice'],
    ['-H', 'OIDC-CLAIM-sub: alice'],
    ['-H', 'X-Auth-Request-User: alice'],
    ['-u', 'alice:alice-pw'],
);
for my $s (@spoofs) {
    is_json_401(curl(@$s, "$web/api/me"), "no session, spoofed @$s");
}
is_json_401(curl('-H', 'X-Remote-User: alice', "$web/ledger-unauthenticated"),
            'the error document location itself, spoofed');
$r = curl(jar('bob'), (map { @$_ } @spoofs[0 .. 5]), '-H', 'OIDC_CLAIM_email: alice@example.org',
          '-H', 'OIDC-CLAIM-email: alice@example.org', "$web/api/me");
is_deeply([$r->{status}, $r->{json}{email}], [200, 'bob@example.org'],
          "bob's session with every spoof: still bob, with his own email");

# ---- bearer tokens --------------------------------------------------------------------
# An API client's own code flow: alice signs in at the provider, the code
# comes back to the client's redirect URI, the client swaps it for a token.
sub cli_token {
    my ($who, $password) = @_;
    my $q = "client_id=ledger-cli&response_type=code&scope=openid%20email"
        . "&redirect_uri=$cli_redirect&state=s$seq&nonce=n$seq";
    my $r = curl('-L', jar("cli-$who"), "$issuer/auth?$q");
    my ($action) = $r->{body} =~ /action="([^"]+)"/ or return undef;
    $r = curl(jar("cli-$who"), '--data-urlencode', "login=$who",
              '--data-urlencode', "password=$password", "$issuer$action");
    $r = curl(jar("cli-$who"), $r->{headers}{location} // return undef);
    my ($code) = ($r->{headers}{location} // '') =~ /^\Q$cli_redirect\E\?code=([^&]+)/ or return undef;
    $r = curl('-u', 'ledger-cli:cli-secret', '--data-urlencode', 'grant_type=authorization_code',
              '--data-urlencode', "code=$code", '--data-urlencode', "redirect_uri=$cli_redirect",
              "$issuer/token");
    return $r->{json} && $r->{json}{access_token};
}
my $token = cli_token('alice', 'alice-pw');
ok($token, 'an API client gets an access token for alice from the provider');
$r = curl('-H', "Authorization: Bearer $token", "$web/api/me");
is_deeply([$r->{status}, $r->{json}{id}], [200, $alice_id], 'the bearer token is alice at /api/me')
    or diag $r->{body}, logs('apache-error.log');
$r = curl('-H', "Authorization: Bearer $token", "$web/api/transactions");
is_deeply([$r->{status}, $r->{json}{total}], [200, 1], 'and sees her transaction');
$r = curl('-H', "Authorization: Bearer $token", '-H', 'X-Remote-User: bob', '-H', 'OIDC_CLAIM_sub: bob',
          "$web/api/me");
is($r->{json}{id}, $alice_id, 'spoofed headers beside a token change nothing');
my $bob_token = cli_token('bob', 'bob-pw');
$r = curl('-H', "Authorization: Bearer $bob_token", "$web/api/transactions/$txn");
ok($r->{status} == 403 || $r->{status} == 404, "bob's token cannot read alice's row ($r->{status})");
is_json_401(curl('-H', 'Authorization: Bearer not-a-token', "$web/api/me"), 'an unknown token');
is_json_401(curl('-H', "Authorization: Bearer ${token}x", "$web/api/me"), 'a tampered token');
is_json_401(curl("$web/api/me?access_token=$token"), 'a token in the query string is not accepted');
$r = curl('-u', 'ledger-cli:cli-secret', '--data-urlencode', 'grant_type=client_credentials', "$issuer/token");
my $cc = $r->{json} && $r->{json}{access_token};
ok($cc, 'a client-credentials token (no user in it)');
is_json_401(curl('-H', "Authorization: Bearer $cc", "$web/api/me"), 'a token without a subject is no one');

# ---- compression ------------------------------------------------------------------------
# The snippet's gzip (etc/README): a page of 50 of a real bank's rows
# (t/data/bank/ofx/ofxrb-bb.ofx) asked with Accept-Encoding: gzip comes
# back gzip, decoding to exactly what a client that does not ask gets.
{
    my $gunzip = sub { my ($in, $out) = @_; IO::Uncompress::Gunzip::gunzip(\$in => \$out) ? $out : undef };
    my @auth = ('-H', "Authorization: Bearer $token");
    $r = curl(@auth, '-H', 'Content-Type: application/x-ofx', '--data-binary',
              "\@$src/t/data/bank/ofx/ofxrb-bb.ofx", "$web/api/statements/import");
    ok($r->{status} == 200 || $r->{status} == 201, 'alice imports a bank statement with her token')
        or diag $r->{body};
    my $plain = curl(@auth, "$web/api/transactions?limit=50");
    my $packed = curl(@auth, '-H', 'Accept-Encoding: gzip', "$web/api/transactions?limit=50");
    is(scalar @{ ($plain->{json} // {})->{items} // [] }, 50, 'a page of 50');
    is($plain->{headers}{'content-encoding'}, undef, 'not compressed for a client that does not ask');
    is_deeply([ $packed->{status}, $packed->{headers}{'content-encoding'} ], [ 200, 'gzip' ],
              'gzip for one that does');
    like($packed->{headers}{vary} // '', qr/\bAccept-Encoding\b/i, 'with Vary: Accept-Encoding');
    is($gunzip->($packed->{body}), $plain->{body}, 'decoding to the same bytes');
    cmp_ok(length $packed->{body}, '<', length($plain->{body}) / 4, 'under a quarter of their size');
    note('the page of 50 through Apache: ' . length($plain->{body}) . ' bytes, '
         . length($packed->{body}) . ' gzip');
    # The browser's session too, and the CSV export.
    $r = curl(jar('alice'), '-H', 'Accept-Encoding: gzip, deflate, br', "$web/api/export?format=csv");
    my $csv = curl(jar('alice'), "$web/api/export?format=csv");
    is_deeply([ $r->{status}, $r->{headers}{'content-encoding'}, $r->{headers}{'content-type'} ],
              [ 200, 'gzip', 'text/csv; charset=utf-8' ], 'the CSV export to a browser: gzip, text/csv');
    is($gunzip->($r->{body}), $csv->{body}, 'the same CSV decoded');
    # The tag is the service's own: a conditional request still matches.
    SKIP: {
        my $tag = $packed->{headers}{etag} or skip 'the service sends no ETag', 1;
        $r = curl(@auth, '-H', 'Accept-Encoding: gzip', '-H', "If-None-Match: $tag",
                  "$web/api/transactions?limit=50");
        is($r->{status}, 304, "If-None-Match with the compressed answer's tag ($tag): 304");
    }
    $r = curl(@auth, '-H', 'Accept-Encoding: gzip', "$web/api/transactions/999999999");
    my $body = ($r->{headers}{'content-encoding'} // '') eq 'gzip' ? $gunzip->($r->{body}) : $r->{body};
    is_deeply([ $r->{status}, (eval { decode_json($body // '') } // {})->{error}{code} ], [ 404, 'not_found' ],
              'an error asked with gzip is still the JSON error');
}

# ---- slow clients ----------------------------------------------------------------------
# Two clients trickle a body each at about 6 KB/s, as many as there are
# ledger-fcgi processes.  Apache spools a body before it connects to the
# service (etc/apache-ledger.conf), so both processes stay free: /api/me
# answers at once, and each slow body still arrives whole.
{
    my $pad = 60_000;
    my @slow;
    for my $i (1, 2) {
        my $body = qq({"name":"slow-$i") . (' ' x $pad) . '}';
        my $out = "$dir/slow-$i.status";
        my $pid = fork // die "fork: $!";
        if ($pid == 0) {
            my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $web_port) or POSIX::_exit(1);
            $s->autoflush(1);
            print $s "POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $token\r\n"
                . "Content-Type: application/json\r\nContent-Length: " . length($body)
                . "\r\nConnection: close\r\n\r\n";
            while (length $body) {
                print $s substr($body, 0, 3000, '');
                sleep 0.5;
            }
            my $reply = do { local $/; <$s> } // '';
            Rig::write_file($out, $reply =~ m{^HTTP/1\.\d (\d{3})} ? $1 : 'none');
            POSIX::_exit(0);
        }
        push @slow, [$pid, $out];
    }
    sleep 2;
    my $t0 = time;
    $r = curl('-H', "Authorization: Bearer $token", "$web/api/me");
    my $took = time - $t0;
    is($r->{status}, 200, 'while two slow bodies trickle in, /api/me answers');
    cmp_ok($took, '<', 4, sprintf('at once (%.2f s), not after the slow bodies (10 s)', $took));
    ok((grep { waitpid($_->[0], WNOHANG) == 0 } @slow) == 2, 'the slow bodies were still coming then');
    waitpid($_->[0], 0) for @slow;
    is_deeply([map { Rig::slurp($_->[1]) } @slow], [201, 201], 'and each slow body arrived whole');

    # What Apache spools is bounded: a body announced over the service's
    # limit is refused before any of it is sent.
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $web_port) or die "connect: $!";
    print $s "POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $token\r\n"
        . "Content-Type: application/json\r\nContent-Length: " . (16 * 1024 * 1024 + 1)
        . "\r\nConnection: close\r\n\r\n";
    my $reply = do { local $/; local $SIG{ALRM} = sub { die "no answer\n" }; alarm 10; my $x = <$s>; alarm 0; $x } // '';
    like($reply, qr{\AHTTP/1\.1 413 .*"code":\s*"payload_too_large"}s,
         'a body announced over 16 MiB: 413 payload_too_large, nothing spooled');
}

# ---- both ledger-fcgi processes served -----------------------------------------------
SKIP: {
    my $ctl = Rig::find_program('supervisorctl') or skip 'supervisorctl not installed', 1;
    # supervisord calls a process RUNNING once it has stayed up startsecs
    # (1 s); on a quiet machine the test gets here sooner than that.
    my ($status, @running);
    for (1 .. 100) {
        $status = `$ctl -c $dir/supervisord.conf status 2>&1`;
        @running = $status =~ /^ledger:ledger_\d+\s+RUNNING/mg;
        last if @running == 2 || $status =~ /FATAL|EXITED|BACKOFF/;
        sleep 0.1;
    }
    is(scalar @running, 2, 'two ledger-fcgi processes RUNNING under supervisord')
        or diag $status, logs('supervisord.log', 'ledger.log');

    # Stopped, the service is Apache's 503 in the API's error body
    # (etc/errors through the snippet's ErrorDocument), not an HTML page.
    `$ctl -c $dir/supervisord.conf stop 'ledger:*' 2>&1`;
    $r = curl('-H', "Authorization: Bearer $token", "$web/api/me");
    is_deeply([ $r->{status}, ($r->{json} // {})->{error}{code} ], [ 503, 'unavailable' ],
              'the service stopped: 503 unavailable, as JSON') or diag $r->{body};
}
unlike(Rig::slurp("$dir/apache-error.log"), qr/\[(?:\w+:)?(?:emerg|crit)\]/, 'Apache logged nothing critical');

stop_all();
done_testing();
