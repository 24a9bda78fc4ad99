# A small FastCGI client (the responder role), for tests that must talk to
# ledger-fcgi directly: bodies sent in pieces, signals in the middle of a
# request, parameters no web server would send.
package FCGIClient;

use strict;
use warnings;
use Carp qw(croak);
use IO::Socket::INET;
use IO::Socket::UNIX;

use constant { BEGIN_REQUEST => 1, END_REQUEST => 3, PARAMS => 4, FCGI_STDIN => 5,
               FCGI_STDOUT => 6, FCGI_STDERR => 7, RESPONDER => 1 };

# FCGIClient->new(path => UNIX_SOCKET) or (port => TCP_PORT on 127.0.0.1)
sub new {
    my ($class, %o) = @_;
    my $sock = $o{path}
        ? IO::Socket::UNIX->new(Peer => $o{path}, Type => SOCK_STREAM)
        : IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $o{port});
    croak "connect: $!" unless $sock;
    binmode $sock;
    return bless { sock => $sock, id => 1 }, $class;
}

sub record {
    my ($self, $type, $content) = @_;
    my $len = length $content;
    croak 'record too long' if $len > 65535;
    my $pad = (8 - $len % 8) % 8;
    $self->{sock}->syswrite(pack('CCnnCx', 1, $type, $self->{id}, $len, $pad) . $content . ("\0" x $pad));
}

sub nv_len {
    my ($n) = @_;
    return $n < 128 ? pack('C', $n) : pack('N', $n | 0x80000000);
}

# Starts a request with the given parameters (a hash ref).
sub begin {
    my ($self, $params) = @_;
    $self->record(BEGIN_REQUEST, pack('nCx5', RESPONDER, 0));
    my $p = '';
    for my $k (sort keys %$params) {
        my $v = $params->{$k} // '';
        $p .= nv_len(length $k) . nv_len(length $v) . $k . $v;
    }
    while (length $p) {
        $self->record(PARAMS, substr($p, 0, 65535, ''));
    }
    $self->record(PARAMS, '');
}

sub send_stdin {
    my ($self, $data) = @_;
    while (length $data) {
        $self->record(FCGI_STDIN, substr($data, 0, 65535, ''));
    }
}

sub end_stdin { $_[0]->record(FCGI_STDIN, '') }

sub read_exact {
    my ($self, $n) = @_;
    my $buf = '';
    while (length $buf < $n) {
        my $got = $self->{sock}->sysread($buf, $n - length $buf, length $buf);
        return undef unless $got;
    }
    return $buf;
}

# Reads records until END_REQUEST; returns {status, headers, body, stderr}
# or undef if the connection closed first.
sub response {
    my ($self) = @_;
    my ($out, $err) = ('', '');
    while (1) {
        my $h = $self->read_exact(8) // return undef;
        my (undef, $type, undef, $len, $pad) = unpack('CCnnC', $h);
        my $c = $len ? $self->read_exact($len) // return undef : '';
        $self->read_exact($pad) if $pad;
        $out .= $c if $type == FCGI_STDOUT;
        $err .= $c if $type == FCGI_STDERR;
        last if $type == END_REQUEST;
    }
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    my %headers;
    for (split /\r\n/, $head // '') {
        $headers{ lc $1 } = $2 if /^([^:]+):\s*(.*)$/;
    }
    my ($status) = ($headers{status} // '200') =~ /^(\d+)/;
    return { status => $status, headers => \%headers, body => $body // '', stderr => $err };
}

# One whole request: request(PARAMS, BODY) -> response
sub request {
    my ($self, $params, $body) = @_;
    $self->begin($params);
    $self->send_stdin($body) if defined $body && length $body;
    $self->end_stdin;
    return $self->response;
}

sub close { $_[0]{sock}->close }

# The parameters a web server sends for METHOD PATH as USER.
sub params {
    my ($method, $uri, %extra) = @_;
    return { REQUEST_METHOD => $method, REQUEST_URI => $uri, SERVER_PROTOCOL => 'HTTP/1.1',
             GATEWAY_INTERFACE => 'CGI/1.1', %extra };
}

1;
