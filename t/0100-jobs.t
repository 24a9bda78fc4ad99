#!/usr/bin/perl
# Jobs (lib/job.c): a CSV commit is written in chunks of its own
# transactions, so that it never holds the write lock for long, and stays
# all or nothing for everyone who can read it.
#   - While it runs, its owner's other requests are refused (409
#     job_running), and another user is answered as usual.
#   - A job whose process was killed leaves its committed chunks and its
#     row; its owner's next request undoes them before it answers, and the
#     summaries still equal a recount.
#   - A rule apply, its revert, apply-all and a merchant run are jobs too,
#     and change the rows shared with someone (a split) in their last
#     transaction: the participant never sees them half done; a rule that
#     shares the rows it changes changes them all there.  A killed revert is
#     finished by its owner's next request, not undone.
#   - A commit refused (a bad row) or with nothing new leaves no job.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX ();
use Time::HiRes qw(time sleep);
use Rig;

my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
my $slow = $ENV{LEDGER_VALGRIND} ? 1 : 0;
my $rows = $slow ? 3000 : 30000;    # many chunks of JOB_CHUNK_ROWS (500)

sub csv_body {
    my ($tag) = @_;
    return { allow_duplicates => JSON::PP::true, rows => [ map {
        { date => sprintf('2025-%02d-%02d', 1 + $_ % 12, 1 + $_ % 28), description => "$tag $_",
          amount => 1 + $_ % 900 } } 1 .. $rows ] };
}

# Waits until the job has committed a chunk: its row names its batch (a
# CSV commit's import, a rule apply's or a revert's run) from the first.
sub job_underway {
    my ($rig) = @_;
    my $end = time + ($slow ? 120 : 30);
    while (time < $end) {
        return 1 if $rig->sql('SELECT COUNT(*) FROM jobs WHERE batch IS NOT NULL') > 0;
        sleep 0.01;
    }
    return 0;
}

# Sends a request as alice from a child; returns its pid and the file its
# answer's status goes to.
sub alice_in_child {
    my ($rig, $method, $path, $body) = @_;
    my $status = $rig->dir . '/status';
    unlink $status;
    my $pid = fork // die;
    if ($pid == 0) {
        my $r = $rig->request($method, $path, user => 'alice', defined $body ? (json => $body) : ());
        Rig::write_file($status, $r->{status});
        POSIX::_exit(0);
    }
    return ($pid, $status);
}

# ---- a running job: its owner waits, others do not ----------------------------------
{
    my $rig = Rig->new(procs => 3);
    is($rig->get('/api/me', user => $_)->{status}, 200, "$_ exists") for qw(alice bob);
    my ($pid, $status) = alice_in_child($rig, 'POST', '/api/import/csv/commit', csv_body('running'));
    ok(job_underway($rig), 'the commit has committed a chunk of its rows and is still running');
    my $list = $rig->get('/api/transactions?limit=1', user => 'alice');
    is($list->{status}, 409, "meanwhile alice's read is refused, so she reads no part of it")
        or diag($list->{content});
    is(eval { decode_json($list->{content})->{error}{code} } // '', 'job_running', 'as job_running');
    my $again = $rig->post('/api/import/csv/commit', { rows => [ { date => '2025-01-01',
        description => 'second', amount => 1 } ] }, user => 'alice');
    is($again->{status}, 409, 'and a second commit of hers too');
    my $t0 = time;
    my $bob = $rig->post('/api/transactions', { date => '2025-02-02', description => 'bob meanwhile',
                                                 amount => 500 }, user => 'bob');
    is($bob->{status}, 201, 'bob writes meanwhile') or diag($bob->{content});
    is($rig->get('/api/transactions?limit=1', user => 'bob')->{status}, 200, 'and reads');
    diag(sprintf 'bob wrote and read in %.0f ms while the job ran', 1000 * (time - $t0));
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running after them');
    waitpid($pid, 0);
    is(Rig::slurp($status), 201, 'the commit ends 201');
    my $after = decode_json($rig->get('/api/transactions?limit=1', user => 'alice')->{content});
    is($after->{total}, $rows, "then alice sees all $rows rows");
    is($rig->sql('SELECT row_count FROM csv_imports'), $rows, 'its batch counts them all');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'and no job is left');
    my $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);

    # A rule over every row of alice's, one of them shared with bob.
    my $bob_id = $rig->sql("SELECT id FROM users WHERE subject = 'bob'");
    my $shared = $rig->sql("SELECT id FROM transactions WHERE description = 'running 7'");
    my $alice_id = $rig->sql("SELECT id FROM users WHERE subject = 'alice'");
    $rig->sql("INSERT INTO splits (transaction_id, participant_id, share_percent)"
              . " VALUES ($shared, $alice_id, 5000), ($shared, $bob_id, 5000)");
    my $seen = $rig->get("/api/transactions/$shared", user => 'bob');
    is($seen->{status}, 200, 'bob sees the row alice shares with him') or diag($seen->{content});
    my $rule = $rig->post('/api/rules', { name => 'everything', conditions => [
            { field => 'amount', operator => 'gte', value => 0 } ],
        actions => [ { type => 'set_category', category => 'groceries' } ] }, user => 'alice');
    is($rule->{status}, 201, 'a rule over every row') or diag($rule->{content});
    my ($apply, $apply_status) = alice_in_child($rig, 'POST', "/api/rules/apply/$rule->{json}{id}", {});
    ok(job_underway($rig), 'the apply has committed a chunk and is still running');
    is($rig->get('/api/me', user => 'alice')->{status}, 409, "alice's request is refused meanwhile");
    my $mid = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    my $changed = $rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'});
    ok($changed > 0, "$changed of alice's rows are changed already");
    is($mid->{category} // 'none', 'none', 'but not the row bob sees: it changes last');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running then');
    waitpid($apply, 0);
    is(Rig::slurp($apply_status), 200, 'the apply ends 200');
    my $end = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    is($end->{category}, 'groceries', 'then bob sees the row changed');
    is($rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category IS NOT 'groceries'}), 1,
       "and every row of alice's is, but bob's manual row");
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);

    # Its revert: a job too, the shared row put back last.
    my $run_id = $rig->sql('SELECT max(id) FROM rule_runs');
    my ($revert, $revert_status) = alice_in_child($rig, 'DELETE', "/api/rules/apply/$run_id");
    ok(job_underway($rig), 'the revert has committed a chunk and is still running');
    is($rig->get('/api/me', user => 'alice')->{status}, 409, "alice's request is refused meanwhile");
    my $back = $rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category IS NOT 'groceries'});
    $mid = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    ok($back > 1, "$back rows are put back already");
    is($mid->{category}, 'groceries', 'but not the row bob sees: it goes back last');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running then');
    waitpid($revert, 0);
    is(Rig::slurp($revert_status), 200, 'the revert ends 200');
    $end = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    is($end->{category} // 'none', 'none', 'then bob sees the row put back');
    is($rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'}), 0,
       'as every row is');
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);

    # The merchant run: a job too, the row bob sees named last.
    my ($clean, $clean_status) = alice_in_child($rig, 'POST', '/api/merchants/clean', {});
    my $named_sql = "SELECT COUNT(*) FROM transactions WHERE merchant_normalized IS NOT NULL"
                  . " AND owner_id = $alice_id";
    my $named = 0;
    for (my $until = time + ($slow ? 120 : 30); time < $until && !$named; sleep 0.01) {
        $named = $rig->sql($named_sql);
    }
    ok($named > 0, "the merchant run has named $named of alice's rows");
    is($rig->get('/api/me', user => 'alice')->{status}, 409, "alice's request is refused meanwhile");
    $mid = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    is($mid->{merchant_normalized} // 'none', 'none', 'but not the row bob sees: it is named last');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running then');
    waitpid($clean, 0);
    is(Rig::slurp($clean_status), 200, 'the merchant run ends 200');
    $end = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    ok(defined $end->{merchant_normalized}, 'then bob sees the row named ('
       . ($end->{merchant_normalized} // 'none') . ')');
    is($rig->sql(q{SELECT COUNT(*) FROM transactions WHERE merchant_normalized IS NULL AND owner_id = }
                 . $alice_id), 0, "as every row of alice's is");
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);

    # Apply-all: a job too.  The rule reverted above runs again over every
    # row of alice's, bob's row changed last.
    my ($all, $all_status) = alice_in_child($rig, 'POST', '/api/rules/apply', {});
    my $grocery_sql = "SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'"
                    . " AND owner_id = $alice_id";
    my $done = 0;
    for (my $until = time + ($slow ? 120 : 30); time < $until && !$done; sleep 0.01) {
        $done = $rig->sql($grocery_sql);
    }
    ok($done > 0, "apply-all has changed $done of alice's rows");
    is($rig->get('/api/me', user => 'alice')->{status}, 409, "alice's request is refused meanwhile");
    $mid = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    is($mid->{category} // 'none', 'none', 'but not the row bob sees: it changes last');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running then');
    waitpid($all, 0);
    is(Rig::slurp($all_status), 200, 'apply-all ends 200');
    $end = decode_json($rig->get("/api/transactions/$shared", user => 'bob')->{content});
    is($end->{category}, 'groceries', 'then bob sees the row changed');
    is($rig->sql($grocery_sql), $rows, "as every row of alice's is");
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);

    # A rule that shares the rows it changes (a split) would show bob each
    # chunk as it commits: all its rows change in its last transaction.
    my $split = $rig->post('/api/rules', { name => 'share all', conditions => [
            { field => 'description', operator => 'contains', value => 'running' } ],
        actions => [ { type => 'apply_split',
                       shares => [ { participant_id => $bob_id + 0, share_percent => 50 } ] } ] },
        user => 'alice');
    is($split->{status}, 201, 'a rule sharing every row with bob') or diag($split->{content});
    my $before = $rig->sql("SELECT COUNT(*) FROM splits WHERE participant_id = $bob_id");
    my ($share, $share_status) = alice_in_child($rig, 'POST', "/api/rules/apply/$split->{json}{id}", {});
    my ($samples, $partial) = (0, 0);
    my $end_by = time + ($slow ? 300 : 60);
    while (time < $end_by) {
        # One snapshot: the job's row and bob's splits together.
        my ($jobs, $splits) = split /\|/, $rig->sql("SELECT (SELECT COUNT(*) FROM jobs),"
                                                  . " (SELECT COUNT(*) FROM splits WHERE participant_id = $bob_id)");
        last if $jobs == 0 && waitpid($share, POSIX::WNOHANG()) != 0;
        next unless $jobs;
        $samples++;
        $partial++ if $splits != $before;
        sleep 0.005;
    }
    ok($samples > 0, "the job was seen running $samples times");
    is($partial, 0, 'and bob never had a share of its rows meanwhile');
    is(Rig::slurp($share_status), 200, 'the apply ends 200');
    is($rig->sql("SELECT COUNT(*) FROM splits WHERE participant_id = $bob_id") - $before, $rows - 1,
       'then bob shares every row it matched');
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);
}

# ---- a killed job is undone by its owner's next request -----------------------------
{
    my $rig = Rig->new;
    is($rig->get('/api/me', user => $_)->{status}, 200, "$_ exists") for qw(alice bob);
    my $before = $rig->sql("SELECT COUNT(*) FROM transactions");
    my ($pid, $status) = alice_in_child($rig, 'POST', '/api/import/csv/commit', csv_body('killed'));
    ok(job_underway($rig), 'the commit has committed a chunk');
    $rig->stop_fcgi('KILL');
    waitpid($pid, 0);
    $rig->start_fcgi;
    ok($rig->sql("SELECT COUNT(*) FROM transactions WHERE description LIKE 'killed %'") > 0,
       'the file holds rows of the killed job');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'and its row');
    is($rig->get('/api/me', user => 'bob')->{status}, 200, 'bob is answered');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, "and leaves alice's job alone");
    my $list = $rig->get('/api/transactions?limit=1', user => 'alice');
    is($list->{status}, 200, "alice's next request is answered") or diag($list->{content});
    is(decode_json($list->{content})->{total}, 0, 'with none of the rows');
    is($rig->sql("SELECT COUNT(*) FROM transactions WHERE description LIKE 'killed %'"), 0,
       'the rows are gone from the file');
    is($rig->sql('SELECT COUNT(*) FROM jobs') . ' ' . $rig->sql('SELECT COUNT(*) FROM csv_imports'),
       '0 0', 'and the job and its batch');
    is($rig->sql("SELECT COUNT(*) FROM tags WHERE name = 'csv-import'"), 0,
       'and the csv-import tag it made');
    is($rig->sql("SELECT COUNT(*) FROM transactions"), $before, 'the file is as before the job');
    my $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);
    my $r = $rig->post('/api/import/csv/commit', { rows => [ { date => '2025-01-01',
        description => 'after', amount => 1 } ] }, user => 'alice');
    is($r->{status}, 201, 'and alice commits again') or diag($r->{content});

    # A revert killed once it began writing is finished, not undone: what
    # each row goes back to is in the run's snapshots.
    my $many = $rig->post('/api/import/csv/commit', csv_body('reverted'), user => 'alice');
    is($many->{status}, 201, "$rows rows") or diag($many->{content});
    my $rule = $rig->post('/api/rules', { name => 'all', conditions => [
            { field => 'amount', operator => 'gte', value => 0 } ],
        actions => [ { type => 'set_category', category => 'groceries' } ] }, user => 'alice');
    my $run = $rig->post("/api/rules/apply/$rule->{json}{id}", {}, user => 'alice');
    is($run->{status}, 200, 'a rule applied to them') or diag($run->{content});
    my $run_id = $run->{json}{run_id};
    my $all = $rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'});
    ($pid, $status) = alice_in_child($rig, 'DELETE', "/api/rules/apply/$run_id");
    ok(job_underway($rig), 'its revert has committed a chunk');
    $rig->stop_fcgi('KILL');
    waitpid($pid, 0);
    $rig->start_fcgi;
    my $left = $rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'});
    ok($left > 0 && $left < $all, "the kill left $left of $all rows not yet put back");
    is($rig->get('/api/me', user => 'alice')->{status}, 200, "alice's next request is answered");
    is($rig->sql(q{SELECT COUNT(*) FROM transactions WHERE eff_category = 'groceries'}), 0,
       'every row is put back');
    isnt($rig->sql("SELECT reverted_at FROM rule_runs WHERE id = $run_id"), '', 'the run is reverted');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'and no job is left');
    my $again = $rig->del("/api/rules/apply/$run_id", user => 'alice');
    is($again->{status}, 409, 'a second revert finds it reverted') or diag($again->{content});
    $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);
}

# ---- refused or empty: no job left --------------------------------------------------
{
    my $rig = Rig->new;
    my $bad = $rig->post('/api/import/csv/commit', { rows => [
        { date => '2025-01-01', description => 'fine', amount => 1 },
        { date => '2025-13-01', description => 'bad', amount => 1 } ] }, user => 'alice');
    is($bad->{status}, 400, 'a bad row is a 400') or diag($bad->{content});
    like($bad->{content}, qr/rows\[1\]/, 'naming it');
    is($rig->sql('SELECT COUNT(*) FROM jobs') . ' ' . $rig->sql('SELECT COUNT(*) FROM transactions'),
       '0 0', 'nothing written, no job left');
    my $one = { rows => [ { date => '2025-01-01', description => 'once', amount => 1 } ] };
    is($rig->post('/api/import/csv/commit', $one, user => 'alice')->{status}, 201, 'a commit');
    my $dup = $rig->post('/api/import/csv/commit', $one, user => 'alice');
    is($dup->{status}, 200, 'the same again: nothing new, 200') or diag($dup->{content});
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'no job left');
    is($rig->get('/api/me', user => 'alice')->{status}, 200, 'alice goes on');
}

done_testing;
