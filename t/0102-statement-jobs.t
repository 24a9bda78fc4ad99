#!/usr/bin/perl
# A statement (POST /api/statements) or a statement file's import (POST
# /api/statements/import) of more rows than one chunk runs as a job
# (lib/job.c), as a CSV commit does: its rows are written in chunks of
# their own transactions, and it stays all or nothing for everyone.
#   - While it runs, its owner's other requests are refused (409
#     job_running), a small statement of theirs too, and another user is
#     answered as usual.
#   - A killed one is undone by its owner's next request: its rows and
#     its statements go, and the summaries equal a recount.
#   - A bad row, even the last, is a 400 with nothing written; a statement
#     that repeats one (found in its last transaction) is a 409, and its
#     rows written meanwhile are undone.
#   - A file imported again as a job finds every row seen.
# A statement's delete (DELETE /api/statements/{id}) of as many rows is a
# job too, finished rather than undone once it has begun:
#   - meanwhile its owner is refused, the row of it shared with bob stays
#     his and the manual row reconciled into another stays hidden, until
#     its last transaction; its If-Match is checked in the job's snapshot;
#   - a killed one is finished by its owner's next request.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX ();
use Time::HiRes qw(time sleep);
use Rig;

my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
my $slow = $ENV{LEDGER_VALGRIND} ? 1 : 0;
my $rows = $slow ? 3000 : 20000;    # many chunks of JOB_CHUNK_ROWS (500)

sub statement_body {
    my ($tag, %o) = @_;
    my @r = map { { date => sprintf('2025-%02d-%02d', 1 + $_ % 12, 1 + $_ % 28),
                    description => "$tag $_", amount => 1 + $_ % 900,
                    transaction_type => 'debit' } } 1 .. ($o{rows} // $rows);
    return { bank_name => 'Job Bank', account_type => 'Visa', period_start => '2025-01-01',
             period_end => '2025-12-31', transactions => \@r };
}

# An OFX file of one card account with n rows.
sub ofx_file {
    my ($n) = @_;
    my $t = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS>"
          . "<CCSTMTRS><CURDEF>AUD<CCACCTFROM><ACCTID>4000123412341234</CCACCTFROM>"
          . "<BANKTRANLIST><DTSTART>20250101<DTEND>20251231";
    $t .= sprintf('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>2025%02d%02d<TRNAMT>-%d.%02d<FITID>J%06d'
                  . '<NAME>Shop %d</STMTTRN>', 1 + $_ % 12, 1 + $_ % 28, 1 + $_ % 300, $_ % 100,
                  $_, $_ % 40) for 1 .. $n;
    return $t . '</BANKTRANLIST><LEDGERBAL><BALAMT>-100.00<DTASOF>20251231</LEDGERBAL>'
              . "</CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>\n";
}

# Waits until the job has committed a chunk: its row names its first
# statement from the first (a delete's, its statement).
sub job_underway {
    my ($rig) = @_;
    my $end = time + ($slow ? 120 : 30);
    while (time < $end) {
        return 1 if $rig->sql('SELECT COUNT(*) FROM jobs WHERE lo IS NOT NULL') > 0
                 && $rig->sql('SELECT COUNT(*) FROM transactions WHERE statement_id IS NOT NULL') > 0;
        sleep 0.01;
    }
    return 0;
}

# Sends a request as alice from a child; returns its pid and the file its
# answer's status goes to.
sub alice_in_child {
    my ($rig, $method, $path, %o) = @_;
    my $status = $rig->dir . '/status';
    unlink $status;
    my $pid = fork // die;
    if ($pid == 0) {
        my $r = $rig->request($method, $path, user => 'alice', %o);
        Rig::write_file($status, $r->{status});
        POSIX::_exit(0);
    }
    return ($pid, $status);
}

sub recount_ok {
    my ($rig) = @_;
    my $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, 'the summaries equal a recount') or diag($out);
}

# ---- a running statement: its owner waits, others do not ---------------------------------
{
    my $rig = Rig->new(procs => 3);
    is($rig->get('/api/me', user => $_)->{status}, 200, "$_ exists") for qw(alice bob);
    my ($pid, $status) = alice_in_child($rig, 'POST', '/api/statements',
                                         json => statement_body('running'));
    ok(job_underway($rig), 'the statement has committed a chunk of its rows and is still running');
    my $list = $rig->get('/api/statements', user => 'alice');
    is($list->{status}, 409, "meanwhile alice's read is refused, so she reads no part of it")
        or diag($list->{content});
    is(eval { decode_json($list->{content})->{error}{code} } // '', 'job_running', 'as job_running');
    my $small = $rig->post('/api/statements', statement_body('small', rows => 3), user => 'alice');
    is($small->{status}, 409, 'and a small statement of hers, one transaction, too')
        or diag($small->{content});
    my $bob = $rig->post('/api/statements', statement_body('bob', rows => 3), user => 'bob');
    is($bob->{status}, 201, 'bob creates a statement meanwhile') or diag($bob->{content});
    is($rig->get('/api/statements', user => 'bob')->{status}, 200, 'and reads');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, 'the job was still running after them');
    waitpid($pid, 0);
    is(Rig::slurp($status), 201, 'the statement ends 201');
    my $mine = $rig->get('/api/statements', user => 'alice');
    is($mine->{status}, 200, 'then alice reads her statements');
    is($mine->{json}{total}, 1, 'one');
    is($mine->{json}{items}[0]{transaction_count}, $rows, "of $rows rows");
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'and no job is left');
    recount_ok($rig);
}

# ---- a killed statement or import is undone by its owner's next request --------------------
for my $case (['statement', '/api/statements', json => statement_body('killed')],
              ['OFX import', '/api/statements/import', body => ofx_file($rows),
               type => 'application/x-ofx']) {
    my ($what, $path, @o) = @$case;
    my $rig = Rig->new;
    is($rig->get('/api/me', user => $_)->{status}, 200, "$_ exists") for qw(alice bob);
    my $kept = $rig->post('/api/statements', statement_body('kept', rows => 2), user => 'alice');
    is($kept->{status}, 201, "$what: an earlier statement of alice's") or diag($kept->{content});
    my $before = $rig->sql('SELECT COUNT(*) FROM transactions');
    my ($pid) = alice_in_child($rig, 'POST', $path, @o);
    ok(job_underway($rig), "$what: the job has committed a chunk");
    $rig->stop_fcgi('KILL');
    waitpid($pid, 0);
    $rig->start_fcgi;
    ok($rig->sql('SELECT COUNT(*) FROM transactions') > $before, "$what: the file holds its rows");
    is($rig->get('/api/me', user => 'bob')->{status}, 200, "$what: bob is answered");
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, "$what: and leaves alice's job alone");
    my $list = $rig->get('/api/statements', user => 'alice');
    is($list->{status}, 200, "$what: alice's next request is answered") or diag($list->{content});
    is($list->{json}{total}, 1, "$what: with her earlier statement alone");
    is($rig->sql('SELECT COUNT(*) FROM transactions'), $before, "$what: its rows are gone");
    is($rig->sql('SELECT COUNT(*) FROM statements'), 1, "$what: and its statement");
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, "$what: and the job");
    recount_ok($rig);
}

# ---- refused whole, or undone ---------------------------------------------------------------
{
    my $rig = Rig->new;
    my $body = statement_body('checked');
    $body->{transactions}[-1]{date} = '2025-13-01';
    my $bad = $rig->post('/api/statements', $body, user => 'alice');
    is($bad->{status}, 400, 'a bad last row is a 400') or diag($bad->{content});
    like($bad->{content}, qr/transactions\[${\ ($rows - 1)}\]/, 'naming it');
    is($rig->sql('SELECT COUNT(*) FROM jobs') . ' ' . $rig->sql('SELECT COUNT(*) FROM transactions')
       . ' ' . $rig->sql('SELECT COUNT(*) FROM statements'), '0 0 0', 'nothing written, no job left');

    my $first = $rig->post('/api/statements', statement_body('twice'), user => 'alice');
    is($first->{status}, 201, 'a statement') or diag($first->{content});
    my $again = $rig->post('/api/statements', statement_body('twice'), user => 'alice');
    is($again->{status}, 409, 'the same again is a 409, found once its rows are written')
        or diag($again->{content});
    like($again->{content}, qr/statement $first->{json}{id} has the same fields and rows/,
         'naming the first');
    is($rig->sql('SELECT COUNT(*) FROM statements') . ' ' . $rig->sql('SELECT COUNT(*) FROM transactions'),
       "1 $rows", 'its rows written meanwhile are undone');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'no job left');
    recount_ok($rig);

    my $ofx = ofx_file($rows);
    my $imp = $rig->request('POST', '/api/statements/import', user => 'alice', body => $ofx,
                            type => 'application/x-ofx');
    is($imp->{status}, 201, 'a file of many rows') or diag($imp->{content});
    is($imp->{json}{imported}, $rows, "imports its $rows rows");
    is($imp->{json}{statements}[0]{transaction_count}, $rows, 'into one statement');
    my $re = $rig->request('POST', '/api/statements/import', user => 'alice', body => $ofx,
                           type => 'application/x-ofx');
    is($re->{status}, 200, 'the same file again creates nothing') or diag($re->{content});
    is($re->{json}{skipped_duplicates}, $rows, 'every row seen');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'no job left');
    is($rig->get('/api/me', user => 'alice')->{status}, 200, 'alice goes on');
    recount_ok($rig);
}

# ---- a statement's delete ---------------------------------------------------------------------

# Alice's statement of $rows rows, one row shared with bob and a manual row
# of hers reconciled into another; (statement, shared row, manual row).
sub doomed_statement {
    my ($rig) = @_;
    is($rig->get('/api/me', user => $_)->{status}, 200, "$_ exists") for qw(alice bob);
    my $st = $rig->post('/api/statements', statement_body('doomed'), user => 'alice');
    is($st->{status}, 201, "alice's statement of $rows rows") or diag($st->{content});
    my ($alice_id, $bob_id) = map { $rig->sql("SELECT id FROM users WHERE subject = '$_'") } qw(alice bob);
    my $shared = $rig->sql("SELECT id FROM transactions WHERE description = 'doomed 7'");
    $rig->sql("INSERT INTO splits (transaction_id, participant_id, share_percent)"
              . " VALUES ($shared, $alice_id, 5000), ($shared, $bob_id, 5000)");
    is($rig->get("/api/transactions/$shared", user => 'bob')->{status}, 200,
       'bob sees the row of it alice shares with him');
    # "doomed 5": 2025-06-06, 6.00
    my $manual = $rig->post('/api/transactions', { date => '2025-06-06', amount => 6,
                                                   description => 'lunch', payment_method => 'card' },
                            user => 'alice');
    is($manual->{status}, 201, 'a manual row of hers') or diag($manual->{content});
    my $match = $rig->post('/api/reconcile', { matches => [ {
            manual_id => $manual->{json}{id},
            statement_transaction_id => $rig->sql("SELECT id FROM transactions WHERE description = 'doomed 5'") + 0 } ] },
        user => 'alice');
    is($match->{status}, 200, 'reconciled into another row of the statement') or diag($match->{content});
    return ($st->{json}{id}, $shared, $manual->{json}{id});
}

sub delete_underway {
    my ($rig, $id) = @_;
    my $end = time + ($slow ? 120 : 30);
    while (time < $end) {
        return 1 if $rig->sql("SELECT COUNT(*) FROM jobs WHERE kind = 'statement_delete' AND batch = $id") > 0
                 && $rig->sql("SELECT COUNT(*) FROM transactions WHERE statement_id = $id") < $rows;
        sleep 0.01;
    }
    return 0;
}

{
    my $rig = Rig->new(procs => 3);
    my ($id, $shared, $manual) = doomed_statement($rig);
    my $stale = $rig->del("/api/statements/$id", user => 'alice', headers => { 'If-Match' => '"stale"' });
    is($stale->{status}, 412, 'a delete whose If-Match names no version of it is 412')
        or diag($stale->{content});
    is($rig->sql("SELECT COUNT(*) FROM transactions WHERE statement_id = $id") . ' '
       . $rig->sql('SELECT COUNT(*) FROM jobs'), "$rows 0", 'nothing deleted, no job left');
    my $tag = $rig->get("/api/statements/$id", user => 'alice')->{headers}{etag};
    ok($tag, "the statement's tag");
    my ($pid, $status) = alice_in_child($rig, 'DELETE', "/api/statements/$id",
                                        headers => { 'If-Match' => $tag });
    ok(delete_underway($rig, $id), 'the delete, If-Match its tag, has committed a chunk and runs');
    my $list = $rig->get('/api/statements', user => 'alice');
    is($list->{status}, 409, "meanwhile alice's read is refused") or diag($list->{content});
    is($rig->get("/api/transactions/$shared", user => 'bob')->{status}, 200,
       'bob still reads the row shared with him');
    my ($samples, $partial) = (0, 0);
    my $end_by = time + ($slow ? 300 : 60);
    while (time < $end_by) {
        # One snapshot: the job's row, the shared row, the manual row hidden.
        my ($jobs, $seen, $hidden) = split /\|/, $rig->sql(
            "SELECT (SELECT COUNT(*) FROM jobs), (SELECT COUNT(*) FROM transactions WHERE id = $shared),"
            . " (SELECT COUNT(*) FROM transactions WHERE id = $manual AND reconciled_with_id IS NOT NULL)");
        last if $jobs == 0 && waitpid($pid, POSIX::WNOHANG()) != 0;
        next unless $jobs;
        $samples++;
        $partial++ if $seen != 1 || $hidden != 1;
        sleep 0.005;
    }
    ok($samples > 0, "the delete was seen running $samples times");
    is($partial, 0, 'and the shared row and the match stayed as they were meanwhile');
    is(Rig::slurp($status), 204, 'the delete ends 204');
    is($rig->get("/api/statements/$id", user => 'alice')->{status}, 404, 'the statement is gone');
    is($rig->sql("SELECT COUNT(*) FROM transactions WHERE statement_id = $id"), 0, 'with its rows');
    is($rig->get("/api/transactions/$shared", user => 'bob')->{status}, 404,
       'bob no longer reads the shared one');
    my $back = $rig->get("/api/transactions/$manual", user => 'alice');
    is($back->{status}, 200, 'the manual row is back') or diag($back->{content});
    is($rig->sql("SELECT reconciled_with_id IS NULL FROM transactions WHERE id = $manual"), 1,
       'matched to nothing');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'and no job is left');
    recount_ok($rig);
}

{
    my $rig = Rig->new;
    my ($id, $shared, $manual) = doomed_statement($rig);
    my ($pid) = alice_in_child($rig, 'DELETE', "/api/statements/$id");
    ok(delete_underway($rig, $id), 'a delete has committed a chunk');
    $rig->stop_fcgi('KILL');
    waitpid($pid, 0);
    $rig->start_fcgi;
    my $left = $rig->sql("SELECT COUNT(*) FROM transactions WHERE statement_id = $id");
    ok($left > 0 && $left < $rows, "the kill left $left of its $rows rows");
    is($rig->get("/api/transactions/$shared", user => 'bob')->{status}, 200,
       'bob is answered, the shared row still his');
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 1, "and alice's job is left alone");
    my $list = $rig->get('/api/statements', user => 'alice');
    is($list->{status}, 200, "alice's next request is answered") or diag($list->{content});
    is($list->{json}{total}, 0, 'once it has finished the delete: no statement');
    is($rig->sql("SELECT COUNT(*) FROM transactions WHERE statement_id = $id"), 0, 'no row of it');
    is($rig->sql("SELECT reconciled_with_id IS NULL FROM transactions WHERE id = $manual"), 1,
       'the manual row back');
    is($rig->get("/api/transactions/$shared", user => 'bob')->{status}, 404, "and bob's share gone");
    is($rig->sql('SELECT COUNT(*) FROM jobs'), 0, 'no job left');
    recount_ok($rig);
}

done_testing;
