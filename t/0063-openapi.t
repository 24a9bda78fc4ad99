#!/usr/bin/perl
# etc/openapi.yaml stays true to the service: every route of the route table
# (ledger-fcgi --routes) is documented with its method, every documented
# operation is a route, every documented GET without path parameters answers
# through a real web server, and Spectral with the OWASP API Security
# ruleset finds nothing (contrib/openapi-lint: `npm ci` there; skipped
# without it).
use strict;
use warnings;
use Test::More;
use Rig;

my $src = Rig::srcdir();
my $yaml_file = "$src/etc/openapi.yaml";
my $yaml = Rig::slurp($yaml_file);
like($yaml, qr/^openapi: 3\.0\.3$/m, 'OpenAPI 3.0.3');

# ---- the route table ------------------------------------------------------------
# A capture group (an id, a path segment, a month) becomes "{}".
sub norm_route { (my $p = $_[0]) =~ s/\((?:[^()])*\)/{}/g; $p }
my $bin = Rig::fcgi_bin();
my @table = `$bin --routes`;
is($?, 0, 'ledger-fcgi --routes');
my %routes;
for (@table) {
    my ($method, $pattern) = /^(\S+) (\S+)$/ or next;
    $routes{ lc($method) . ' ' . norm_route($pattern) } = 1;
}
cmp_ok(scalar keys %routes, '>', 50, scalar(keys %routes) . ' routes in the table');

# ---- the document's operations -----------------------------------------------------
# The file's layout is plain block YAML: "  /path:" under "paths:", then
# "    get:" and the like; "{name}" becomes "{}" and the server URL /api is
# put in front.
my ($server) = $yaml =~ /^servers:\n- url: (\S+)$/m;
is($server, '/api', 'the server URL is /api');
my ($paths) = $yaml =~ /^paths:\n(.*?)^\S/ms;
my (%documented, @plain_gets, @id_gets, $path);
for (split /\n/, $paths // '') {
    if (/^  (\/\S*):\s*$/) { $path = $1; next }
    my ($method) = /^    (get|put|post|patch|delete|head|options|trace):\s*$/ or next;
    next unless defined $path;
    (my $template = "$server$path") =~ s/\{\w+\}/{}/g;
    $documented{"$method $template"} = 1;
    push @plain_gets, "$server$path" if $method eq 'get' && $path !~ /\{/;
    push @id_gets, "$server$path" if $method eq 'get' && $path =~ /\{/ && $path !~ /\{(?!id\}|\w+_id\})/;
}
cmp_ok(scalar keys %documented, '>', 50, scalar(keys %documented) . ' operations documented');
my @missing = grep { !$documented{$_} } sort keys %routes;
is_deeply(\@missing, [], 'every route in the table is documented (method and path)');
my @extra = grep { !$routes{$_} } sort keys %documented;
is_deeply(\@extra, [], 'every documented operation is a route');

# Every operation names its responses and its operationId once.
my @ids = $paths =~ /^      operationId: (\S+)$/mg;
is(scalar @ids, scalar keys %documented, 'every operation has an operationId');
my %seen;
is_deeply([grep { $seen{$_}++ } @ids], [], 'operationIds are unique');

# ---- documented GETs answer ---------------------------------------------------------
my $rig = Rig->new(server => 'nginx');
is($rig->get('/api/me', user => 'alice')->{status}, 200, 'the rig answers');
for my $p (@plain_gets) {
    my $r = $rig->get($p, user => 'alice');
    is($r->{status}, 200, "GET $p answers 200") or diag $r->{content};
    ok(defined $r->{json}, "GET $p answers JSON");
}
for my $p (@id_gets) {
    (my $url = $p) =~ s/\{\w+\}/999999/g;
    my $r = $rig->get($url, user => 'alice');
    ok($r->{status} == 404 || $r->{status} == 403, "GET $p with an id that is not there: $r->{status}, not 405 or 5xx")
        or diag $r->{content};
    is($r->{json} && ref $r->{json}{error}, 'HASH', "GET $p: a JSON error");
}
$rig->stop;

# ---- Spectral and the OWASP ruleset ------------------------------------------------------
SKIP: {
    my $lint = "$src/contrib/openapi-lint";
    my $node = Rig::find_program('node') // Rig::find_program('nodejs');
    skip 'Node.js is not installed (apt-get install nodejs npm)', 1 unless $node;
    skip 'Spectral is not installed (run: cd contrib/openapi-lint && npm ci)', 1
        unless -e "$lint/node_modules/.bin/spectral"
            && -d "$lint/node_modules/\@stoplight/spectral-owasp-ruleset";
    my $out = `$node $lint/node_modules/.bin/spectral lint --ruleset $lint/.spectral.yaml --fail-severity=hint --format=stylish $yaml_file 2>&1`;
    is($?, 0, 'spectral lint with spectral:oas and the OWASP ruleset: nothing found')
        or diag $out;
}

done_testing();
