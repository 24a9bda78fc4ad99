#!/usr/bin/perl
# Bad input on every route that takes one: each write route of the route
# table (ledger-fcgi --routes) gets a battery of broken bodies, and the
# list and report routes broken query strings.  Every answer must be a 4xx
# with the error body {"error": {status, code, message}}; none a 5xx, none
# a success; and the database must be byte for byte what it was (hashed
# before and after the whole battery).
use strict;
use warnings;
use Test::More;
use Digest::SHA qw(sha1_hex);
use Time::HiRes qw(time);
use JSON::PP;
use Rig;

my $sqlite = Rig::find_program('sqlite3') or plan skip_all => 'sqlite3 not installed';
my $rig = Rig->new;
my $db = $rig->db_path;
# erin owns nothing and names ids nobody has: whatever a route would do
# with a body it misread, there is nothing of his to do it to.
is($rig->get('/api/me', user => 'erin')->{status}, 200, 'erin exists');
is($rig->get('/api/me', user => 'alice')->{status}, 200, 'alice exists');
my $tx = $rig->post('/api/transactions', { date => '2026-01-05', amount => 12.5, description => 'kept' },
                    user => 'alice');
is($tx->{status}, 201, 'alice has a row') or diag($tx->{content});

sub db_hash { sha1_hex(scalar `$sqlite $db .dump`) }

my @routes = map { [ split ' ', $_, 3 ] } grep { /^(POST|PATCH|PUT|DELETE|GET) / }
             split /\n/, `${\ Rig::fcgi_bin() } --routes`;
ok(@routes > 50, scalar(@routes) . ' routes in the table');
# A concrete path for a pattern: ids nobody has, a month and a name.
sub path_of {
    my ($pattern) = @_;
    my $p = $pattern;
    $p =~ s/\(\[0-9\]\{4\}-\[0-9\]\{2\}\)/2026-01/g;
    $p =~ s/\(\[0-9\]\+\)/999999/g;
    $p =~ s/\(\[\^\/\]\+\)/groceries/g;
    $p =~ s/^\^|\$$//g;
    return $p;
}

my $long = 'x' x 100_000;
my @bodies = (
    [ 'malformed JSON', '{"date": "2026-01-01", "amount": ' ],
    [ 'truncated JSON', '{"date": "2026-01-01", "amount": 12.5, "descr' ],
    [ 'trailing garbage', '{"amount": 1} x' ],
    [ 'nesting 1,000 deep', ('[' x 1000) . (']' x 1000) ],
    [ 'a huge number', '{"amount": 1e400, "date": "2026-01-01", "description": "x", "percent": 1e400}' ],
    [ 'a 30-digit amount', '{"amount": 123456789012345678901234567890, "date": "2026-01-01", "description": "x"}' ],
    [ 'NaN as a number', '{"amount": NaN, "date": "2026-01-01"}' ],
    [ 'Infinity as a number', '{"amount": -Infinity}' ],
    [ 'invalid UTF-8', "{\"description\": \"caf\xe9\", \"amount\": 1, \"date\": \"2026-01-01\"}" ],
    [ 'a NUL byte', "{\"description\": \"a\x00b\", \"amount\": 1}" ],
    [ 'an escaped NUL', '{"description": "a\u0000b", "name": "a\u0000b", "amount": 1, "date": "2026-01-01"}' ],
    [ 'a lone surrogate', '{"description": "\ud800", "name": "\udfff"}' ],
    [ 'an array for an object', '[1, 2, 3]' ],
    [ 'a string for an object', '"just a string"' ],
    [ 'null', 'null' ],
    [ 'wrong types everywhere', encode_json({ date => 20260101, amount => 'twelve', description => [1],
        category => {}, name => 5, email => [], shares => 'half', matches => 'all', rows => 7,
        transaction_ids => 'x', conditions => 'y', actions => {}, amount_min => [] }) ],
    [ 'a 3-decimal amount', '{"date": "2026-01-01", "amount": 12.345, "description": "x", "share_percent": 33.333}' ],
    # Without an amount: every route that takes one needs it, so no body
    # below is good for any route.
    [ 'an impossible date', '{"date": "2026-02-30", "description": "x", "period_start": "2026-13-01"}' ],
    [ 'SQL in a date', encode_json({ date => "2026-01-01'; DROP TABLE users; --",
        period_start => "' OR 1=1 --", month => "2026-01' --" }) ],
    [ 'an over-long string', encode_json({ date => '2026-01-01', description => $long,
        name => $long, email => "$long\@example.org", category => $long }) ],
    [ 'a pattern that does not compile', encode_json({ conditions => [ { field => 'description',
        operator => 'matches', value => '(a+)+$' . ('(' x 300) } ], actions => [] }) ],
);

# A route that takes no body (POST /api/rules/apply) ignores a well-formed
# one, as it may ("{}" from a client is fine), and refuses a broken one.
# Which routes those are is asked of the routes themselves, before the hash:
# a body that is JSON but not an object is refused by every route that
# reads one.
my %bodiless;
for my $r (@routes) {
    my ($method, $pattern) = @$r;
    next if $method eq 'GET';
    my $res = $rig->request($method, path_of($pattern), user => 'erin', body => '"x"',
                            type => 'application/json');
    $bodiless{"$method $pattern"} = 1 if $res->{status} < 300;
}
my %broken = map { $_ => 1 } ('malformed JSON', 'truncated JSON', 'trailing garbage', 'nesting 1,000 deep',
                              'NaN as a number', 'Infinity as a number', 'invalid UTF-8', 'a NUL byte',
                              'a lone surrogate');
my $before = db_hash();
my ($sent, $bad) = (0, 0);
my %by_status;
for my $r (@routes) {
    my ($method, $pattern) = @$r;
    next if $method eq 'GET';
    my $path = path_of($pattern);
    for my $b (@bodies) {
        my ($what, $body) = @$b;
        next if $bodiless{"$method $pattern"} && !$broken{$what};
        my $res = $rig->request($method, $path, user => 'erin', body => $body, type => 'application/json');
        $sent++;
        my $e = ref $res->{json} eq 'HASH' ? $res->{json}{error} : undef;
        my $good = $res->{status} >= 400 && $res->{status} < 500 && ref $e eq 'HASH'
            && ($e->{status} // 0) == $res->{status} && length($e->{code} // '') && length($e->{message} // '');
        $by_status{ $res->{status} }++;
        next if $good;
        $bad++;
        fail("$method $path, $what: a 4xx with the error body");
        diag("got $res->{status}: " . substr($res->{content} // '', 0, 300));
    }
}
# Query strings: limits, sorts, dates, amounts and cursors that make no sense.
my @queries = (
    'limit=0', 'limit=-1', 'limit=501', 'limit=1e3', 'limit=99999999999999999999', 'offset=-5',
    'offset=abc', 'sort=amount;DROP TABLE users', 'sort=id', 'order=sideways', 'date_from=2026-02-30',
    'date_to=yesterday', 'amount_min=1.234', 'amount_max=NaN', 'has_split=maybe', 'tag_ids=abc',
    'statement_id=-1', 'trip_id=0x10', 'cursor=zz', 'cursor=' . ('41' x 600), 'trip_all_rows=2',
    'from=2026-13', 'to=26-01', 'month=2026-00', 'basis=theirs', 'categories=%ff%fe', 'search=%00',
);
for my $r (grep { $_->[0] eq 'GET' } @routes) {
    my $path = path_of($r->[1]);
    next if $path =~ /999999|groceries|2026-01/;    # by-id reads answer 404 before reading the query
    for my $q (@queries) {
        my ($k, $v) = split /=/, $q, 2;
        $v = uri($v) unless $v =~ /%/;    # the %-escapes in the list are meant
        my $res = $rig->get("$path?$k=$v", user => 'erin');
        $sent++;
        # A query parameter a route does not read is ignored, so a 200 is
        # fine here; what is never fine is a 5xx or a reply without its body.
        my $ok = $res->{status} < 500 && ($res->{status} < 400 || ref $res->{json} eq 'HASH' && $res->{json}{error});
        $by_status{ $res->{status} }++;
        next if $ok;
        $bad++;
        fail("GET $path?$q: never a 5xx, a 4xx always with the error body");
        diag("got $res->{status}: " . substr($res->{content} // '', 0, 300));
    }
}
# A "%" without two hex digits is a malformed query, not a search for
# "%zz"; a path segment that does not decode to UTF-8 is no name (it was
# stored, and every list holding it was no longer JSON).
for my $q ('search=%zz', 'search=ab%2', 'search=%') {
    my $res = $rig->get("/api/transactions?$q", user => 'erin');
    $sent++;
    is($res->{status}, 400, "GET /api/transactions?$q: 400");
}
# A key that names one value, given twice, is refused (limit=1&limit=abc
# was a page of one, the second value never read); a list filter takes
# every value, with or without "[]".
for my $q ('limit=1&limit=abc', 'limit=5&limit=5', 'search=a&search=b', 'sort=date&offset=0&sort=amount',
           'limit[]=1&limit=2') {
    my ($key) = $q =~ /^(\w+)/;
    my $res = $rig->get("/api/transactions?$q", user => 'erin');
    $sent++;
    is($res->{status}, 400, "GET /api/transactions?$q: 400");
    is($res->{json}{error}{field}, $key, "... naming $key");
    like($res->{json}{error}{message} // '', qr/\b$key is given more than once/, '... saying why');
}
for my $q ('categories=a&categories=b', 'categories[]=a&categories=b', 'tag_ids[]=1&tag_ids[]=2',
           'bank_names=Manual&bank_names=CBA&transaction_types=debit&transaction_types=fee&exclude_categories=x&exclude_categories=y') {
    my $res = $rig->get("/api/transactions?$q", user => 'erin');
    $sent++;
    is($res->{status}, 200, "GET /api/transactions?$q: 200");
}
is($rig->get('/api/analytics/monthly?from=2026-01&from=2026-02', user => 'erin')->{status}, 400,
   'a repeated key is refused on every route (the monthly report\'s from)');
$sent++;
# Without an identity nothing else is looked at: a bad query is 401 too
# (it was 400, which told an unauthenticated client about the request).
for my $q ('search=%zz', join('&', map { "k$_=1" } 1 .. 300)) {
    my $res = $rig->get("/api/transactions?$q", open => 1);
    $sent++;
    is($res->{status}, 401, 'GET /api/transactions?' . substr($q, 0, 20) . '... with no identity: 401');
}
for my $path ('/api/budgets/%ff', '/api/budgets/caf%e9') {
    my $res = $rig->put($path, { amount => 100 }, user => 'erin');
    $sent++;
    is($res->{status}, 400, "PUT $path: 400");
}
# A body over max_body_bytes (16 MiB by default) is refused before it is read.
my $huge = $rig->request('POST', '/api/transactions', user => 'erin', body => 'x' x (16 * 1024 * 1024 + 1),
                         type => 'application/json');
$sent++;
is($huge->{status}, 413, 'a body over max_body_bytes: 413');
is(ref $huge->{json} eq 'HASH' ? $huge->{json}{error}{code} : '', 'payload_too_large', '  with the error body');
# What no request reads only costs memory: an object of more members than
# any request reads, and a body of more values than the largest request
# holds, are refused before the body's tree is made.
for my $case ([ 'an object of 300 members', '{"date": "2026-01-01", "amount": 1, "description": "x", '
                  . join(', ', map { "\"extra$_\": $_" } 1 .. 300) . '}', qr/more than 256 members/ ],
              [ '2,000,001 small values', '[' . join(',', (0) x 2_000_001) . ']', qr/more than 2000000 JSON values/ ]) {
    my ($what, $body, $why) = @$case;
    my $res = $rig->request('POST', '/api/transactions', user => 'erin', body => $body, type => 'application/json');
    $sent++;
    is($res->{status}, 413, "$what: 413");
    like(ref $res->{json} eq 'HASH' ? $res->{json}{error}{message} // '' : '', $why, '  saying why');
}

# Repeated member names (RFC 7493): a proxy keeping the last would read
# another body than the service.  Every route that takes a body refuses
# one with them, at the top or nested, before anything else is looked at
# (the OFX import reads a file, not JSON).
{
    my ($dup, $n) = (0, 0);
    for my $r (grep { $_->[0] ne 'GET' && $_->[1] !~ m{/statements/import} } @routes) {
        my ($method, $pattern) = @$r;
        for my $body ('{"date": "2026-01-01", "amount": 1, "amount": 2, "description": "x"}',
                      '{"rows": [{"amount": 1, "date": "2026-01-01", "date": "2026-01-02"}]}') {
            my $res = $rig->request($method, path_of($pattern), user => 'erin', body => $body,
                                    type => 'application/json');
            $n++;
            my $e = ref $res->{json} eq 'HASH' ? $res->{json}{error} : {};
            next if $res->{status} == 400 && ($e->{code} // '') eq 'invalid_json'
                    && ($e->{message} // '') =~ /appears twice/;
            $dup++;
            diag("$method $pattern: $res->{status} " . substr($res->{content} // '', 0, 200));
        }
    }
    is($dup, 0, "$n bodies with a repeated member name: every one a 400 invalid_json naming it");
    $sent += $n;
}

ok(keys %bodiless <= 3, 'routes that take no body: ' . join(', ', sort keys %bodiless));
is($bad, 0, "$sent bad inputs, every one refused with a 4xx and the error body");
is(db_hash(), $before, 'the database is byte for byte what it was');

# SQL and regex metacharacters are data: stored and given back exactly,
# and nothing else is touched.
my $users = $rig->sql('SELECT COUNT(*) FROM users');
for my $text ("x' OR '1'='1", "'); DELETE FROM transactions; --", '%_\\', '(a+)+$ [^]] \\d{9999999}',
              "Robert'); DROP TABLE users;--") {
    my $res = $rig->post('/api/transactions', { date => '2026-01-06', amount => 1, description => $text,
                                                merchant => $text }, user => 'erin');
    is($res->{status}, 201, "metacharacters as data: created") or diag($res->{content});
    my $back = $rig->get("/api/transactions/$res->{json}{id}", user => 'erin')->{json} // {};
    is($back->{description}, $text, '  and given back exactly');
    my $found = $rig->get('/api/transactions?search=' . uri($text), user => 'erin')->{json} // {};
    ok(($found->{total} // 0) >= 1, '  and found by searching for it');
}
is($rig->sql('SELECT COUNT(*) FROM users'), $users, 'no user came or went');
is($rig->sql("SELECT COUNT(*) FROM transactions WHERE description = 'kept'"), 1, 'alice\'s row is still there');
# A pattern that backtracks forever is stopped by the match limit on a row
# (db_regexp.c): the rule saves, its preview answers 409 (it cannot run on these
# rows), and the service lives.
my $rule = $rig->post('/api/rules', { name => 'slow', conditions => [ { field => 'description',
    operator => 'matches', value => '^(a+)+$' } ], actions => [ { type => 'set_merchant',
    merchant_normalized => 'x' } ] }, user => 'erin');
is($rule->{status}, 201, 'a catastrophic pattern compiles and saves') or diag($rule->{content});
$rig->post('/api/transactions', { date => '2026-01-07', amount => 1, description => ('a' x 40) . 'b' }, user => 'erin');
my $t0 = time;
my $preview = $rig->post("/api/rules/$rule->{json}{id}/preview", undef, user => 'erin');
ok($preview->{status} == 409 && time - $t0 < 30, 'its preview answers 409') or diag($preview->{content});
is($rig->get('/api/me', user => 'erin')->{status}, 200, 'and the service still answers');

# A JSON null for each field a body may carry, one field at a time, on
# every write route with ids that exist and are the caller's: the battery
# above names ids nobody has, which answer 404 before a body is read, so it
# never reaches a handler with a value missing that it was told is there.
# A null may be an answer (it clears an override), so a 2xx is fine here;
# a 5xx, a dead process or SQLite's words in the error are not.
{
    my $me = 'dave';
    my $alice_id = $rig->get('/api/me', user => 'alice')->{json}{id};
    my %made;
    my $row = $rig->post('/api/transactions', { date => '2026-01-08', amount => 10, description => 'nulls',
                                                merchant => 'Nul Shop' }, user => $me)->{json};
    $made{transactions} = $row->{id};
    $made{tags} = $rig->post('/api/tags', { name => 'nulltag' }, user => $me)->{json}{id};
    $made{trips} = $rig->post('/api/trips', { name => 'Null trip' }, user => $me)->{json}{id};
    $made{rules} = $rig->post('/api/rules', { name => 'null rule', conditions => [ { field => 'description',
        operator => 'contains', value => 'nulls' } ], actions => [ { type => 'set_merchant',
        merchant_normalized => 'N' } ] }, user => $me)->{json}{id};
    ok(!grep({ !$_ } values %made), 'dave has a row, a tag, a trip and a rule') or diag(explain(\%made));
    my @fields = qw(date amount description merchant merchant_normalized category transaction_type
                    payment_method name color email notes start_date end_date trip_id tag_id tag_ids ids
                    action shares participant_id share_percent splits settled my_share_percent conditions
                    actions enabled manual_only match rows csv mapping matches from_user_id to_user_id scope
                    period_start period_end bank_name account_type transactions transaction_ids
                    allow_duplicates manual_id statement_transaction_id amount_aud currency);
    my ($n, $wrong) = (0, 0);
    for my $r (grep { $_->[0] ne 'GET' && $_->[0] ne 'DELETE' } @routes) {
        my ($method, $pattern) = @$r;
        my $path = $pattern;
        $path =~ s/^\^|\$$//g;
        # Each id is the one named by the path segment before it.
        $path =~ s{/(\w+)/\(\[0-9\]\+\)}{"/$1/" . ($made{$1} // $made{rules} // 999999)}ge;
        $path =~ s/\(\[\^\/\]\+\)/groceries/g;
        for my $f (@fields) {
            my $res = $rig->request($method, $path, user => $me, body => "{\"$f\": null}",
                                    type => 'application/json');
            $n++;
            my $e = ref $res->{json} eq 'HASH' ? $res->{json}{error} : undef;
            next if $res->{status} < 400 || ($res->{status} < 500 && ref $e eq 'HASH'
                                             && ($e->{message} // '') !~ /constraint|sqlite|SQL/i);
            $wrong++;
            fail("$method $path {\"$f\": null}: no 5xx, no internals");
            diag("got $res->{status}: " . substr($res->{content} // '', 0, 300));
            last if $res->{status} == 502;
        }
    }
    is($wrong, 0, "$n bodies with one null field on routes with real ids: none a 5xx or showing internals");
    is($rig->get('/api/me', user => $me)->{status}, 200, 'and the service still answers');
    is(scalar(() = $rig->fcgi_log =~ /signal|Segmentation/gi), 0, 'ledger-fcgi never died');
}

sub uri { Rig::uri_escape($_[0]) }
diag("$sent bad inputs on " . scalar(@routes) . ' routes; answers: '
     . join(', ', map { "$_ x$by_status{$_}" } sort keys %by_status));
done_testing();
