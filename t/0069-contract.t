#!/usr/bin/perl
# A contract fuzz generated from etc/openapi.yaml: portman turns the document
# into a Postman collection (contrib/contract/portman-config.json) with one
# request per operation, carrying contract tests (JSON content type, a JSON
# body, the body valid against the documented response schema), and fuzzing
# variations of every request body and query (required fields removed,
# minimum/maximum and minLength/maxLength broken); newman runs it against the
# real stack as alice, whose transaction, tag, statement, trip, rule,
# participant and payment give the path ids something to find.
#
# It must hold that:
#   - no request gets a 5xx;
#   - every status answered is one the document lists for the operation;
#   - a 2xx passes every contract test portman generated; a 4xx to an
#     operation's own request (ids gone after a DELETE, a generated body the
#     service refuses) has the content type, a JSON body and the documented
#     error body ({error: {status, code, message}}, code from the list);
#   - every fuzzing variation gets a 4xx, never a 2xx, and passes its
#     contract tests (the documented 400 body).
#
# Offline: portman reads the local file and newman talks only to 127.0.0.1.
# Skipped without Node.js or the npm packages (cd contrib/contract && npm ci),
# and under valgrind (hundreds of requests, each under memcheck).
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use Rig;

my $src = Rig::srcdir();
my $dir = "$src/contrib/contract";
my $node = Rig::find_program('node') // Rig::find_program('nodejs')
    or plan skip_all => 'Node.js is not installed (apt-get install nodejs npm)';
plan skip_all => 'portman and newman are not installed (run: cd contrib/contract && npm ci)'
    unless -e "$dir/node_modules/\@apideck/portman/bin/portman" && -e "$dir/node_modules/newman/bin/newman.js";
plan skip_all => 'not under valgrind: hundreds of requests under memcheck' if $ENV{LEDGER_VALGRIND};

my $rig = Rig->new;
my $base = 'http://127.0.0.1:' . $rig->port;

# ---- a little data for alice -------------------------------------------------------
sub made {
    my ($what, $r, $code) = @_;
    is($r->{status}, $code // 201, "alice has $what") or diag($r->{content});
    return $r->{json} // {};
}
my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } qw(alice bob);
made('bob as a participant', $rig->post('/api/participants', { email => 'bob@example.org' }, user => 'alice'));
# bob adds alice back: a payment needs the other side's step (t/0089).
made('bob adding her back', $rig->post('/api/participants', { email => 'alice@example.org' }, user => 'bob'));
my $txn = made('a transaction', $rig->post('/api/transactions', { date => '2026-01-05', amount => 12.5,
    description => 'Coffee', merchant => 'Cafe', category => 'dining' }, user => 'alice'));
my $tag = made('a tag', $rig->post('/api/tags', { name => 'work', color => '#336699' }, user => 'alice'));
made('the tag on the row', $rig->post("/api/transactions/$txn->{id}/tags", { tag_id => $tag->{id} }, user => 'alice'), 200);
my $st = made('a statement', $rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Everyday Account',
    period_start => '2026-01-01', period_end => '2026-01-31',
    transactions => [{ date => '2026-01-10', description => 'Grocer', transaction_type => 'debit', amount => 40 }] },
    user => 'alice'));
my $trip = made('a trip', $rig->post('/api/trips', { name => 'Hobart', start_date => '2026-01-01',
    end_date => '2026-01-10' }, user => 'alice'));
my $rule = made('a rule', $rig->post('/api/rules', { name => 'coffee',
    conditions => [{ field => 'description', operator => 'contains', value => 'Coffee' }],
    actions => [{ type => 'set_category', category => 'dining' }] }, user => 'alice'));
my $pay = made('a payment', $rig->post('/api/payments', { from_participant_id => $uid{alice},
    to_participant_id => $uid{bob}, date => '2026-01-06', amount => 5 }, user => 'alice'));

# Things the DELETE operations remove, so that the ones above are still
# there for the operations after them; a rule run to revert; a manual row
# and the statement row it matches, to reconcile and then undo.
my $txn_del = made('a row to delete', $rig->post('/api/transactions', { date => '2026-01-05', amount => 1,
    description => 'to delete' }, user => 'alice'));
my $tag_del = made('a tag to delete', $rig->post('/api/tags', { name => 'spare' }, user => 'alice'));
my $trip_del = made('a trip to delete', $rig->post('/api/trips', { name => 'Spare trip' }, user => 'alice'));
my $rule_del = made('a rule to delete', $rig->post('/api/rules', { name => 'spare',
    conditions => [{ field => 'description', operator => 'contains', value => 'zzz' }],
    actions => [{ type => 'set_category', category => 'dining' }] }, user => 'alice'));
my $st_del = made('a statement to delete', $rig->post('/api/statements', { bank_name => 'Spare Bank',
    account_type => 'Everyday Account', period_start => '2025-01-01', period_end => '2025-01-31',
    transactions => [] }, user => 'alice'));
my $pay_del = made('a payment to delete', $rig->post('/api/payments', { from_participant_id => $uid{alice},
    to_participant_id => $uid{bob}, date => '2026-01-06', amount => 1 }, user => 'alice'));
my $rule_run = made('a rule run', $rig->post("/api/rules/$rule->{id}/run", { transaction_ids => [$txn->{id}] },
    user => 'alice'), 200);
my $manual = made('a manual row matching the statement row', $rig->post('/api/transactions', {
    date => '2026-01-10', amount => 40, description => 'Grocer by card', payment_method => 'card' }, user => 'alice'));
my $split_txn = made('a split row to settle', $rig->post('/api/transactions', { date => '2026-01-09', amount => 30,
    description => 'Dinner', splits => [{ participant_id => $uid{bob}, share_percent => 50 }] }, user => 'alice'));
my $stmt_row = $rig->get("/api/transactions?statement_id=$st->{id}", user => 'alice')->{json}{items}[0]{id};
# portman-config.json writes these ids into bodies as numbers (portman
# cannot put a variable inside an array there): a new database hands them
# out in this order.
is("$uid{alice} $uid{bob} $txn->{id} $tag->{id} $stmt_row $manual->{id}", '1 2 1 1 2 4',
   'the ids portman-config.json names');

# ---- portman: the collection ----------------------------------------------------------
# portman writes scratch files under its working directory: a temporary one.
# seed-random.js makes the generated example values the same on every run.
my $work = tempdir('ledger-contract-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $collection = "$work/collection.json";
sub run_logged {
    my ($log, @cmd) = @_;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        chdir $work or die;
        open STDOUT, '>', $log or die; open STDERR, '>&', \*STDOUT or die;
        exec @cmd or die "exec $cmd[0]: $!";
    }
    waitpid $pid, 0;
    return $? >> 8;
}
my $rc = run_logged("$work/portman.log", $node, '-r', "$dir/seed-random.js",
    "$dir/node_modules/\@apideck/portman/bin/portman", '--local', "$src/etc/openapi.yaml",
    '--baseUrl', "$base/api", '--portmanConfigFile', "$dir/portman-config.json",
    '--postmanConfigFile', "$dir/postman-config.json",
    '--output', $collection, '--runNewman', 'false');
ok($rc == 0 && -s $collection, 'portman generated the collection from etc/openapi.yaml')
    or BAIL_OUT('portman failed: ' . Rig::slurp("$work/portman.log"));

# The documented status codes of each request, from the collection's saved
# responses (openapi-to-postman keeps one per documented response).
my $coll = decode_json(Rig::slurp($collection));
my %documented;
my $walk; $walk = sub {
    for my $i (@{ $_[0] }) {
        if ($i->{item}) { $walk->($i->{item}); next }
        $documented{ $i->{id} } = { map { $_->{code} => 1 } @{ $i->{response} // [] } };
    }
};
$walk->($coll->{item});

# ---- newman ------------------------------------------------------------------------------
my $report = "$work/newman.json";
my %vars = (user => 'alice', password => 'alice-pw', txn_id => $txn->{id}, tag_id => $tag->{id},
            statement_id => $st->{id}, trip_id => $trip->{id}, rule_id => $rule->{id},
            participant_id => $uid{bob}, payment_id => $pay->{id}, category => 'dining',
            month => '2026-01', merchant => 'Cafe', alice_id => $uid{alice},
            txn_del_id => $txn_del->{id}, tag_del_id => $tag_del->{id}, trip_del_id => $trip_del->{id},
            rule_del_id => $rule_del->{id}, statement_del_id => $st_del->{id}, payment_del_id => $pay_del->{id},
            run_id => $rule_run->{id}, recon_manual_id => $manual->{id}, recon_stmt_row_id => $stmt_row,
            split_txn_id => $split_txn->{id});
$rc = run_logged("$work/newman.log", $node, "$dir/node_modules/newman/bin/newman.js", 'run', $collection,
    (map { ('--env-var', "$_=$vars{$_}") } sort keys %vars),
    '--reporters', 'cli,json', '--reporter-json-export', $report,
    '--timeout-request', $ENV{LEDGER_VALGRIND} ? 60000 : 10000, '--disable-unicode', '--color', 'off');
ok(-s $report, "newman ran the collection (exit $rc)") or BAIL_OUT('newman failed: ' . Rig::slurp("$work/newman.log"));
my $run = decode_json(Rig::slurp($report))->{run};

# ---- the verdict ---------------------------------------------------------------------------
my (@five, @undocumented, @main_fail, @fuzz_2xx, @fuzz_fail, @no_response);
my ($main, $fuzz, $main_2xx, $main_4xx, $skipped_schema) = (0) x 5;
my @refused;  # operations whose own request got a 4xx: success schema unchecked
my $coder = JSON::PP->new->canonical;
my %error_codes = map { $_ => 1 } qw(invalid_json invalid_field invalid_request unauthenticated forbidden
    not_found method_not_allowed conflict payload_too_large unsupported_media_type busy internal);
for my $e (@{ $run->{executions} }) {
    my $name = $e->{item}{name};
    my $req = $e->{request};
    my $where = uc($req->{method}) . ' /' . join('/', @{ $req->{url}{path} // [] }) . " ($name)";
    my $code = $e->{response}{code};
    if (!defined $code) { push @no_response, $where; next }
    my $is_fuzz = $name =~ /\[Fuzz\]/;
    $is_fuzz ? $fuzz++ : $main++;
    my $body = join '', map { chr } @{ $e->{response}{stream}{data} // [] };
    my $brief = "$where -> $code " . substr($body, 0, 300);
    push @five, $brief if $code >= 500;
    push @undocumented, $brief unless $documented{ $e->{item}{id} }{$code};
    my @failed = grep { $_->{error} } @{ $e->{assertions} // [] };
    if ($is_fuzz) {
        push @fuzz_2xx, $brief if $code < 400;
        push @fuzz_fail, map { "$brief\n    $_->{assertion}: $_->{error}{message}" } @failed;
        next;
    }
    if ($code >= 200 && $code < 300) {
        $main_2xx++;
        push @main_fail, map { "$brief\n    $_->{assertion}: $_->{error}{message}" } @failed;
        next;
    }
    # A 4xx to the operation's own request: portman's schema and empty-body
    # tests are for the success answer; the error body is checked here instead.
    $main_4xx++;
    push @refused, $brief;
    for my $a (@failed) {
        if ($a->{assertion} =~ /Schema is valid|Response has empty Body/) { $skipped_schema++; next }
        push @main_fail, "$brief\n    $a->{assertion}: $a->{error}{message}";
    }
    next if $code == 204 || $req->{method} eq 'HEAD';
    my $err = eval { decode_json($body) };
    push @main_fail, "$brief\n    not the documented error body"
        unless ref $err eq 'HASH' && ref $err->{error} eq 'HASH' && $err->{error}{status} == $code
            && $error_codes{ $err->{error}{code} // '' } && defined $err->{error}{message};
}
sub listed { my @l = @_; return join("\n", @l[0 .. ($#l < 29 ? $#l : 29)]) . (@l > 30 ? "\n... and " . (@l - 30) . ' more' : '') }
my $stats = $run->{stats};
my $operations = () = Rig::slurp("$src/etc/openapi.yaml") =~ /^      operationId: /mg;
is($main, $operations, "$main requests, one per documented operation");
cmp_ok($fuzz, '>', 50, "$fuzz fuzzing variations");
is(scalar @no_response, 0, 'every request got an answer') or diag(listed(@no_response));
is(scalar @five, 0, 'no 5xx') or diag(listed(@five));
is(scalar @undocumented, 0, 'every status answered is documented for its operation') or diag(listed(@undocumented));
is(scalar @main_fail, 0, "every operation's own request passes its contract tests") or diag(listed(@main_fail));
is(scalar @fuzz_2xx, 0, 'no fuzzing variation gets a 2xx') or diag(listed(@fuzz_2xx));
is(scalar @fuzz_fail, 0, 'every fuzzing variation passes its contract tests') or diag(listed(@fuzz_fail));
my @fives_log = grep { / 5\d\d \d+us$/ } split /\n/, $rig->fcgi_log;
is(scalar @fives_log, 0, 'the service logged no 5xx') or diag(listed(@fives_log));
diag("refused: $_") for @refused;
diag(sprintf('contract: %d requests (%d operations: %d 2xx, %d 4xx; %d fuzzing variations), '
             . '%d assertions, %d failed (%d success-body tests (schema, empty body) on 4xx answers set aside)',
             $stats->{requests}{total}, $main, $main_2xx, $main_4xx, $fuzz,
             $stats->{assertions}{total}, $stats->{assertions}{failed}, $skipped_schema));
$rig->stop;
done_testing();
