#!/usr/bin/perl
# Behind nginx: identity, errors, routing, bodies (CommonChecks), and tags.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is);

my $rig = Rig->new(server => 'nginx');
CommonChecks::run($rig);

# ---- tags ---------------------------------------------------------------------
my $res = $rig->post('/api/tags', { name => 'Holiday', color => '#1e90ff' }, user => 'alice');
is($res->{status}, 201, 'create a tag');
my $tag = $res->{json};
is_deeply([@$tag{qw(name color usage_count)}], ['Holiday', '#1e90ff', 0], 'the created tag');
error_is($rig->post('/api/tags', { name => 'holiday' }, user => 'alice'), 409, 'conflict',
         'a name the caller has, in another case');
is($rig->post('/api/tags', { name => 'Holiday' }, user => 'bob')->{status}, 201,
   'another user may use the same name');
# Case beyond ASCII too: Café and CAFÉ are one name.
is($rig->request('POST', '/api/tags', user => 'alice', type => 'application/json',
                 body => '{"name":"Caf\u00e9"}')->{status}, 201, 'a tag Café');
error_is($rig->request('POST', '/api/tags', user => 'alice', type => 'application/json',
                       body => '{"name":"CAF\u00c9"}'), 409, 'conflict', 'CAFÉ is the same name');
error_is($rig->post('/api/tags', { name => 'csv-import' }, user => 'alice'), 400, 'invalid_field',
         'csv-import is reserved', 'name');
error_is($rig->post('/api/tags', { name => '   ' }, user => 'alice'), 400, 'invalid_field',
         'a blank name', 'name');
error_is($rig->post('/api/tags', { name => 'x' x 65 }, user => 'alice'), 400, 'invalid_field',
         'an over-long name', 'name');
error_is($rig->post('/api/tags', { name => "a\nb" }, user => 'alice'), 400, 'invalid_field',
         'a control character', 'name');
error_is($rig->post('/api/tags', { name => 'c', color => 'blue' }, user => 'alice'), 400,
         'invalid_field', 'a color that is not #rrggbb', 'color');
error_is($rig->post('/api/tags', { name => 'c', color => 7 }, user => 'alice'), 400,
         'invalid_field', 'a color of the wrong type', 'color');
error_is($rig->post('/api/tags', { color => '#fff' }, user => 'alice'), 400, 'invalid_field',
         'a missing name', 'name');
is($rig->post('/api/tags', { name => "Robert'); DROP TABLE tags;--" }, user => 'alice')->{status},
   201, 'SQL-looking text is just a name');

$res = $rig->get('/api/tags', user => 'alice');
my @names = map { $_->{name} } @{ $res->{json}{items} };
ok((grep { $_ eq 'Holiday' } @names), 'the list has the tag');
ok(!(grep { $_->{id} == $tag->{id} && $_->{name} ne 'Holiday' } @{ $res->{json}{items} }), 'unchanged');
is($res->{json}{total}, scalar @names, 'total');
my $bobs = $rig->get('/api/tags', user => 'bob')->{json};
is($bobs->{total}, 1, "bob sees only his own tag");

$res = $rig->patch("/api/tags/$tag->{id}", { name => 'Trip', color => undef }, user => 'alice');
is($res->{status}, 200, 'rename and clear the color');
is_deeply([@{ $res->{json} }{qw(name color)}], ['Trip', undef], 'the patched tag');
$res = $rig->patch("/api/tags/$tag->{id}", { color => '#abc' }, user => 'alice');
is_deeply([@{ $res->{json} }{qw(name color)}], ['Trip', '#abc'], 'a patch leaves absent fields alone');
error_is($rig->patch("/api/tags/$tag->{id}", { name => 'Robert\'); DROP TABLE tags;--' }, user => 'alice'),
         409, 'conflict', 'rename onto another tag');
error_is($rig->patch("/api/tags/$tag->{id}", { name => 'Mine now' }, user => 'bob'), 403,
         'forbidden', "another user's tag cannot be renamed");
error_is($rig->del("/api/tags/$tag->{id}", user => 'bob'), 403, 'forbidden',
         "another user's tag cannot be deleted");
is($rig->get('/api/tags', user => 'alice')->{json}{total}, scalar @names,
   "and alice's tags are as they were");
error_is($rig->patch('/api/tags/999999', { name => 'x' }, user => 'alice'), 404, 'not_found',
         'a missing tag');
$res = $rig->del("/api/tags/$tag->{id}", user => 'alice');
is($res->{status}, 204, 'delete a tag');
is($res->{content} // '', '', 'with no body');
error_is($rig->del("/api/tags/$tag->{id}", user => 'alice'), 404, 'not_found', 'deleted twice');

# ---- cross-site writes -------------------------------------------------------------
# A page on another site can make a browser POST with no type, text/plain,
# form-urlencoded or multipart, and a session cookie would go with it: a
# write by POST needs application/json (or a file type for the import),
# even when it takes no body.  (A disabled rule run this way shared a row.)
{
    my $rule = $rig->post('/api/rules', { name => 'csrf', enabled => JSON::PP::false,
        conditions => [ { field => 'description', operator => 'contains', value => 'zzz' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'X' } ] }, user => 'alice')->{json}{id};
    my $runs = $rig->get('/api/rules/runs', user => 'alice')->{json}{total};
    for my $type (undef, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x') {
        for my $path ('/api/rules/apply', "/api/rules/apply/$rule", "/api/rules/$rule/preview") {
            my $res = $rig->request('POST', $path, user => 'alice', defined $type ? (type => $type) : ());
            is($res->{status}, 415, "POST $path with " . ($type // 'no type') . ' and no body: 415');
        }
        # (HTTP::Tiny types a body it is given no type for as octet-stream,
        # so "no type" goes without a body.)
        my $ofx = $rig->request('POST', '/api/statements/import', user => 'alice',
                                defined $type ? (body => "OFXHEADER:100\n", type => $type) : (body => ''));
        is($ofx->{status}, 415, 'POST /api/statements/import with ' . ($type // 'no type') . ': 415');
    }
    is($rig->get('/api/rules/runs', user => 'alice')->{json}{total}, $runs, 'no run was made');
    is($rig->get('/api/statements', user => 'alice')->{json}{total}, 0, 'no statement was made');
    is($rig->post("/api/rules/apply/$rule", {}, user => 'alice')->{status}, 200, 'with "{}" as JSON it runs');
}

# ---- HEAD ----------------------------------------------------------------------
# HEAD is GET without the body (RFC 9110): the GET routes answer it.
$res = $rig->request('HEAD', '/api/me', user => 'alice');
is($res->{status}, 200, 'HEAD /api/me: 200');
is($res->{content} // '', '', 'with no body');
like($res->{headers}{'content-type'} // '', qr{^application/json}, 'and the type a GET has');
is($rig->request('HEAD', '/api/rules/apply', user => 'alice')->{status}, 405,
   'HEAD where only POST is routed: 405');
is($rig->request('HEAD', '/api/me')->{status}, 401, 'HEAD without identity: 401');

done_testing();
