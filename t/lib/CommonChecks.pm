# The checks every web server in front of ledger-fcgi must pass: identity
# only from the authenticated parameter, the error body, the request id, the
# body limits and media types.  t/0040 runs them behind nginx, t/0041 behind
# Apache httpd.
package CommonChecks;

use strict;
use warnings;
use Test::More;
use IO::Socket::INET;
use JSON::PP;
use MIME::Base64 ();
use IO::Uncompress::Gunzip ();

our @EXPORT_OK = qw(run error_is participant_ok ok_json manual_ok manual_id statement_ok srow m2 user_ids
                    same_rows);
use Exporter 'import';

# same_rows(\@got, \@want, $name): the two lists hold the same lines as
# many times each, in any order; a failure lists what is missing and what
# was stored beside it.
sub same_rows {
    my ($got, $want, $name) = @_;
    my %diff;
    $diff{$_}++ for @$want;
    $diff{$_}-- for @$got;
    my @missing = grep { $diff{$_} > 0 } sort keys %diff;
    my @stored = grep { $diff{$_} < 0 } sort keys %diff;
    return ok(!@missing && !@stored, $name)
        || diag(join "\n", (map { "missing: $_" } @missing), map { "stored: $_" } @stored);
}

# error_is($res, $status, $code, $name, [$field])
sub error_is {
    my ($res, $status, $code, $name, $field) = @_;
    my $e = ref $res->{json} eq 'HASH' ? $res->{json}{error} : undef;
    my $good = $res->{status} == $status && ref $e eq 'HASH'
        && ($e->{code} // '') eq $code && ($e->{status} // 0) == $status
        && defined $e->{message} && length $e->{message}
        && (!defined $field || ($e->{field} // '') eq $field);
    ok($good, "$name: $status $code" . (defined $field ? " naming $field" : ''))
        or diag("got $res->{status}: $res->{content}");
    return $good;
}

# participant_ok($rig, $user, $other): $user adds $other (by the email the
# rig's web server gives them) as a participant, 200 or 201.
sub participant_ok {
    my ($rig, $user, $other) = @_;
    my $res = $rig->post('/api/participants', { email => "$other\@example.org" }, user => $user);
    return ok($res->{status} == 200 || $res->{status} == 201, "$user adds $other as a participant")
        || diag($res->{content});
}

# ok_json($res, $what): the body of a 2xx answer; a failed setup step
# stops the test (BAIL_OUT), as nothing after it would mean anything.
sub ok_json {
    my ($res, $what) = @_;
    BAIL_OUT("$what: $res->{status} $res->{content}") if $res->{status} >= 300;
    return $res->{json};
}

# manual_ok($rig, $user, %row): $user creates the manual row %row (POST
# /api/transactions); its body, or the test stops as ok_json stops it.
sub manual_ok {
    my ($rig, $user, %row) = @_;
    return ok_json($rig->post('/api/transactions', \%row, user => $user), "$user creates $row{description}");
}
# manual_id($rig, $user, %row): the same, giving the new row's id.
sub manual_id { manual_ok(@_)->{id} }

# statement_ok($rig, $user, %f): $user creates a statement (a Test Bank
# card statement of 2025 with no rows unless %f says otherwise), checked
# 201; its body.
sub statement_ok {
    my ($rig, $user, %f) = @_;
    my $body = { bank_name => 'Test Bank', account_type => 'Visa Credit Card',
                 period_start => '2025-01-01', period_end => '2025-12-31', transactions => [], %f };
    my $res = $rig->post('/api/statements', $body, user => $user);
    is($res->{status}, 201, "$user: statement '$body->{bank_name}' with "
       . scalar(@{ $body->{transactions} }) . ' rows') or diag($res->{content});
    return $res->{json} // {};
}

# srow($date, $type, $amount, $category, $merchant, %f): a statement row
# whose description names all four (no category when undef).
sub srow {
    my ($date, $type, $amount, $category, $merchant, %f) = @_;
    return { date => $date, description => "$merchant $type $amount $date", transaction_type => $type,
             amount => $amount, (defined $category ? (category => $category) : ()),
             merchant => $merchant, %f };
}

# m2($n): a JSON number as money text with two decimals (undef stays).
sub m2 { defined $_[0] ? sprintf('%.2f', $_[0]) : undef }

# user_ids($rig): every rig user's id by name, each checked present.
sub user_ids {
    my ($rig) = @_;
    my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;
    ok(!grep({ !$_ } values %uid), 'every user has an id');
    return %uid;
}

sub run {
    my ($rig) = @_;
    my $res;

    # ---- identity -------------------------------------------------------
    $res = $rig->get('/api/me', open => 1);
    error_is($res, 401, 'unauthenticated', 'no identity');
    like($res->{headers}{'x-request-id'} // '', qr/^[0-9a-f]{16}$/, 'a 401 carries X-Request-Id');
    like($res->{headers}{'content-type'} // '', qr{^application/json; charset=utf-8},
         'errors are JSON');

    for my $h ('X-Remote-User', 'Remote-User', 'X-Forwarded-User', 'X-Auth-Request-User',
               'OIDC-CLAIM-email', 'X-Email') {
        $res = $rig->get('/api/me', open => 1, headers => { $h => 'alice' });
        error_is($res, 401, 'unauthenticated', "a spoofed $h header does not authenticate");
    }
    # nginx fills $remote_user from any client's Basic header, authenticated
    # or not: where the location does not authenticate, it must not count.
    $res = $rig->get('/api/me', open => 1, user => 'alice');
    error_is($res, 401, 'unauthenticated', "a client's own Basic header is not an identity");
    $res = $rig->get('/api/tags', open => 1, user => 'alice');
    error_is($res, 401, 'unauthenticated', 'nor on any other route');
    $res = $rig->request('POST', '/api/tags', open => 1, json => { name => 'x' },
                         headers => { 'X-Remote-User' => 'alice' });
    error_is($res, 401, 'unauthenticated', 'a spoofed write is refused');

    $res = $rig->get('/api/me', user => 'alice');
    is($res->{status}, 200, 'an authenticated user reaches /api/me');
    my $alice = $res->{json};
    ok($alice->{id} > 0, 'the user was created on first request');
    ok(exists $alice->{email} && exists $alice->{name}, 'me has id, email and name');
    like($res->{headers}{'x-request-id'} // '', qr/^[0-9a-f]{16}$/, 'a 200 carries X-Request-Id');
    isnt($res->{headers}{'x-request-id'}, $rig->get('/api/me', user => 'alice')->{headers}{'x-request-id'},
         'request ids differ between requests');
    is($rig->get('/api/me', user => 'alice')->{json}{id}, $alice->{id}, 'the same identity, the same user');
    my $bob = $rig->get('/api/me', user => 'bob')->{json};
    ok($bob->{id} && $bob->{id} != $alice->{id}, 'another identity is another user');
    $res = $rig->get('/api/me', user => 'alice', headers => { 'X-Remote-User' => 'bob' });
    is($res->{json}{id}, $alice->{id}, 'a header cannot switch an authenticated user');

    # ---- routing -------------------------------------------------------------
    error_is($rig->get('/api/no-such-thing', user => 'alice'), 404, 'not_found', 'unknown route');
    error_is($rig->get('/api/tags/abc', user => 'alice'), 404, 'not_found', 'non-numeric id');
    error_is($rig->get('/api/me/', user => 'alice'), 404, 'not_found', 'trailing slash is another path');
    # An escaped letter or digit is the letter or digit (RFC 3986 6.2.2.2).
    $res = $rig->get('/api/%6De', user => 'alice');
    is_deeply([ $res->{status}, ($res->{json} // {})->{id} ], [ 200, $alice->{id} ], '/api/%6De is /api/me');
    error_is($rig->get('/api/analytics/monthly/2026-01/%ff', user => 'alice'), 400, 'invalid_request',
             'a path segment that is not UTF-8');
    $res = $rig->request('DELETE', '/api/me', user => 'alice');
    error_is($res, 405, 'method_not_allowed', 'wrong method');
    is($res->{headers}{allow}, 'GET, HEAD', '405 names the allowed methods in Allow, HEAD with GET');
    $res = $rig->request('PUT', '/api/tags', user => 'alice', json => {});
    error_is($res, 405, 'method_not_allowed', 'PUT on a collection');
    like($res->{headers}{allow} // '', qr/^(GET, HEAD, POST|POST, GET, HEAD)$/, 'Allow lists GET, HEAD and POST');

    # ---- bodies ----------------------------------------------------------
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => '{"name": "x"',
                           type => 'application/json'),
             400, 'invalid_json', 'truncated JSON');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => "{\"name\": \"\xff\"}",
                           type => 'application/json'),
             400, 'invalid_json', 'invalid UTF-8');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => '["name"]',
                           type => 'application/json'),
             400, 'invalid_json', 'an array where an object is expected');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => '{"name": NaN}',
                           type => 'application/json'),
             400, 'invalid_json', 'NaN');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => ('[' x 5000),
                           type => 'application/json'),
             400, 'invalid_json', 'deeply nested JSON');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => '',
                           type => 'application/json'),
             400, 'invalid_json', 'a required body that is missing');
    error_is($rig->post('/api/tags', { name => 42 }, user => 'alice'),
             400, 'invalid_field', 'a wrong JSON type', 'name');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => 'name=x',
                           type => 'application/x-www-form-urlencoded'),
             415, 'unsupported_media_type', 'a form body');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => 'name,x',
                           type => 'text/csv'),
             415, 'unsupported_media_type', 'CSV where only JSON is taken');
    is($rig->request('POST', '/api/tags', user => 'alice', body => '{"name":"charset"}',
                     type => 'application/json; charset=utf-8')->{status},
       201, 'a charset parameter on the content type is fine');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => "{\"name\":\"caf\xe9\"}",
                           type => 'application/json; charset=iso-8859-1'),
             415, 'unsupported_media_type', 'JSON in another charset than UTF-8');
    is($rig->request('POST', '/api/tags', user => 'alice', body => '{"name":"charset quoted"}',
                     type => 'application/json; Charset="UTF-8"')->{status},
       201, 'charset="UTF-8", quoted and in capitals, is UTF-8');
    error_is($rig->request('POST', '/api/tags', user => 'alice', body => "\x1f\x8b\x08\x00",
                           type => 'application/json', headers => { 'Content-Encoding' => 'gzip' }),
             415, 'unsupported_media_type', 'a body with a Content-Encoding');

    # Over the limit (16 MiB by default): 413, and nothing was written.
    my $before = $rig->get('/api/tags', user => 'alice')->{json}{total};
    my $big = '{"name": "big", "pad": "' . ('x' x (16 * 1024 * 1024)) . '"}';
    $res = $rig->request('POST', '/api/tags', user => 'alice', body => $big,
                         type => 'application/json');
    error_is($res, 413, 'payload_too_large', 'a body over max_body_bytes');
    is($rig->get('/api/tags', user => 'alice')->{json}{total}, $before, 'and nothing was written');
    $res = $rig->request('POST', '/api/tags', user => 'alice', type => 'application/json',
                         body => '{"name": "just-under", "pad": "' . ('y' x (1024 * 1024)) . '"}');
    is($res->{status}, 201, 'a 1 MiB body is read whole');

    # Sent in chunks, with no Content-Length: Apache's mod_proxy_fcgi
    # passes a body past its buffer on as it comes, without the length,
    # and one of 20 KB was taken for no body at all (400).  It is read to
    # its end; past the limit, 413.
    my @parts = ('{"name": "chunked", "pad": "', ('z' x 20000), '"}');
    $res = $rig->request('POST', '/api/tags', user => 'alice', type => 'application/json',
                         body => sub { shift @parts });
    is($res->{status}, 201, 'a 20 KB body sent in chunks is read whole') or diag($res->{content});
    @parts = ('{"name": "chunked-big", "pad": "', (('w' x (1024 * 1024)) x 17), '"}');
    $before = $rig->get('/api/tags', user => 'alice')->{json}{total};
    $res = $rig->request('POST', '/api/tags', user => 'alice', type => 'application/json',
                         body => sub { shift @parts });
    error_is($res, 413, 'payload_too_large', 'a body over max_body_bytes sent in chunks');
    is($rig->get('/api/tags', user => 'alice')->{json}{total}, $before, 'and nothing was written');

    # ---- a slash inside a path segment, %2F-encoded -------------------------
    $res = $rig->put('/api/budgets/a%2Fb', { amount => 1 }, user => 'alice');
    is_deeply([ $res->{status}, ($res->{json} // {})->{category} ], [ 200, 'a_b' ],
              'PUT /api/budgets/a%2Fb reaches the service: the budget of a/b, folded a_b')
        or diag($res->{content});
    is($rig->del('/api/budgets/a%2Fb', user => 'alice')->{status}, 204, 'and DELETE removes it');

    # ---- bad query strings -------------------------------------------------
    error_is($rig->get('/api/tags?x=%00', user => 'alice'), 400, 'invalid_field', 'a NUL in the query');
    error_is($rig->get('/api/tags?x=%ff', user => 'alice'), 400, 'invalid_field', 'invalid UTF-8 in the query');

    # ---- categories ----------------------------------------------------------
    $res = $rig->get('/api/categories', user => 'alice');
    is($res->{status}, 200, 'GET /api/categories');
    my %cat = map { $_->{category} => $_ } @{ $res->{json}{items} };
    ok($cat{$_} && $cat{$_}{builtin}, "built-in category $_")
        for qw(groceries dining transfers income fees loan_interest);
    is(scalar(grep { $_->{builtin} } @{ $res->{json}{items} }), 26, '26 built-in categories');
    is($res->{json}{total}, scalar @{ $res->{json}{items} }, 'total counts the items');

    web_server_errors($rig);
    compression($rig);
}

# gunzip($bytes): the bytes a gzip body decodes to, or undef.
sub gunzip {
    my ($in) = @_;
    my $out;
    IO::Uncompress::Gunzip::gunzip(\$in => \$out) or return undef;
    return $out;
}

# The shipped configurations' compression (etc/README): answers of the
# compressible types go out gzip to a client that asks for it, decoding to
# exactly the bytes a client that does not ask gets; never gzip unasked.
# erin's ledger is a real bank's statement (t/data/bank/ofx/ofxrb-bb.ofx,
# 81 rows), so the page of 50 is a real page.
sub compression {
    my ($rig) = @_;
    my $ofx = Rig::slurp(Rig::srcdir() . '/t/data/bank/ofx/ofxrb-bb.ofx');
    ok_json($rig->request('POST', '/api/statements/import', user => 'erin', body => $ofx,
                          type => 'application/x-ofx'), 'erin imports a bank statement');
    my $gz = { 'Accept-Encoding' => 'gzip' };
    my $page = '/api/transactions?limit=50';
    my $plain = $rig->get($page, user => 'erin');
    my $packed = $rig->get($page, user => 'erin', headers => $gz);
    is(scalar @{ ($plain->{json} // {})->{items} // [] }, 50, 'a page of 50 rows');
    is($plain->{headers}{'content-encoding'}, undef, 'without Accept-Encoding: not compressed');
    is($packed->{status}, 200, 'with Accept-Encoding: gzip: 200');
    is($packed->{headers}{'content-encoding'}, 'gzip', 'and gzip');
    like($packed->{headers}{'content-type'} // '', qr{^application/json; charset=utf-8}, 'still JSON');
    like($packed->{headers}{vary} // '', qr/\bAccept-Encoding\b/i, 'Vary: Accept-Encoding');
    my $body = gunzip($packed->{content});
    ok(defined $body && $body eq $plain->{content}, 'it decodes to exactly the uncompressed answer');
    my ($n, $z) = (length $plain->{content}, length $packed->{content});
    ok($z * 4 < $n, "and is under a quarter of its size ($z bytes for $n)");
    note("the page of 50 ($rig->{server}): $n bytes, $z gzip");
    for my $ae ('identity', 'br', 'deflate') {
        is($rig->get($page, user => 'erin', headers => { 'Accept-Encoding' => $ae })
               ->{headers}{'content-encoding'}, undef, "Accept-Encoding: $ae: not gzip");
    }
    # The tag stays one the service knows: as it made it, or its weak form.
    SKIP: {
        my $tag = $plain->{headers}{etag} or skip 'the service sends no ETag', 2;
        my $ztag = $packed->{headers}{etag} // '';
        (my $bare = $ztag) =~ s{^W/}{};
        is($bare, $tag, "the compressed answer's ETag is the service's ($ztag)");
        is($rig->get($page, user => 'erin', headers => { %$gz, 'If-None-Match' => $ztag })->{status},
           304, 'and a conditional request with it is a 304');
    }

    # The exports: CSV, the journal (text/plain) and JSON.
    for my $format (qw(csv journal json)) {
        my $path = "/api/export?format=$format";
        my $p = $rig->get($path, user => 'erin');
        my $g = $rig->get($path, user => 'erin', headers => $gz);
        is($p->{headers}{'content-encoding'}, undef, "the $format export unasked: not compressed");
        is_deeply([ $g->{status}, $g->{headers}{'content-encoding'}, $g->{headers}{'content-type'} ],
                  [ 200, 'gzip', $p->{headers}{'content-type'} ],
                  "the $format export asked: gzip, its type kept");
        my $d = gunzip($g->{content});
        ok(defined $d && $d eq $p->{content} && length $g->{content} < length $d,
           "and decodes to the same bytes, smaller (" . length($g->{content}) . ' for '
           . length($p->{content}) . ')');
    }

    # A small answer goes out as it is: the service sends its length, by
    # which nginx leaves answers under a kilobyte alone (Apache's filter
    # does not see it behind mod_proxy_fcgi: etc/apache-ledger.conf).
    my $me = $rig->get('/api/me', user => 'erin', headers => $gz);
    is($me->{headers}{'content-length'} && !$me->{headers}{'content-encoding'} ? 'plain' : 'gzip',
       $rig->{server} eq 'nginx' ? 'plain' : 'gzip',
       "a small answer (GET /api/me) through $rig->{server}: "
       . ($rig->{server} eq 'nginx' ? 'not compressed' : 'compressed all the same'));

    # An error answer is the same JSON error, compressed or not.
    my $e = $rig->get('/api/transactions/999999999', user => 'erin', headers => $gz);
    my $text = ($e->{headers}{'content-encoding'} // '') eq 'gzip' ? gunzip($e->{content}) : $e->{content};
    $e->{json} = eval { JSON::PP->new->decode($text // '') };
    error_is($e, 404, 'not_found', 'an error with Accept-Encoding: gzip is the JSON error');
    like($e->{headers}{'content-type'} // '', qr{^application/json; charset=utf-8}, 'typed JSON');
}

# A request written by hand (HTTP::Tiny sends no Content-Length but the
# body's own): the response as $rig->request gives it.
sub raw_request {
    my ($rig, $head) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $rig->port, Timeout => 10)
        or die "connect: $!";
    print $s $head;
    local $/;
    my $reply = <$s> // '';
    my ($top, $body) = split /\r\n\r\n/, $reply, 2;
    my ($status) = ($top // '') =~ m{^HTTP/1\.\d (\d{3})};
    my %h = map { lc($_->[0]) => $_->[1] } map { [ /^([^:]+):\s*(.*)$/ ] } grep { /:/ } split /\r\n/, $top // '';
    if (($h{'transfer-encoding'} // '') =~ /chunked/i) {
        my $whole = '';
        while ($body =~ s/^([0-9a-fA-F]+)\r\n//) {
            my $n = hex $1;
            $whole .= substr($body, 0, $n, '');
            $body =~ s/^\r\n//;
            last if $n == 0;
        }
        $body = $whole;
    }
    my $json = ($h{'content-type'} // '') =~ m{^application/json} ? eval { JSON::PP->new->decode($body) } : undef;
    return { status => $status // 0, headers => \%h, content => $body // '', json => $json };
}

# The errors the web server makes itself answer in the API's error body too
# (etc/errors, mapped in both configurations), not in an HTML page.
sub web_server_errors {
    my ($rig) = @_;
    my $auth = 'Basic ' . MIME::Base64::encode_base64('alice:alice-pw', '');
    # A Content-Length over nginx's own limit (64 MiB in the rig): refused
    # before a byte of the body is read.  (Apache waits for the body, then
    # passes it on as it comes: the service's own 413 is tested above.)
    my $res;
    if ($rig->{server} eq 'nginx') {
        $res = raw_request($rig, "POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: $auth\r\n"
                           . "Content-Type: application/json\r\nContent-Length: 100000000\r\n"
                           . "Connection: close\r\n\r\n{");
        error_is($res, 413, 'payload_too_large', "a body over the web server's limit");
        like($res->{headers}{'content-type'} // '', qr{^application/json; charset=utf-8}, 'as JSON');
        # nginx's own authentication refusing, a request line past its
        # buffers, a request it cannot read: JSON too.
        $res = $rig->get('/api/me', headers => { Authorization => 'Basic '
                                                 . MIME::Base64::encode_base64('alice:wrong', '') });
        error_is($res, 401, 'unauthenticated', 'a wrong password, refused by nginx');
        like($res->{headers}{'www-authenticate'} // '', qr/^Basic/, 'still asking for credentials');
        error_is($rig->get('/api/transactions?search=' . ('x' x 20000), user => 'alice'),
                 414, 'uri_too_long', "a request line over nginx's buffers");
        error_is(raw_request($rig, "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: twice\r\n\r\n"),
                 400, 'invalid_request', 'a request nginx cannot read (two Host headers)');
        $res = raw_request($rig, "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: $auth\r\n"
                           . 'X-Long: ' . ('x' x 10000) . "\r\nConnection: close\r\n\r\n");
        error_is($res, 400, 'invalid_request', "a header over nginx's buffers");
        like(($res->{json} // {})->{error}{message} // '', qr/header/, 'saying it is a header');
        error_is(raw_request($rig, "TRACE /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                 405, 'method_not_allowed', 'TRACE, which nginx refuses itself');
        error_is(raw_request($rig, "POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: $auth\r\n"
                             . "Transfer-Encoding: gzip\r\nConnection: close\r\n\r\n"),
                 501, 'not_implemented', 'a Transfer-Encoding nginx cannot read');
        error_is(raw_request($rig, "GET /api/me HTTP/2.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                 505, 'http_version_not_supported', 'HTTP/2.0 on an HTTP/1 connection');
    }

    # The service stopped: nginx cannot connect (502), Apache's proxy 503.
    $rig->stop_fcgi('TERM');
    $res = $rig->get('/api/me', user => 'alice');
    if ($rig->{server} eq 'nginx') {
        error_is($res, 502, 'bad_gateway', 'the service down');
    } else {
        error_is($res, 503, 'unavailable', 'the service down');
    }
    like($res->{headers}{'content-type'} // '', qr{^application/json; charset=utf-8}, 'as JSON');
    $rig->start_fcgi;
    is($rig->get('/api/me', user => 'alice')->{status}, 200, 'and answered again once it is back');
}

1;
