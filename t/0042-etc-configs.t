#!/usr/bin/perl
# The configuration an operator copies from etc/ is accepted by the real
# programs: nginx -t and apache2 -t with the modules it needs loaded.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use Rig;

my $etc = Rig::srcdir() . '/etc';
my $dir = tempdir('ledger-etc-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# ---- the directories supervisord and the service need ---------------------------
# /run is emptied at boot and supervisord makes neither a socket's directory
# nor a log's: etc/tmpfiles-ledger.conf must make every one the supervisord
# section names, the database's private to the service's account.
{
    my $sv = Rig::slurp("$etc/supervisord-ledger.conf");
    my %made = map { (split ' ')[1] => [ (split ' ')[2 .. 4] ] }
               grep { /^d\s/ } split /\n/, Rig::slurp("$etc/tmpfiles-ledger.conf");
    my ($sock) = $sv =~ m{^socket=unix://(\S+)/[^/\s]+$}m;
    my ($home) = $sv =~ m{^directory=(\S+)$}m;
    my ($log) = $sv =~ m{^stdout_logfile=(\S+)/[^/\s]+$}m;
    my ($user) = $sv =~ m{^user=(\S+)$}m;
    my ($group) = $sv =~ m{^socket_owner=\S+:(\S+)$}m;
    for ([$sock, 'the socket'], [$home, 'the database'], [$log, 'the log']) {
        ok(defined $_->[0] && $made{ $_->[0] }, "tmpfiles makes the directory of $_->[1] ("
           . ($_->[0] // 'not found') . ')');
    }
    is_deeply($made{ $sock // '' }, [ '0750', $user, $group ],
              "the socket's directory: the service's account, the web server's group may enter");
    is_deeply($made{ $home // '' }, [ '0700', $user, $user ], "the database's: the service's account alone");
    is(($made{ $log // '' } // [])->[1], $user, "the log's: the service's account");
}

# ---- nginx ------------------------------------------------------------------------
my $params = Rig::slurp("$etc/nginx-fastcgi-params.conf");
unlike($params, qr/^\s*fastcgi_param\s+REMOTE_USER/m,
       'the shared FastCGI params never pass REMOTE_USER');
my $site = Rig::slurp("$etc/nginx-ledger.conf");
unlike($site, qr/^\s*include\s+\S*fastcgi_params\s*;/m, "the server block does not include Debian's fastcgi_params");
my @remote_user = $site =~ /^\s*fastcgi_param\s+REMOTE_USER\s+(\S+);/mg;
is_deeply(\@remote_user, ['$ledger_user'], 'REMOTE_USER comes only from the auth_request answer');
like($site, qr/auth_request_set \$ledger_user \$upstream_http_x_auth_request_user;/, 'set from the auth proxy');

# Compression of the API's answers (t/0040 and t/0041 run these very
# lines, t/0062 the whole Apache file): gzip for the JSON and export types,
# with Vary, and in Apache the service's own ETag kept.
{
    my ($api) = $site =~ m{\n    location /api/ \{(.*?)\n    \}}s;
    like($api // '', qr/^\s*gzip on;$/m, 'nginx: gzip in /api/');
    like($api // '', qr/^\s*gzip_vary on;$/m, 'with Vary: Accept-Encoding');
    my ($types) = ($api // '') =~ /^\s*gzip_types ([^;]*);/m;
    is_deeply([ sort split ' ', $types // '' ], [ qw(application/json text/csv text/plain) ],
              'for JSON, CSV and the journal (text/plain)');
    like($api // '', qr/^\s*gzip_min_length \d+;$/m, 'above a small size');
}

SKIP: {
    my $nginx = Rig::find_program('nginx') or skip 'nginx not installed', 1;
    my $port = Rig::free_port();
    # The test has no certificate: plain HTTP on loopback instead of TLS.
    (my $s = $site) =~ s/^\s*listen 443 ssl;/    listen 127.0.0.1:$port;/m;
    $s =~ s/^\s*ssl_certificate\S*\s+\S+;\n//mg;
    $s =~ s{include /etc/nginx/nginx-fastcgi-params.conf;}{include $etc/nginx-fastcgi-params.conf;};
    Rig::write_file("$dir/site.conf", $s);
    mkdir "$dir/tmp";
    Rig::write_file("$dir/nginx.conf", <<"CONF");
pid $dir/nginx.pid;
error_log $dir/error.log;
events { }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    fastcgi_temp_path $dir/tmp/fastcgi;
    proxy_temp_path $dir/tmp/proxy;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    include $dir/site.conf;
}
CONF
    my $out = `$nginx -t -p $dir -c $dir/nginx.conf 2>&1`;
    is($?, 0, 'nginx -t accepts etc/nginx-ledger.conf') or diag $out;
}

# ---- Apache httpd ---------------------------------------------------------------------
my $apache_site = Rig::slurp("$etc/apache-ledger.conf");
like($apache_site, qr/OIDCPassClaimsAs environment/, 'claims reach the service as parameters, not headers');
like($apache_site, qr{SetHandler "proxy:unix:[^"]+\|fcgi://localhost/"}, 'forwarded with mod_proxy_fcgi');
like($apache_site, qr{<Location "/api/">}, 'mounted at /api');
like($apache_site, qr/^OIDCRemoteUserClaim sub$/m, "REMOTE_USER is the provider's subject");
like($apache_site, qr/^OIDCOAuthRemoteUserClaim sub$/m, 'for bearer tokens too');
my ($api) = $apache_site =~ m{<Location "/api/">(.*?)</Location>}s;
like($api // '', qr/^\s*OIDCUnAuthAction 401$/m, 'no session under /api: 401, never a login redirect');
like($apache_site, qr/^DeflateAlterETag NoChange$/m,
     "Apache: a compressed answer keeps the service's ETag (no -gzip the service never made)");
like($api // '', qr/^\s*FilterProvider ledger_gzip DEFLATE .*application\/json\|text\/csv\|text\/plain/m,
     'gzip in /api/ for JSON, CSV and the journal');
like($api // '', qr/^\s*FilterChain ledger_gzip$/m, 'in the chain there');
my ($callback) = $apache_site =~ m{^OIDCRedirectURI https?://[^/]+(/\S*)$}m;
unlike($callback // '/api/', qr{^/api/}, 'the OIDC callback is outside /api');

SKIP: {
    my $httpd = Rig::find_program('apache2') // Rig::find_program('httpd')
        or skip 'apache2 not installed', 1;
    my $mods = '/usr/lib/apache2/modules';
    skip 'mod_auth_openidc not installed (apt-get install libapache2-mod-auth-openidc)', 1
        unless -e "$mods/mod_auth_openidc.so";
    my $port = Rig::free_port();
    my $load = join '', map { "LoadModule ${_}_module $mods/mod_$_.so\n" }
        qw(mpm_event authz_core authz_user authn_core rewrite auth_openidc proxy proxy_fcgi alias mime
           buffer env reqtimeout filter deflate);
    Rig::write_file("$dir/httpd.conf", <<"CONF");
$load
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/httpd.pid
ErrorLog $dir/apache-error.log
DefaultRuntimeDir $dir
TypesConfig /dev/null
<VirtualHost 127.0.0.1:$port>
    Include $etc/apache-ledger.conf
</VirtualHost>
CONF
    my $out = `$httpd -t -f $dir/httpd.conf 2>&1`;
    is($?, 0, 'apache2 -t accepts etc/apache-ledger.conf with mod_auth_openidc and mod_proxy_fcgi')
        or diag $out;
}

# ---- the errors the web server makes itself ------------------------------------------
# Both configurations answer them from etc/errors in the API's error body,
# as the rig does (t/0040 and t/0041 provoke them there).
{
    my %nginx = map { ($_->[0] . ($_->[1] // ''), $_->[2]) }
        grep { @$_ } map { [ /^(\d{3})( =\d{3})? \/ledger-errors\/(\w+)\.json;/ ] }
        $site =~ m{^\s*error_page (.*)$}mg;
    my %apache = ($api // '') =~ m{^\s*ErrorDocument (\d{3}) /ledger-errors/(\w+)\.json$}mg;
    my %rig = map { @$_ } @Rig::ERROR_PAGES;
    my %rig_nginx = (%rig, map { ($_->[0] . ($_->[2] ? " =$_->[2]" : ''), $_->[1]) }
                              @Rig::NGINX_API_ERROR_PAGES, @Rig::NGINX_SERVER_ERROR_PAGES);
    is_deeply(\%nginx, \%rig_nginx, 'nginx: the same error pages as the rig');
    is_deeply(\%apache, \%rig, 'Apache: the same error pages as the rig (its 401 is the service\'s own)');
    like($site, qr!location \^~ /ledger-errors/ \{[^}]*internal;[^}]*alias /usr/share/ledger/errors/;!s,
         'nginx serves them from /usr/share/ledger/errors, only as error pages');
    like($apache_site, qr{^Alias "/ledger-errors/" "/usr/share/ledger/errors/"$}m,
         'Apache from /usr/share/ledger/errors');
    # Each file's body: the status the client sees ("494 =400": 400), and
    # as code the file's name, but where a page only tells one kind of
    # a status's error apart (a header too large is an invalid_request).
    my %code = (header_too_large => 'invalid_request');
    for my $page (sort keys %rig_nginx) {
        my $name = $rig_nginx{$page};
        my ($status) = $page =~ /(\d{3})$/;
        my $e = eval { JSON::PP->new->decode(Rig::slurp("$etc/errors/$name.json"))->{error} } // {};
        is_deeply([ $e->{status}, $e->{code} ], [ $status, $code{$name} // $name ],
                  "etc/errors/$name.json: the error body of a $status");
    }
    is_deeply([ sort map { m{/([^/]+)\.json$} } glob("$etc/errors/*.json") ], [ sort values %rig_nginx ],
              'etc/errors holds the pages the configurations name, and no others');
}

# ---- the sample ledger.conf -------------------------------------------------------------
{
    (my $conf = Rig::slurp("$etc/ledger.conf")) =~ s{^db = .*$}{db = $dir/sample.db}m;
    Rig::write_file("$dir/ledger.conf", $conf);
    my $out = `@{[Rig::fcgi_bin()]} --config $dir/ledger.conf --check 2>&1`;
    is($?, 0, 'ledger-fcgi accepts etc/ledger.conf') or diag $out;
}

done_testing();
