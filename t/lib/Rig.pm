# The HTTP test rig: a real web server (nginx or Apache httpd) on a random
# 127.0.0.1 port in front of the real ledger-fcgi on a unix socket, with a
# fresh database in a temporary directory.  Everything it starts is stopped
# when the object goes away (or the test ends), and nothing is left behind.
#
# Identity is set the way production sets it: the web server authenticates
# (HTTP Basic here, mod_auth_openidc in production) and passes REMOTE_USER as
# a FastCGI parameter.  nginx also serves the API on a second port without
# authentication and without REMOTE_USER, to prove that nothing a client
# sends there (an Authorization header included) becomes an identity.
package Rig;

use strict;
use warnings;
use Carp qw(croak);
use Cwd ();
use Digest::SHA qw(sha1);
use Fcntl qw(:flock);
use File::Spec;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Socket::INET;
use IO::Socket::UNIX;
use JSON::PP;
use MIME::Base64 qw(encode_base64);
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);

our @USERS = qw(alice bob carol dave erin);
my @LIVE;

sub srcdir { Cwd::abs_path($ENV{LEDGER_SRCDIR} // '.') }
sub fcgi_bin { $ENV{LEDGER_FCGI} // 'fcgi/ledger-fcgi' }

# A port nothing listens on, for a server this process starts.  The kernel
# may give the same free port to two test processes running side by side
# before either server has bound it; the loser's server then fails to bind
# while its requests reach the other one (a test once got another rig's
# 401 page).  So each port is also claimed with a lock file held until
# this process exits, and a port another process holds is passed over.
my %PORT_LOCKS;
sub free_port {
    my $dir = File::Spec->tmpdir . '/ledger-rig-ports';
    mkdir $dir, 01777 and chmod 01777, $dir;
    for (1 .. 100) {
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                      Listen => 1, ReuseAddr => 1) or croak "no free port: $!";
        my $port = $s->sockport;
        close $s;
        next if $PORT_LOCKS{$port};
        open my $fh, '>>', "$dir/$port" or croak "$dir/$port: $!";
        chmod 0666, "$dir/$port";
        if (flock $fh, LOCK_EX | LOCK_NB) {
            $PORT_LOCKS{$port} = $fh;
            return $port;
        }
        close $fh;
    }
    croak 'no free port: every one offered is held by another test process';
}

sub find_program {
    my ($name) = @_;
    for my $d (split(/:/, $ENV{PATH} // ''), '/usr/sbin', '/usr/local/sbin', '/sbin') {
        return "$d/$name" if -x "$d/$name";
    }
    return undef;
}

sub write_file {
    my ($path, $text) = @_;
    open my $fh, '>', $path or croak "$path: $!";
    print $fh $text;
    close $fh;
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or return '';
    local $/;
    return scalar <$fh>;
}

# s percent-encoded for a query value (bytes as they are: UTF-8 text
# stays UTF-8).
sub uri_escape {
    my ($s) = @_;
    $s =~ s/([^A-Za-z0-9._~-])/sprintf('%%%02X', ord $1)/ge;
    return $s;
}

# Options: server => 'nginx' | 'apache', db => path (else a new one),
# fcgi_args => [...], start => 0 to only prepare, web_root => a directory
# nginx serves as static files at / beside /api (the web client), with
# csv_presets => a directory served at /csv-presets/, procs => N to run N
# ledger-fcgi processes on one socket they inherit, as supervisord does.
sub new {
    my ($class, %o) = @_;
    my $self = bless {
        server => $o{server} // 'nginx',
        fcgi_args => $o{fcgi_args} // [],
        web_root => $o{web_root},
        csv_presets => $o{csv_presets},
        procs => $o{procs} // 1,
        pids => {},
    }, $class;
    $self->{dir} = tempdir('ledger-rig-XXXXXX', TMPDIR => 1, CLEANUP => 1);
    # The web server's workers run as www-data when the tests run as root:
    # they must reach the socket through this directory.
    chmod 0711, $self->{dir};
    $self->{db} = $o{db} // "$self->{dir}/ledger.db";
    $self->{sock} = "$self->{dir}/ledger.sock";
    $self->{port} = free_port();
    $self->{open_port} = free_port();
    $self->{root} = $> == 0;
    my $pw = '';
    $pw .= "$_:{SHA}" . encode_base64(sha1("$_-pw"), '') . "\n" for @USERS;
    write_file("$self->{dir}/htpasswd", $pw);
    chmod 0644, "$self->{dir}/htpasswd";
    push @LIVE, $self;
    $self->start unless defined $o{start} && !$o{start};
    return $self;
}

sub dir { $_[0]{dir} }
sub db_path { $_[0]{db} }
sub port { $_[0]{port} }
sub socket_path { $_[0]{sock} }

sub spawn {
    my ($self, $name, @cmd) = @_;
    my $log = "$self->{dir}/$name.out";
    my $pid = fork // croak "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>>', $log;
        open STDERR, '>>', $log;
        exec @cmd or POSIX::_exit(127);
    }
    $self->{pids}{$name} = $pid;
    return $pid;
}

sub wait_until {
    my ($what, $timeout, $cond) = @_;
    my $end = time + $timeout;
    while (time < $end) {
        return 1 if $cond->();
        sleep 0.05;
    }
    croak "timed out waiting for $what";
}

sub fcgi_command {
    my ($self, $inherited) = @_;
    my @cmd = (fcgi_bin(), '--db', $self->{db}, @{ $self->{fcgi_args} });
    push @cmd, '--socket', $self->{sock} unless $inherited;
    push @cmd, '--socket-group', 'www-data' if $self->{root} && !$inherited;
    if ($ENV{LEDGER_VALGRIND}) {
        push @cmd, '--no-jit';
        unshift @cmd, 'valgrind', '--quiet', '--error-exitcode=99', '--leak-check=full',
            '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite', ($ENV{LEDGER_VALGRIND_ORIGINS} ? ('--track-origins=yes') : ()),
            "--log-file=$self->{dir}/valgrind.%p.log";
    }
    return @cmd;
}

# procs => N: one listening socket, made here with the mode supervisord is
# told to give it (0660, the web server's group), passed to each process
# on fd 0.
sub start_fcgi_procs {
    my ($self) = @_;
    unlink $self->{sock};
    my $l = IO::Socket::UNIX->new(Local => $self->{sock}, Type => SOCK_STREAM, Listen => 128)
        or croak "$self->{sock}: $!";
    if ($self->{root}) {
        chown -1, scalar(getgrnam('www-data')), $self->{sock};
        chmod 0660, $self->{sock};
    } else {
        chmod 0666, $self->{sock};
    }
    for my $i (1 .. $self->{procs}) {
        my $log = "$self->{dir}/fcgi$i.out";
        my @cmd = $self->fcgi_command(1);
        my $pid = fork // croak "fork: $!";
        if ($pid == 0) {
            open STDIN, '<&', $l or POSIX::_exit(127);
            open STDOUT, '>>', $log;
            open STDERR, '>>', $log;
            exec @cmd or POSIX::_exit(127);
        }
        $self->{pids}{"fcgi$i"} = $pid;
    }
    close $l;
}

# The pids of the ledger-fcgi processes running now.
sub fcgi_pids {
    my ($self) = @_;
    return map { $self->{pids}{$_} } grep { /^fcgi/ } sort keys %{ $self->{pids} };
}

sub start_fcgi {
    my ($self) = @_;
    return $self->start_fcgi_procs if $self->{procs} > 1;
    unlink $self->{sock};
    $self->spawn('fcgi', $self->fcgi_command);
    wait_until('ledger-fcgi socket', $ENV{LEDGER_VALGRIND} ? 60 : 10, sub {
        croak "ledger-fcgi exited:\n" . slurp("$self->{dir}/fcgi.out")
            if waitpid($self->{pids}{fcgi}, WNOHANG) > 0;
        # Accepting connections, not just created: the file appears at
        # bind(), before listen().
        -S $self->{sock} && IO::Socket::UNIX->new(Peer => $self->{sock}, Type => SOCK_STREAM);
    });
}

sub start {
    my ($self) = @_;
    $self->start_fcgi;
    $self->{server} eq 'apache' ? $self->start_apache : $self->start_nginx;
    for my $p ($self->{port}, $self->{open_port}) {
        wait_until("web server on port $p", 10, sub {
            croak "$self->{server} exited:\n" . slurp("$self->{dir}/$self->{server}.out")
                . slurp("$self->{dir}/$self->{server}-error.log")
                if waitpid($self->{pids}{ $self->{server} }, WNOHANG) > 0;
            IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $p);
        });
    }
    $self->{http} = HTTP::Tiny->new(timeout => 60, keep_alive => 0);
    return $self;
}

# The errors the web server makes itself and the file of etc/errors that
# answers each, as the configurations in etc/ have them.
our @ERROR_PAGES = ([413, 'payload_too_large'], [502, 'bad_gateway'],
                    [503, 'unavailable'], [504, 'timeout']);
# nginx's own besides: a 401 of its authentication under /api/, and those
# it makes before a location is chosen (server level).  A third element is
# the status the page is answered with (nginx's 494, a header over its
# buffers, is a 400 to the client).
our @NGINX_API_ERROR_PAGES = ([401, 'unauthenticated']);
our @NGINX_SERVER_ERROR_PAGES = ([400, 'invalid_request'], [405, 'method_not_allowed'],
                                 [414, 'uri_too_long'], [494, 'header_too_large', 400],
                                 [501, 'not_implemented'], [505, 'http_version_not_supported']);

# The compression settings of the shipped configurations, copied into the
# rig's own so that t/0040 and t/0041 test what an operator installs (and a
# setting lost from etc/ fails here): for nginx the gzip lines of
# etc/nginx-ledger.conf's /api/ location; for Apache the lines of
# etc/apache-ledger.conf outside any section (DeflateAlterETag,
# FilterDeclare) and those of its /api/ location (FilterProvider,
# FilterChain), as (server lines, location lines).
sub shipped_compression {
    my ($server) = @_;
    if ($server eq 'nginx') {
        my ($api) = slurp(srcdir() . '/etc/nginx-ledger.conf') =~ m{\n    location /api/ \{(.*?)\n    \}}s;
        my @lines = ($api // '') =~ /^\s*(gzip\w*\s[^;\n]*;)/mg;
        croak 'etc/nginx-ledger.conf: no gzip settings in location /api/' unless @lines;
        return join '', map { "            $_\n" } @lines;
    }
    my $site = slurp(srcdir() . '/etc/apache-ledger.conf');
    my ($api) = $site =~ m{\n<Location "/api/">(.*?)</Location>}s;
    my @top = $site =~ /^((?:Deflate|Filter)\w+\s.*)$/mg;
    my @loc = ($api // '') =~ /^\s*((?:Deflate|Filter)\w+\s.*)$/mg;
    croak 'etc/apache-ledger.conf: no compression settings' unless @top && @loc;
    return (join('', map { "    $_\n" } @top), join('', map { "        $_\n" } @loc));
}

sub start_nginx {
    my ($self) = @_;
    my $d = $self->{dir};
    my $nginx = find_program('nginx') or croak 'nginx not found (apt-get install nginx)';
    my $params = srcdir() . '/etc/nginx-fastcgi-params.conf';
    my $errors = srcdir() . '/etc/errors';
    # The errors nginx makes itself as JSON, as in etc/nginx-ledger.conf.
    my $error_pages = join '', map { "            error_page $_->[0] /ledger-errors/$_->[1].json;\n" }
        @NGINX_API_ERROR_PAGES, @ERROR_PAGES;
    my $server_error_pages = join '', map {
        '        error_page ' . join(' ', $_->[0], $_->[2] ? "=$_->[2]" : (), "/ledger-errors/$_->[1].json;\n")
    } @NGINX_SERVER_ERROR_PAGES;
    my $error_files = <<"LOC";
        location ^~ /ledger-errors/ {
            internal;
            alias $errors/;
            types { }
            default_type "application/json; charset=utf-8";
            add_header X-Request-Id \$request_id always;
            add_header Retry-After \$ledger_retry_after always;
        }
LOC
    my $user = $self->{root} ? "user www-data;\n" : '';
    my $gzip = shipped_compression('nginx');
    mkdir "$d/nginx-tmp";
    # The web client: static files, public like any login page's assets;
    # the data behind /api stays authenticated.
    # ES modules load only with a JavaScript MIME type.
    my $types = 'types { text/html html; text/css css; text/javascript js mjs; '
        . 'application/json json; image/svg+xml svg; }';
    my $static = '';
    $static .= "        location / { root $self->{web_root}; index index.html; $types }\n"
        if defined $self->{web_root};
    $static .= "        location /csv-presets/ { alias $self->{csv_presets}/; $types }\n"
        if defined $self->{csv_presets};
    write_file("$d/nginx.conf", <<"CONF");
${user}worker_processes 1;
pid $d/nginx.pid;
error_log $d/nginx-error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $d/nginx-tmp/body;
    fastcgi_temp_path $d/nginx-tmp/fastcgi;
    proxy_temp_path $d/nginx-tmp/proxy;
    uwsgi_temp_path $d/nginx-tmp/uwsgi;
    scgi_temp_path $d/nginx-tmp/scgi;
    # Above the service's own limit, so its 413 is what a client sees.
    client_max_body_size 64m;
    map \$status \$ledger_retry_after { 503 1; default ""; }
    server {
        listen 127.0.0.1:$self->{port};
${static}        location /api/ {
            auth_basic "ledger";
            auth_basic_user_file $d/htpasswd;
            include $params;
            # Only here, where nginx has checked the password.  The email
            # claim stands in for the one an OpenID provider would give.
            fastcgi_param REMOTE_USER \$remote_user;
            fastcgi_param OIDC_CLAIM_email \$remote_user\@example.org;
            fastcgi_param OIDC_CLAIM_email_verified 1;
            fastcgi_pass unix:$self->{sock};
${gzip}${error_pages}        }
${server_error_pages}${error_files}    }
    server {
        listen 127.0.0.1:$self->{open_port};
        location /api/ {
            include $params;
            fastcgi_pass unix:$self->{sock};
${error_pages}        }
${server_error_pages}${error_files}    }
}
CONF
    $self->spawn('nginx', $nginx, '-p', $d, '-e', "$d/nginx-error.log", '-c', "$d/nginx.conf", '-g', 'daemon off;');
}

sub apache_modules {
    my @mods = qw(mpm_event authz_core authz_user authn_core authn_file auth_basic
                  proxy proxy_fcgi alias mime filter deflate);
    return join '', map { "LoadModule ${_}_module /usr/lib/apache2/modules/mod_$_.so\n" } @mods;
}

sub start_apache {
    my ($self) = @_;
    my $d = $self->{dir};
    my $httpd = find_program('apache2') // find_program('httpd')
        or croak 'apache2 not found (apt-get install apache2)';
    my $user = $self->{root} ? "User www-data\nGroup www-data\n" : '';
    my ($gzip_server, $gzip_api) = shipped_compression('apache');
    # The errors Apache makes itself as JSON, as in etc/apache-ledger.conf.
    my $apache_errors = join '', map { "        ErrorDocument $_->[0] /ledger-errors/$_->[1].json\n" } @ERROR_PAGES;
    my $errors = srcdir() . '/etc/errors';
    my $apache_error_files = <<"LOC";
    Alias "/ledger-errors/" "$errors/"
    <Location "/ledger-errors/">
        Require all granted
        ForceType "application/json; charset=utf-8"
    </Location>
    <Directory "$errors/">
        Require all granted
    </Directory>
LOC
    write_file("$d/httpd.conf", apache_modules() . <<"CONF");
ServerName 127.0.0.1
Listen 127.0.0.1:$self->{port}
Listen 127.0.0.1:$self->{open_port}
PidFile $d/httpd.pid
ErrorLog $d/apache-error.log
LogLevel warn
DefaultRuntimeDir $d
Mutex file:$d default
${user}StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
LimitRequestBody 67108864
TypesConfig /dev/null
<VirtualHost 127.0.0.1:$self->{port}>
    AllowEncodedSlashes NoDecode
$gzip_server    <Location "/api/">
        AuthType Basic
        AuthName "ledger"
        AuthBasicProvider file
        AuthUserFile "$d/htpasswd"
        Require valid-user
        SetHandler "proxy:unix:$self->{sock}|fcgi://localhost/"
$gzip_api$apache_errors    </Location>
$apache_error_files</VirtualHost>
<VirtualHost 127.0.0.1:$self->{open_port}>
    AllowEncodedSlashes NoDecode
    <Location "/api/">
        Require all granted
        SetHandler "proxy:unix:$self->{sock}|fcgi://localhost/"
$apache_errors    </Location>
$apache_error_files</VirtualHost>
CONF
    $self->spawn('apache', $httpd, '-f', "$d/httpd.conf", '-DFOREGROUND');
}

# $rig->request(METHOD, PATH, user => NAME | open => 1, json => REF,
#               body => BYTES, type => CONTENT_TYPE, headers => {...})
# Returns {status, headers, content, json (decoded when the reply is JSON)}.
sub request {
    my ($self, $method, $path, %o) = @_;
    my %h = %{ $o{headers} // {} };
    my $port = $o{open} ? $self->{open_port} : $self->{port};
    if (defined $o{user}) {
        $h{Authorization} = 'Basic ' . encode_base64("$o{user}:$o{user}-pw", '');
    }
    my %args = (headers => \%h);
    if (exists $o{json}) {
        $args{content} = JSON::PP->new->canonical->encode($o{json});
        $h{'Content-Type'} //= 'application/json';
    } elsif (defined $o{body}) {
        $args{content} = $o{body};
    }
    $h{'Content-Type'} = $o{type} if defined $o{type};
    my $r = $self->{http}->request($method, "http://127.0.0.1:$port$path", \%args);
    my $res = { status => $r->{status}, headers => $r->{headers}, content => $r->{content} };
    if (($r->{headers}{'content-type'} // '') =~ m{^application/json}) {
        $res->{json} = eval { JSON::PP->new->decode($r->{content}) };
    }
    return $res;
}

sub get { my ($s, $p, %o) = @_; $s->request('GET', $p, %o) }
sub post { my ($s, $p, $j, %o) = @_; $s->request('POST', $p, json => $j, %o) }
sub patch { my ($s, $p, $j, %o) = @_; $s->request('PATCH', $p, json => $j, %o) }
sub put { my ($s, $p, $j, %o) = @_; $s->request('PUT', $p, json => $j, %o) }
sub del { my ($s, $p, %o) = @_; $s->request('DELETE', $p, %o) }

# Runs SQL on the service's database with the sqlite3 tool (WAL mode: safe
# while the service runs), for what the API has no route for; returns the
# output, trimmed.
sub sql {
    my ($self, $q) = @_;
    open my $fh, '-|', 'sqlite3', '-cmd', '.timeout 5000', $self->{db}, $q
        or croak "sqlite3: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    croak "sqlite3 failed on: $q" if $?;
    $out =~ s/\s+\z//;
    return $out;
}

sub fcgi_pid { $_[0]{pids}{fcgi} }
sub fcgi_log { slurp("$_[0]{dir}/fcgi.out") }

# Sends a signal to ledger-fcgi and waits for it to exit; returns the wait
# status, or undef if it had to be killed.
sub stop_fcgi {
    my ($self, $sig, $timeout) = @_;
    my $pid = delete $self->{pids}{fcgi} or return undef;
    kill $sig // 'TERM', $pid;
    my $end = time + ($timeout // 10);
    while (time < $end) {
        return $? if waitpid($pid, WNOHANG) > 0;
        sleep 0.05;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    return undef;
}

sub stop {
    my ($self) = @_;
    local $?;  # called from END: must not change the test's exit status
    for my $name (reverse sort keys %{ $self->{pids} }) {
        my $pid = delete $self->{pids}{$name};
        kill 'TERM', $pid;
        my $end = time + ($ENV{LEDGER_VALGRIND} ? 60 : 10);
        my $status;
        while (time < $end) {
            if (waitpid($pid, WNOHANG) > 0) { $status = $?; last }
            sleep 0.05;
        }
        unless (defined $status) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
        }
        # ledger-fcgi exits 0 on SIGTERM.  Anything else (a sanitizer's or
        # valgrind's report at exit, a crash) fails the whole test file,
        # even after its last test: TAP's "Bail out!" is an error.
        if ($name =~ /^fcgi/ && (!defined $status || $status != 0)) {
            my $how = defined $status ? "status $status" : 'no exit on SIGTERM';
            my $log = join '', map { slurp($_) } "$self->{dir}/$name.out",
                glob("$self->{dir}/valgrind.*.log");
            $log =~ s/^/# /mg;
            print "$log\nBail out! ledger-fcgi ended with $how\n";
        }
    }
}

sub DESTROY { $_[0]->stop if $_[0]{pids} }
END { $_->stop for @LIVE; @LIVE = () }

1;
