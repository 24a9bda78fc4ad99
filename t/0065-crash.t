#!/usr/bin/perl
# Crash safety: ledger-fcgi killed with SIGKILL in the middle of the three
# largest writes there are (a CSV commit, a rule run, a reconciliation
# batch), then started again on the same database.  Each time:
#   - PRAGMA integrity_check is ok, and ledger-admin check finds every
#     trigger-kept table equal to a recount;
#   - the batch is wholly there or wholly absent;
#   - every write acknowledged with a 2xx before the kill is there (a
#     writer posts transactions the whole time and notes each 201).
# A kill is aimed at the middle of a request by timing one whole request
# first; kills are repeated until one has landed before the commit (the
# client got no answer and the batch is absent), so the test shows a torn
# write being undone, not only a finished one surviving.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX ();
use Time::HiRes qw(time sleep);
use Rig;

my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
my $slow = $ENV{LEDGER_VALGRIND} ? 1 : 0;
my $rows = $slow ? 2500 : 20000;       # CSV rows (a job of several chunks) and rule matches
my $pairs = $slow ? 200 : 1000;        # reconciliation matches (1,000 is the most)
my $rig = Rig->new;
my $dir = $rig->dir;
is($rig->get('/api/me', user => 'alice')->{status}, 200, 'alice exists');

# ---- the acknowledged writes ------------------------------------------------------
my $acked = "$dir/acked";
my $stop = "$dir/stop";
Rig::write_file($acked, '');
my $parent = $$;
my $writer = fork // die;
if ($writer == 0) {
    my $n = 0;
    until (-e $stop || getppid() != $parent) {
        my $r = eval { $rig->post('/api/transactions', { date => '2026-02-01', amount => 3,
                                                         description => 'acked ' . $n++ }, user => 'bob') };
        if ($r && $r->{status} == 201 && $r->{json}) {
            open my $fh, '>>', $acked or die;
            print $fh "$r->{json}{id}\n";
            close $fh;
        } else {
            sleep 0.05;    # while ledger-fcgi is down
        }
    }
    POSIX::_exit(0);
}
# However this test ends, the writer stops with it.
END { kill 'TERM', $writer if $writer && $$ == $parent }
Rig::wait_until('the writer', 30, sub { -s $acked });

# After a restart: the database is whole and consistent, and nothing the
# writer was told is written has gone.
sub after_restart {
    my ($what) = @_;
    is($rig->sql('PRAGMA integrity_check'), 'ok', "$what: integrity_check");
    my $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, "$what: ledger-admin check finds the summaries equal to a recount") or diag($out);
    my @ids = grep { /^\d+$/ } split /\n/, Rig::slurp($acked);
    my $present = @ids ? $rig->sql('SELECT COUNT(*) FROM transactions WHERE id IN (' . join(',', @ids) . ')') : 0;
    is($present, scalar @ids, "$what: all " . scalar(@ids) . ' acknowledged writes are there');
}

# Sends one request from a child and kills ledger-fcgi $delay seconds
# later; returns the status the client saw (0: no answer).
sub kill_during {
    my ($method, $path, $body, $delay) = @_;
    my $status_file = "$dir/status";
    unlink $status_file;
    my $pid = fork // die;
    if ($pid == 0) {
        my $r = $rig->request($method, $path, user => 'alice', defined $body ? (json => $body) : ());
        Rig::write_file($status_file, $r->{status});
        POSIX::_exit(0);
    }
    sleep $delay;
    $rig->stop_fcgi('KILL');
    waitpid($pid, 0);
    my $status = Rig::slurp($status_file) // 0;
    $rig->start_fcgi;
    return $status =~ /^2/ ? $status : 0;
}

# Times one whole request, for aiming the kills.
sub timed {
    my ($method, $path, $body) = @_;
    my $t0 = time;
    my $r = $rig->request($method, $path, user => 'alice', defined $body ? (json => $body) : ());
    is($r->{status} =~ /^2/ ? 1 : 0, 1, "$method $path answers") or diag($r->{content});
    return (time - $t0, $r);
}

# Kills at fractions of a request's time until one lands before the
# commit; check->() says whether the batch is there (1), absent (0) or
# torn (-1).
sub crash_until_torn {
    my ($what, $method, $path, $body, $seconds, $check) = @_;
    my ($torn, $kills) = (0, 0);
    for my $f (0.5, 0.3, 0.6, 0.2, 0.4, 0.15, 0.7, 0.1) {
        my $status = kill_during($method, $path, $body, $seconds * $f);
        $kills++;
        my $state = $check->();
        after_restart("$what, kill $kills");
        ok($state >= 0, "$what, kill $kills at $f of its time: wholly there or wholly absent");
        ok($state == 1, "$what, kill $kills: acknowledged, so there") if $status;
        if (!$status && $state == 0) {
            $torn = 1;
            last;
        }
    }
    ok($torn, "$what: a kill landed mid-write and the write was undone ($kills kills)");
    return $kills;
}

# ---- a CSV commit -------------------------------------------------------------------
my @csv = map { { date => sprintf('2025-%02d-%02d', 1 + $_ % 12, 1 + $_ % 28), description => "crash csv $_",
                  amount => 1 + $_ % 500 } } 1 .. $rows;
my $csv_body = { rows => \@csv, allow_duplicates => JSON::PP::true };
my ($csv_time) = timed('POST', '/api/import/csv/commit', $csv_body);
my $batches = sub { $rig->sql('SELECT COUNT(*) FROM csv_imports') };
my $before = $batches->();
# The commit is a job (lib/job.c): its chunks are committed as they go,
# and a kill can leave some of them, with the job's row.  Nobody reads
# them: alice's next request undoes them before it answers.  So the batch
# is judged after that request, which must answer as usual.
my $kills = crash_until_torn('CSV commit', 'POST', '/api/import/csv/commit', $csv_body, $csv_time, sub {
    my $me = $rig->get('/api/me', user => 'alice');
    is($me->{status}, 200, 'after the kill, alice is answered (a dead job undone first)')
        or diag($me->{content});
    my $now = $batches->();
    my $torn = $rig->sql('SELECT COUNT(*) FROM csv_imports c'
                         . ' WHERE row_count IS NOT (SELECT COUNT(*) FROM transactions WHERE import_id = c.id)');
    my $loose = $rig->sql("SELECT COUNT(*) FROM transactions WHERE description LIKE 'crash csv %'"
                          . ' AND import_id NOT IN (SELECT id FROM csv_imports)');
    my $jobs = $rig->sql('SELECT COUNT(*) FROM jobs');
    my $state = $torn || $loose || $jobs ? -1 : $now > $before ? 1 : 0;
    $before = $now;
    return $state;
});

# ---- a rule run over every row of alice's ----------------------------------------
my $rule = $rig->post('/api/rules', { name => 'crash', conditions => [
        { field => 'amount', operator => 'gte', value => 0 } ],
    actions => [ { type => 'set_merchant', merchant_normalized => 'Crashed' } ] }, user => 'alice');
is($rule->{status}, 201, 'a rule over every row') or diag($rule->{content});
my $rule_id = $rule->{json}{id};
my ($rule_time, $run) = timed('POST', "/api/rules/apply/$rule_id", {});
is($rig->del("/api/rules/apply/$run->{json}{id}", user => 'alice')->{status}, 200, 'its first run reverted');
# A job too: judged after alice's next request, which undoes a killed one.
$kills += crash_until_torn('rule run', 'POST', "/api/rules/apply/$rule_id", {}, $rule_time, sub {
    is($rig->get('/api/me', user => 'alice')->{status}, 200, 'after the kill, alice is answered');
    return -1 if $rig->sql('SELECT COUNT(*) FROM jobs');
    my $live = $rig->sql("SELECT id || ' ' || matches FROM rule_runs WHERE rule_id = $rule_id"
                         . ' AND reverted_at IS NULL');
    my $changed = $rig->sql("SELECT COUNT(*) FROM transactions WHERE override_merchant_normalized = 'Crashed'");
    return $changed == 0 ? 0 : -1 unless $live;
    my ($id, $matches) = split ' ', $live;
    my $recorded = $rig->sql("SELECT COUNT(*) FROM rule_run_rows WHERE run_id = $id");
    my $missing = $rig->sql('SELECT COUNT(*) FROM rule_run_rows rr JOIN transactions t ON t.id = rr.transaction_id'
                            . " WHERE rr.run_id = $id AND t.override_merchant_normalized IS NOT 'Crashed'");
    my $state = $recorded == $matches && $missing == 0 && $changed == $matches ? 1 : -1;
    # Back to no run, for the next kill.
    $rig->del("/api/rules/apply/$id", user => 'alice') if $state == 1;
    return $state;
});

# ---- a reconciliation batch --------------------------------------------------------
# $pairs manual rows and a statement with a row of the same date and amount
# for each (amounts far enough apart that each has one candidate).
my @manual = map { { date => '2024-06-10', description => "crash manual $_", amount => 1000 + 7 * $_ } } 1 .. $pairs;
my $made = $rig->post('/api/import/csv/commit', { rows => \@manual, allow_duplicates => JSON::PP::true }, user => 'alice');
is($made->{status}, 201, "$pairs manual rows") or diag($made->{content});
my $stmt = $rig->post('/api/statements', { bank_name => 'Crash Bank', account_type => 'Visa Credit Card',
    period_start => '2024-06-01', period_end => '2024-06-30',
    transactions => [ map { { date => "2024-06-10", description => "crash bank $_", amount => 1000 + 7 * $_,
                         transaction_type => "debit" } } 1 .. $pairs ] },
    user => 'alice');
is($stmt->{status}, 201, 'a statement with a row for each') or diag($stmt->{content});
my $pairs_sql = "SELECT group_concat(m.id || ':' || s.id) FROM transactions m JOIN transactions s"
              . " ON s.statement_id = $stmt->{json}{id} AND s.amount = m.amount"
              . " WHERE m.description LIKE 'crash manual %'";
my @matches = map { my ($m, $s) = split /:/; { manual_id => 0 + $m, statement_transaction_id => 0 + $s } }
              split /,/, $rig->sql($pairs_sql);
is(scalar @matches, $pairs, 'every manual row has its statement row');
my $reconciled = sub { $rig->sql("SELECT COUNT(*) FROM transactions WHERE description LIKE 'crash manual %'"
                                 . ' AND reconciled_with_id IS NOT NULL') };
my $undo = sub { $rig->del("/api/reconcile/$_->{manual_id}", user => 'alice') for @matches };
my ($rec_time) = timed('POST', '/api/reconcile', { matches => \@matches });
$undo->();
is($reconciled->(), 0, 'undone, one by one');
$kills += crash_until_torn('reconciliation batch', 'POST', '/api/reconcile', { matches => \@matches }, $rec_time, sub {
    my $n = $reconciled->();
    my $state = $n == 0 ? 0 : $n == $pairs ? 1 : -1;
    $undo->() if $state == 1;
    return $state;
});

Rig::write_file($stop, '');
waitpid($writer, 0);
after_restart('at the end');
my @ids = grep { /^\d+$/ } split /\n/, Rig::slurp($acked);
diag("$kills kills with SIGKILL, " . scalar(@ids) . ' acknowledged writes, none lost');
done_testing();
