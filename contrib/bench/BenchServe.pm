# What the benchmark's HTTP scripts (http.pl, fair.pl, memory.pl) share:
# a free port, ledger-fcgi processes on one socket, an nginx in front of
# them, and the rows of the big jobs' bodies.  The processes started are kept in @BenchServe::kids and stopped
# when the script ends, however it ends.
package BenchServe;

use strict;
use warnings;
use File::Copy ();
use File::Temp ();
use IO::Socket::INET;
use IO::Socket::UNIX;
use POSIX ();
use Time::HiRes qw(sleep);

our @kids;
END { local $?; kill 'TERM', @kids; waitpid($_, 0) for @kids }

# A TCP port nothing listens on now.
sub free_port {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1) or die $!;
    my $p = $s->sockport;
    close $s;
    return $p;
}

# serve($dir, $path, $n, @cmd): $n processes of @cmd serving one
# listening socket at $path they inherit on fd 0, as supervisord's
# fcgi-program runs them; their errors go to $dir/fcgi.err.  Their pids.
sub serve {
    my ($dir, $path, $n, @cmd) = @_;
    unlink $path;
    my $l = IO::Socket::UNIX->new(Local => $path, Type => SOCK_STREAM, Listen => 128) or die "$path: $!";
    chmod 0666, $path;
    my @pids;
    for (1 .. $n) {
        my $pid = fork // die;
        if ($pid == 0) {
            open STDIN, '<&', $l or die;
            open STDOUT, '>', '/dev/null';
            open STDERR, '>>', "$dir/fcgi.err";
            exec @cmd or POSIX::_exit(127);
        }
        push @pids, $pid;
    }
    close $l;
    push @kids, @pids;
    return @pids;
}

# stop(@pids): ends them and forgets them.
sub stop {
    my @pids = @_;
    kill 'TERM', @pids;
    for my $p (@pids) { waitpid($p, 0); @kids = grep { $_ != $p } @kids }
}

# nginx($dir, $port, $http, $server): an nginx on 127.0.0.1:$port with
# $http's lines in its http block and $server's in its server block (the
# locations), its files under $dir.  Never a production configuration.
# Its pid, once it answers.
sub nginx {
    my ($dir, $port, $http, $server) = @_;
    my $user = $> == 0 ? 'user www-data;' : '';
    mkdir "$dir/tmp";
    open my $fh, '>', "$dir/nginx.conf" or die;
    print $fh <<"CONF";
$user
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    fastcgi_temp_path $dir/tmp/fastcgi;
    proxy_temp_path $dir/tmp/proxy;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
$http
    server {
        listen 127.0.0.1:$port;
$server
    }
}
CONF
    close $fh;
    my $pid = fork // die;
    if ($pid == 0) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>>', "$dir/nginx.err";
        exec 'nginx', '-p', $dir, '-e', "$dir/nginx-error.log", '-c', "$dir/nginx.conf",
            '-g', 'daemon off;' or POSIX::_exit(127);
    }
    push @kids, $pid;
    for (1 .. 100) { last if IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port); sleep 0.1 }
    return $pid;
}

# nginx_as_header($dir, $port, $src): nginx() in front of $dir/ledger.sock,
# taking the user from the X-Bench-User header (many users from one load
# generator) and bodies of up to 64 MiB whole, with ten minutes for an
# answer: the jobs fair.pl and memory.pl send.  $src is the source tree
# (its etc/nginx-fastcgi-params.conf).
sub nginx_as_header {
    my ($dir, $port, $src) = @_;
    return nginx($dir, $port, <<'HTTP', <<"LOC");
    client_max_body_size 64m;
    client_body_buffer_size 64m;
    fastcgi_read_timeout 600s;
HTTP
        location /api/ {
            include $src/etc/nginx-fastcgi-params.conf;
            fastcgi_param REMOTE_USER \$http_x_bench_user;
            fastcgi_pass unix:$dir/ledger.sock;
            fastcgi_keep_conn off;
        }
LOC
}

# site($name, $src_db, $src): a directory of its own (ledger-$name-*,
# removed at exit) holding a copy of the ledger $src_db as ledger.db, and
# nginx_as_header on a free port in front of its ledger.sock, where the
# caller serves it.  ($dir, $port).
sub site {
    my ($name, $src_db, $src) = @_;
    my $dir = File::Temp::tempdir("ledger-$name-XXXXXX", TMPDIR => 1, CLEANUP => 1);
    chmod 0711, $dir;
    my $port = free_port();
    File::Copy::copy($src_db, "$dir/ledger.db") or die "copy: $!";
    nginx_as_header($dir, $port, $src);
    return ($dir, $port);
}

# rows($n, $label, $more): $n rows of a big job's JSON body, joined by
# commas: dates over a year, descriptions "$label N", amounts up to
# 300.99, and $more (",\"transaction_type\":\"debit\"", say) in each.
sub rows {
    my ($n, $label, $more) = @_;
    return join(',', map { sprintf('{"date":"2024-%02d-%02d","description":"%s %d","amount":%d.%02d%s}',
                                   1 + $_ % 12, 1 + $_ % 28, $label, $_, 1 + $_ % 300, $_ % 100,
                                   $more // '') } 0 .. $n - 1);
}

1;
