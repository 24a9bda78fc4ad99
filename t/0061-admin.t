#!/usr/bin/perl
# ledger-admin, the operator's command, against a database a real
# ledger-fcgi serves: usage and exit statuses, migrate, import (CSV and
# OFX through the library's write paths), a backup taken while the service
# takes writes, check finding a derived table damaged by hand, users, and
# merge-users refusing a conflict and then merging cleanly.
use strict;
use warnings;
use Test::More;
use Cwd ();
use File::Copy ();
use File::Temp qw(tempdir);
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Rig;
use CommonChecks qw(participant_ok);

my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';
my $src = Rig::srcdir();
my $dir = tempdir('ledger-admin-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# Runs ledger-admin (under valgrind for make check-valgrind, like the
# rig's ledger-fcgi); returns (exit status, stdout, stderr).
my $runs = 0;
sub admin {
    my (@args) = @_;
    my @cmd = ($admin, @args);
    if ($ENV{LEDGER_VALGRIND}) {
        unshift @cmd, 'valgrind', '--quiet', '--error-exitcode=99', '--leak-check=full',
            '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite';
    }
    $runs++;
    my ($out, $err) = ("$dir/out.$runs", "$dir/err.$runs");
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', $out;
        open STDERR, '>', $err;
        exec @cmd or POSIX::_exit(127);
    }
    waitpid($pid, 0);
    my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, Rig::slurp($out), Rig::slurp($err));
}

# ---- usage ----------------------------------------------------------------------
my ($rc, $out, $err) = admin();
is($rc, 2, 'no command: exit 2');
like($err, qr/usage: ledger-admin COMMAND/, 'with the usage');
($rc, $out) = admin('--help');
is($rc, 0, '--help: exit 0');
like($out, qr/merge-users/, 'listing every command');
($rc, undef, $err) = admin('frobnicate');
is($rc, 2, 'an unknown command: exit 2');
like($err, qr/unknown command 'frobnicate'/, 'named');
for my $cmd (qw(migrate backup check import users merge-users export clean-merchants)) {
    ($rc, $out) = admin($cmd, '--help');
    is($rc, 0, "$cmd --help: exit 0");
    like($out, qr/^usage: ledger-admin \Q$cmd\E .*Exit status:/s, "$cmd --help has usage and exit statuses");
}
($rc, undef, $err) = admin('check', '--bogus');
is($rc, 2, 'an unknown option: exit 2');
like($err, qr/unrecognized option/, 'named by getopt');
($rc, undef, $err) = admin('check');
is($rc, 2, 'no --db: exit 2');
like($err, qr/--db PATH .* is required/, 'saying so');
($rc, undef, $err) = admin('check', '--db', '');
is($rc, 2, "ledger-admin check --db '' is a usage error");
like($err, qr/db must name a database file/, 'saying why');
($rc, undef, $err) = admin('backup', '--db', "$dir/x.db");
is($rc, 2, 'backup without --to: exit 2');
($rc, undef, $err) = admin('import', '--db', "$dir/x.db", 'file.csv');
is($rc, 2, 'import without --user: exit 2');
($rc, undef, $err) = admin('merge-users', '--db', "$dir/x.db", '--from', 'a');
is($rc, 2, 'merge-users without --into: exit 2');
($rc, undef, $err) = admin('export', '--db', "$dir/x.db");
is($rc, 2, 'export without --user: exit 2');
($rc, undef, $err) = admin('export', '--db', "$dir/x.db", '--user', 'a', '--format', 'xml');
is($rc, 2, 'export --format xml: exit 2');
like($err, qr/format must be csv, json or journal/, 'saying which formats there are');
($rc, undef, $err) = admin('users', '--db', "$dir/x.db", 'extra');
is($rc, 2, 'a stray argument: exit 2');
ok(!-e "$dir/x.db", 'usage errors create no database');
# Only migrate makes a database: a mistyped path is an error, not a new ledger.
for my $cmd ([ 'users' ], [ 'merge-users', '--from', 'a', '--into', 'b' ], [ 'check' ]) {
    ($rc, undef, $err) = admin($cmd->[0], '--db', "$dir/typo.db", @$cmd[1 .. $#$cmd]);
    is($rc, 1, "$cmd->[0] on a path that names nothing: exit 1");
    like($err, qr/typo\.db: no such database/, 'saying so');
}
# A file that is another application's SQLite database is no ledger.
system('sqlite3', "$dir/notes.db", 'CREATE TABLE notes (body TEXT)') == 0 or die;
for my $cmd ([ 'users' ], [ 'check' ]) {
    ($rc, undef, $err) = admin($cmd->[0], '--db', "$dir/notes.db");
    is($rc, 1, "$cmd->[0] on another application's database: exit 1");
    like($err, qr/notes\.db is not a ledger database/, 'saying so, not "no such database"');
}
($rc, undef, $err) = admin('import', '--db', "$dir/typo.db", '--user', 'a', "$dir/none.csv");
is($rc, 1, 'import on a path that names nothing: exit 1');
ok(!-e "$dir/typo.db", 'and no database was made');

# ---- migrate --------------------------------------------------------------------
($rc, $out) = admin('migrate', '--db', "$dir/m.db");
is($rc, 0, 'migrate a new database');
like($out, qr/schema version 0 -> (\d+)/, 'from 0 to the latest');
my ($latest) = $out =~ /-> (\d+)/;
is(sprintf('%04o', (stat "$dir/m.db")[2] & 07777), '0600', 'the new database is 0600, the service account\'s alone');
($rc, $out) = admin('migrate', '--db', "$dir/m.db");
is($rc, 0, 'migrate again');
like($out, qr/schema version $latest, up to date/, 'nothing to do');
system('sqlite3', "$dir/m.db", 'PRAGMA user_version = ' . ($latest + 1)) == 0 or die;
($rc, undef, $err) = admin('migrate', '--db', "$dir/m.db");
is($rc, 1, 'a newer database is refused');
like($err, qr/newer than this release knows \($latest\).*nothing was changed/, 'clearly');
($rc, undef, $err) = admin('check', '--db', "$dir/m.db");
is($rc, 1, 'and check refuses it too');

# A database from before the baseline: no command opens it, migrate
# included, each saying why, and it is left at its version.
{
    my $old = "$dir/old.db";
    open my $pipe, '|-', 'sqlite3', $old or die;
    print $pipe "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT UNIQUE, email TEXT, name TEXT);\n"
              . "PRAGMA user_version = 3;\n";
    close $pipe or die 'sqlite3';
    Rig::write_file("$dir/one.csv", "date,description,amount\n2026-01-02,x,1.00\n");
    for my $cmd ([ 'users' ], [ 'merge-users', '--from', 'a', '--into', 'b', '--dry-run' ],
                 [ 'import', '--user', 'a', "$dir/one.csv" ], [ 'check' ]) {
        ($rc, undef, $err) = admin($cmd->[0], '--db', $old, @$cmd[1 .. $#$cmd]);
        is($rc, 1, "$cmd->[0] on a database at schema 3: exit 1");
        like($err, qr/schema version 3, from before this release's baseline \(27\): no release migrates it/,
             'saying no release migrates it');
        is(`sqlite3 $old 'PRAGMA user_version'` + 0, 3, 'and it is still at schema 3');
    }
    ($rc, undef, $err) = admin('migrate', '--db', $old);
    is($rc, 1, 'migrate refuses it: exit 1');
    like($err, qr/schema version 3, from before this release's baseline \(27\)/,
         'as from before the baseline');
    is(`sqlite3 $old 'PRAGMA user_version'` + 0, 3, 'and it is still at schema 3');
}

# ---- a served database ------------------------------------------------------------
my $rig = Rig->new;
my $db = $rig->db_path;
my %uid;
$uid{$_} = $rig->get('/api/me', user => $_)->{json}{id} for qw(alice bob carol dave);
ok(!grep({ !$_ } values %uid), 'alice, bob, carol and dave have ids');
sub total { $rig->get('/api/transactions?exclude_categories=&limit=1', user => $_[0])->{json}{total} }
sub create {
    my ($user, %f) = @_;
    my $res = $rig->post('/api/transactions', { date => '2026-03-10', %f }, user => $user);
    is($res->{status}, 201, "$user creates '$f{description}'") or diag($res->{content});
    return $res->{json}{id};
}

# ---- import -----------------------------------------------------------------------
my $preset = "$src/contrib/csv-presets/generic-signed.json";
($rc, $out, $err) = admin('import', '--db', $db, '--user', 'alice', '--mapping', $preset,
                          "$src/t/data/csv/bank.csv");
is($rc, 0, 'a CSV file imports') or diag($err);
like($out, qr/bank\.csv: imported 3 rows \(0 duplicates skipped\)/, 'three rows');
like($err, qr/^import: 100%$/m, 'plain progress lines when stderr is not a terminal');
unlike($err, qr/\r/, 'no bar drawn');
my $rows = $rig->get('/api/transactions?search=CAFE+NERO', user => 'alice')->{json}{items};
is(scalar @$rows, 1, 'the row is in the ledger the service shows');
is($rows->[0]{transaction_type}, 'debit', 'a negative amount is money out');
is(sprintf('%.2f', $rows->[0]{amount}), '4.50', 'amount');
is_deeply([map { $_->{name} } @{ $rows->[0]{tags} }], ['csv-import'], 'tagged csv-import like the API does');
($rc, $out) = admin('import', '--db', $db, '--user', 'alice@example.org', '--mapping', $preset,
                    "$src/t/data/csv/bank.csv");
is($rc, 0, 'the same file again, naming the user by email');
like($out, qr/imported 0 rows \(3 duplicates skipped\), no import$/m,
     'skips the duplicates, and makes no import of nothing');
# A mapping's encoding reads the file's bytes (a Windows-1250 export).
my $dir = File::Temp::tempdir(CLEANUP => 1);
Rig::write_file("$dir/hu.json", '{"mapping": {"date": "Date", "description": "Description", '
                . '"amount": "Amount", "encoding": "windows-1250"}}');
Rig::write_file("$dir/hu.csv", "Date,Description,Amount\n03/01/2025,V\xcdZM\xdbVEK \xd5SZ,-4.50\n");
($rc, $out, $err) = admin('import', '--db', $db, '--user', 'alice', '--mapping', "$dir/hu.json",
                          "$dir/hu.csv");
is($rc, 0, 'a Windows-1250 file imports with its encoding in the mapping') or diag($err);
$rows = $rig->get('/api/transactions?search=SZ', user => 'alice')->{json}{items};
is($rows->[0]{description}, "V\xc3\x8dZM\xc5\xb0VEK \xc5\x90SZ", 'its letters read as Windows-1250');
my $before = total('alice');
($rc, undef, $err) = admin('import', '--db', $db, '--user', 'alice', "$src/t/data/csv/bad-date.csv");
is($rc, 1, 'a CSV file with a bad row is refused');
like($err, qr/bad-date\.csv: line 3: /, 'naming the line');
like($err, qr/nothing imported from it/, 'and saying nothing was imported');
is(total('alice'), $before, 'its good row was not imported either');
($rc, $out, $err) = admin('import', '--db', $db, '--user', 'alice', "$src/t/data/ofx/bank.qfx");
is($rc, 0, 'a QFX file imports') or diag($err);
like($out, qr/bank\.qfx: imported (\d+) rows into 1 statement/, 'as one statement');
my ($qfx_rows) = $out =~ /imported (\d+) rows/;
ok($qfx_rows > 0, 'with rows');
is(scalar @{ $rig->get('/api/statements', user => 'alice')->{json}{items} }, 1,
   'the statement is listed by the service');
($rc, $out) = admin('import', '--db', $db, '--user', 'alice', "$src/t/data/ofx/bank.qfx");
like($out, qr/imported 0 rows .*\($qfx_rows seen before, skipped\)/, 'the same file again creates nothing');
# A QIF file whose every date reads both ways needs its day order said.
Rig::write_file("$dir/both.qif", "!Type:Bank\nD01/02/2024\nT-5.00\nPQIF both ways\n^\n");
($rc, undef, $err) = admin('import', '--db', $db, '--user', 'alice', "$dir/both.qif");
is($rc, 1, 'an ambiguous QIF file is refused') or diag($err);
like($err, qr/date_order/, 'saying the day order is wanted');
($rc, $out, $err) = admin('import', '--db', $db, '--user', 'alice', '--date-order', 'dmy', "$dir/both.qif");
is($rc, 0, '--date-order dmy imports it') or diag($err);
$rows = $rig->get('/api/transactions?search=QIF+both', user => 'alice')->{json}{items};
is($rows->[0]{date}, '2024-02-01', 'day first: 1 February');
($rc) = admin('import', '--db', $db, '--user', 'alice', '--date-order', 'ymd', "$dir/both.qif");
is($rc, 2, '--date-order takes dmy or mdy only');
($rc, undef, $err) = admin('import', '--db', $db, '--user', 'nobody', "$src/t/data/ofx/bank.qfx");
is($rc, 1, 'an unknown user is refused, not created');
like($err, qr/no user 'nobody'/, 'saying so');
($rc, undef, $err) = admin('import', '--db', $db, '--user', 'carol', "$src/t/data/ofx/truncated.ofx",
                           "$src/t/data/csv/bank.csv");
is($rc, 1, 'one bad file of two: exit 1');
like($err, qr/truncated\.ofx: .*nothing imported from it/, 'the bad one named');
like($err, qr/1 of 2 files not imported/, 'and counted');
is(total('carol'), 3, 'the good one imported all the same');

# ---- clean-merchants -----------------------------------------------------------------
# The import gave carol's CSV rows the merchant their description names, as
# the bank's merchant; the run gives each a normalized merchant too (as it
# does rows written before the cleaner), and its revert takes that away.
sub normalized {
    [ sort map { $_->{merchant_normalized} // '-' }
      @{ $rig->get('/api/transactions?exclude_categories=&limit=10', user => $_[0])->{json}{items} } ]
}
is_deeply(normalized('carol'), [ '-', '-', '-' ], 'imported CSV rows: no normalized merchant');
($rc, undef, $err) = admin('clean-merchants', '--db', $db);
is($rc, 2, 'clean-merchants without --user: exit 2');
($rc, undef, $err) = admin('clean-merchants', '--db', $db, '--user', 'nobody');
is($rc, 1, 'clean-merchants for an unknown user: exit 1');
($rc, $out, $err) = admin('clean-merchants', '--db', $db, '--user', 'carol', '--json');
is($rc, 0, 'clean-merchants names carol\'s rows') or diag($err);
my $run = eval { JSON::PP->new->decode($out) } // {};
is($run->{transactions}, 3, 'all three of them, as one run');
is($run->{rule_name}, 'Merchant cleaner', 'recorded as a run');
is_deeply(normalized('carol'), [ 'Cafe Nero', 'Salary Acme', 'Woolworths' ],
          'each with the merchant its text names') or diag(explain(normalized('carol')));
($rc, $out) = admin('clean-merchants', '--db', $db, '--user', 'carol');
like($out, qr/no transaction without a merchant: no run/, 'a second run finds nothing');
is($rig->request('DELETE', "/api/rules/apply/$run->{run_id}", user => 'carol')->{status}, 200,
   'the run reverts through the rules API');
is_deeply(normalized('carol'), [ '-', '-', '-' ], 'and the normalized merchants are gone again');

# A bigger ledger for carol, so the backup below takes several steps.
{
    open my $fh, '>', "$dir/big.csv" or die;
    print $fh "Date,Description,Amount\n";
    printf $fh "2025-%02d-%02d,SHOP NUMBER %d,-%d.%02d\n", 1 + $_ % 12, 1 + $_ % 28, $_, 1 + $_ % 97, $_ % 100
        for 1 .. 2000;
    close $fh;
}
($rc, $out) = admin('import', '--db', $db, '--user', 'carol', "$dir/big.csv");
like($out, qr/imported 2000 rows/, 'carol imports 2,000 rows');

# ---- sharing, for check and merge-users -------------------------------------------
participant_ok($rig, @$_)
    for [dave => 'bob'], [bob => 'dave'], [alice => 'bob'], [alice => 'dave'], [dave => 'carol'];
my $dinner = create('dave', description => 'Dinner', amount => 100, category => 'dining',
                    splits => [{ participant_id => $uid{bob}, share_percent => 40 }]);
my $taxi = create('bob', description => 'Taxi', amount => 30,
                  splits => [{ participant_id => $uid{dave}, share_percent => 50 }]);
my $party = create('alice', description => 'Party', amount => 90,
                   splits => [{ participant_id => $uid{bob}, share_percent => 30 },
                              { participant_id => $uid{dave}, share_percent => 30 }]);
my $lunch = create('dave', description => 'Lunch with carol', amount => 20,
                   splits => [{ participant_id => $uid{carol}, share_percent => 50 }]);
my $bob_food = $rig->post('/api/tags', { name => 'Food' }, user => 'bob')->{json}{id};
my $dave_food = $rig->post('/api/tags', { name => 'food' }, user => 'dave')->{json}{id};
# The same name beyond ASCII case (tag names compare as ledger_fold does):
# bob's "ete" and dave's "ETE", both with acute accents.
my $tag_raw = sub {
    $rig->request('POST', '/api/tags', user => $_[0], type => 'application/json', body => "{\"name\":\"$_[1]\"}");
};
my $bob_ete = $tag_raw->('bob', '\u00e9t\u00e9')->{json}{id};
ok($bob_ete && $tag_raw->('dave', '\u00c9T\u00c9')->{status} == 201, "bob's tag ete and dave's ETE, accented");
is($rig->post("/api/transactions/$dinner/tags", { tag_id => $dave_food }, user => 'dave')->{status},
   200, 'dave tags his dinner with his food tag');
is($rig->put('/api/budgets/groceries', { amount => 300 }, user => 'bob')->{status}, 200, 'bob budgets 300');
is($rig->put('/api/budgets/groceries', { amount => 250 }, user => 'dave')->{status}, 200, 'dave budgets 250');
is($rig->put('/api/budgets/travel', { amount => 80 }, user => 'dave')->{status}, 200, 'and travel 80');
# Rules: one of alice's splits with dave, one of dave's tags with his food
# tag (both rewritten by the merge), and one of dave's that splits with bob
# (after the merge it would split with its own owner: a conflict).
sub rule {
    my ($user, $name, @actions) = @_;
    my $res = $rig->post('/api/rules', { name => $name, actions => \@actions,
        conditions => [ { field => 'description', operator => 'contains', value => $name } ] },
        user => $user);
    is($res->{status}, 201, "$user creates rule $name") or diag($res->{content});
    return $res->{json}{id};
}
my $alice_rule = rule('alice', 'Party', { type => 'apply_split',
                                          shares => [{ participant_id => $uid{dave}, share_percent => 50 }] });
my $dave_rule = rule('dave', 'Dinner', { type => 'add_tag', tag_id => $dave_food });
my $dave_split_rule = rule('dave', 'Taxi', { type => 'apply_split',
                                             shares => [{ participant_id => $uid{bob}, share_percent => 40 }] });
my $bob_gift_rule = rule('bob', 'Gift', { type => 'apply_split',
                                         shares => [{ participant_id => $uid{dave}, share_percent => 100 }] });
# A run of dave's that changed his dinner (split with bob): its saved
# snapshot names the split, which the merge rewrites.
my $dave_cat_rule = rule('dave', 'Dinner', { type => 'set_category', category => 'restaurants' });
my $dave_run = $rig->post("/api/rules/apply/$dave_cat_rule", {}, user => 'dave');
is($dave_run->{json}{transactions}, 1, "dave's run recategorises his dinner") or diag($dave_run->{content});
my $pay = $rig->post('/api/payments', { from_participant_id => $uid{dave}, to_participant_id => $uid{bob},
                                        date => '2026-03-11', amount => 10 }, user => 'dave');
is($pay->{status}, 201, 'dave pays bob 10') or diag($pay->{content});

# ---- backup while the service writes ----------------------------------------------
($rc, $out) = admin('check', '--db', $db);
is($rc, 0, 'check: the served database is consistent') or diag($out);
like($out, qr/^ok: \d+ checks, no problems$/m, 'saying so');

my $stop = "$dir/stop-writing";
my $tally = "$dir/writes";
my $writer = fork // die;
if ($writer == 0) {
    my ($ok, $bad) = (0, 0);
    until (-e $stop) {
        my $r = $rig->post('/api/transactions', { date => '2026-04-01', amount => 1,
                                                  description => "during backup $ok" }, user => 'erin');
        $r->{status} == 201 ? $ok++ : $bad++;
        # Renamed into place: a read between write_file's truncate and its
        # write found the tally empty (once, under ASan on a loaded machine).
        Rig::write_file("$tally.new", "$ok $bad\n");
        rename "$tally.new", $tally or die "$tally: $!";
    }
    POSIX::_exit(0);    # not END: that would stop the rig's processes
}
Rig::wait_until('writes under way', 30, sub { ((Rig::slurp($tally) =~ /^(\d+)/)[0] // 0) >= 3 });
my ($written_before) = Rig::slurp($tally) =~ /^(\d+)/;
($rc, $out, $err) = admin('backup', '--db', $db, '--to', "$dir/backup.db");
my ($written_after) = Rig::slurp($tally) =~ /^(\d+)/;
# A small database copies faster than one write (each is fsynced), so the
# writer may not have finished another by now: the point is that it still
# can, which a backup holding the write lock would prevent.
Rig::wait_until('writes after the backup', 30,
                sub { ((Rig::slurp($tally) =~ /^(\d+)/)[0] // 0) > $written_before + 2 });
($written_after) = Rig::slurp($tally) =~ /^(\d+)/;
Rig::write_file($stop, '');
waitpid($writer, 0);
my ($ok, $bad) = split ' ', Rig::slurp($tally);
is($rc, 0, 'backup while ledger-fcgi serves writes') or diag($err);
like($out, qr/backed up to \Q$dir\E\/backup\.db \(\d+ bytes, integrity ok\)/, 'verified');
cmp_ok($written_after, '>', $written_before + 2, 'the service kept writing through the backup');
is($bad, 0, 'and no write failed');
is(scalar(() = glob("$dir/backup.db.tmp-*")), 0, 'no temporary file left');
is((stat "$dir/backup.db")[2] & 0777, 0600, 'the copy is readable by its owner only');
($rc, $out) = admin('check', '--db', "$dir/backup.db");
is($rc, 0, 'the backup passes check') or diag($out);
my $copied = `sqlite3 $dir/backup.db "SELECT COUNT(*) FROM transactions WHERE description LIKE 'during backup%'"`;
chomp $copied;
cmp_ok($copied, '>=', $written_before, 'the backup holds what was written before it began');
cmp_ok($copied, '<=', $ok, 'and nothing that was never written');
($rc, undef, $err) = admin('backup', '--db', "$dir/none.db", '--to', "$dir/b2.db");
is($rc, 1, 'a missing database: exit 1');
ok(!-e "$dir/none.db" && !-e "$dir/b2.db", 'creating neither file');
($rc) = admin('backup', '--db', $db, '--to', $db);
is($rc, 2, 'a backup over the database itself is refused');
# Nor over the files SQLite keeps beside it, however spelt: a copy over
# the live write-ahead log made every new connection read the database
# as malformed.
{
    (my $base = $db) =~ s{.*/}{};
    (my $in = $db) =~ s{/[^/]*$}{};
    for my $to ("$db-wal", "$db-shm", "$db-journal", "$in/./$base-wal") {
        my $before = -e $to ? -s $to : undef;
        ($rc, undef, $err) = admin('backup', '--db', $db, '--to', $to);
        is($rc, 2, "a backup over $to is refused");
        like($err, qr/-wal, -shm or -journal/, 'saying why');
        is(-e $to ? -s $to : undef, $before, 'and the file is as it was');
    }
    # Through a link: SQLite follows a symbolic link to the file, whose
    # log is the one to keep; a hard link is the same file too.
    symlink $db, "$dir/via-symlink.db" or die;
    link $db, "$dir/via-hardlink.db" or die;
    for my $via ("$dir/via-symlink.db", "$dir/via-hardlink.db") {
        my $before = -e "$db-wal" ? -s "$db-wal" : undef;
        ($rc, undef, $err) = admin('backup', '--db', $via, '--to', "$db-wal");
        is($rc, 2, "a backup of $via over the database's -wal is refused");
        is(-e "$db-wal" ? -s "$db-wal" : undef, $before, 'and the log is as it was');
    }
    unlink "$dir/via-symlink.db", "$dir/via-hardlink.db";
    ($rc, $out) = admin('check', '--db', $db);
    is($rc, 0, 'the live database still passes check') or diag($out);
}

# ---- check finds damage ---------------------------------------------------------------
# A page of the file overwritten: integrity_check names it, and the report
# (text and JSON) says so rather than only "malformed" (it threw the
# report away on the file check is for).
{
    File::Copy::copy("$dir/backup.db", "$dir/torn.db") or die;
    my ($root) = `sqlite3 $dir/torn.db "SELECT rootpage FROM sqlite_master WHERE name = 'transactions'"` =~ /(\d+)/;
    open my $fh, '+<', "$dir/torn.db" or die;
    binmode $fh;
    seek $fh, ($root - 1) * 4096 + 100, 0 or die;
    print $fh "\xff" x 400;
    close $fh or die;
    ($rc, $out) = admin('check', '--db', "$dir/torn.db");
    is($rc, 1, 'check: a torn page fails');
    like($out, qr/^integrity_check: /m, 'integrity_check is named');
    like($out, qr/^\d+ problems? found$/m, 'and a count is printed');
    ($rc, $out) = admin('check', '--db', "$dir/torn.db", '--json');
    my $torn = eval { decode_json($out) } // {};
    is($torn->{ok}, JSON::PP::false, '--json: ok false');
    cmp_ok($torn->{checks}{integrity_check} // 0, '>', 0, 'with the integrity_check problems');
    is_deeply([sort keys %{ $torn->{checks} // {} }], ['integrity_check'],
              'and no check after it (what a damaged file reads as is no drift)');
    # An index page torn: integrity_check names rows missing from it and
    # ends without an error; still no check runs after it.
    File::Copy::copy("$dir/backup.db", "$dir/torn2.db") or die;
    my ($leaf) = `sqlite3 $dir/torn2.db "SELECT pageno FROM dbstat WHERE name = 'transactions_owner_date' AND pagetype = 'leaf' LIMIT 1"` =~ /(\d+)/;
    open $fh, '+<', "$dir/torn2.db" or die;
    binmode $fh;
    seek $fh, ($leaf - 1) * 4096 + 4000, 0 or die;  # among its cells, at the page's end
    print $fh "\xff" x 8;
    close $fh or die;
    ($rc, $out) = admin('check', '--db', "$dir/torn2.db", '--json');
    $torn = eval { decode_json($out) } // {};
    is($rc, 1, 'check: a torn index page fails');
    cmp_ok($torn->{checks}{integrity_check} // 0, '>', 0, 'named by integrity_check');
    is_deeply([sort keys %{ $torn->{checks} // {} }], ['integrity_check'], 'and no check after it');
}
system('sqlite3', "$dir/backup.db",
       "UPDATE spend_monthly SET cents = cents + 100 WHERE owner_id = $uid{carol} AND month = '2025-03';"
       . " DELETE FROM shared_rows WHERE transaction_id = $taxi;"
       . " UPDATE visible_count SET n = n + 1 WHERE viewer_id = $uid{alice}") == 0 or die;
($rc, $out) = admin('check', '--db', "$dir/backup.db");
is($rc, 1, 'check: a damaged copy fails');
like($out, qr/^spend_monthly: owner $uid{carol}, 2025-03, \S+: kept \d+, recount \d+$/m, 'spend_monthly drift named');
like($out, qr/^shared_rows: transaction $taxi, viewer $uid{dave}: missing$/m, 'a missing shared row named');
like($out, qr/^visible_count: viewer $uid{alice}, /m, 'visible_count drift named');
like($out, qr/^\d+ problems found$/m, 'and counted');
($rc, $out) = admin('check', '--db', "$dir/backup.db", '--json');
my $report = eval { decode_json($out) } // {};
is($report->{ok}, JSON::PP::false, '--json: ok false');
is($report->{checks}{shared_rows}, 1, 'one shared_rows problem');
is($report->{checks}{integrity_check}, 0, 'and the file itself is sound');
is($report->{checks}{split_owner_alone}, 0, 'no split names its owner alone');
is($report->{checks}{has_split}, 0, 'every row flagged split has a split, and only those');
# The flag of the index of split rows (schema 0027), wrong both ways.
File::Copy::copy("$dir/backup.db", "$dir/flag.db") or die;
system('sqlite3', "$dir/flag.db",
       "UPDATE transactions SET has_split = 0 WHERE id = $party;"
       . " UPDATE transactions SET has_split = 1"
       . "  WHERE id = (SELECT MIN(id) FROM transactions WHERE id NOT IN (SELECT transaction_id FROM splits))")
    == 0 or die;
($rc, $out) = admin('check', '--db', "$dir/flag.db");
is($rc, 1, 'check: a wrong has_split is a problem');
like($out, qr/^has_split: transaction $party: has_split 0, with \d+ splits$/m, 'a split row not flagged, named');
like($out, qr/^has_split: transaction \d+: has_split 1, with 0 splits$/m, 'and a row flagged without a split');
# A split left naming its owner alone (what the API now refuses, and an
# older merge left) is named.
File::Copy::copy("$dir/backup.db", "$dir/lone.db") or die;
system('sqlite3', "$dir/lone.db",
       "DELETE FROM splits WHERE transaction_id = $party AND participant_id <> $uid{alice};"
       . " UPDATE splits SET share_percent = 10000 WHERE transaction_id = $party") == 0 or die;
($rc, $out) = admin('check', '--db', "$dir/lone.db");
is($rc, 1, 'check: a split of its owner alone is a problem');
like($out, qr/^split_owner_alone: transaction $party: split with its owner $uid{alice} alone$/m, 'named');

# ---- export: the route's bytes, from the command line -------------------------------------
for my $format (qw(csv json journal)) {
    my $web = $rig->get("/api/export?format=$format", user => 'dave');
    ($rc, $out, $err) = admin('export', '--db', $db, '--user', 'dave', '--format', $format);
    is($rc, 0, "export --format $format") or diag($err);
    ok($out eq $web->{content}, "$format: the bytes GET /api/export gives dave (" . length($out) . ')');
    like($err, qr/^export: 100% rows$/m, 'progress on stderr, a line a quarter when it is no terminal');
}
($rc, $out, $err) = admin('export', '--db', $db, '--user', 'dave@example.org', '--format', 'journal',
                          '--output', "$dir/dave.journal");
is($rc, 0, 'export --output') or diag($err);
is(Rig::slurp("$dir/dave.journal"), $rig->get('/api/export?format=journal', user => 'dave')->{content},
   'the file holds the journal');
is($out, '', 'nothing on stdout');
($rc, undef, $err) = admin('export', '--db', $db, '--user', 'nobody', '--output', "$dir/nobody.json");
is($rc, 1, 'export for nobody: exit 1');
ok(!-e "$dir/nobody.json", 'and no file');
($rc, undef, $err) = admin('export', '--db', $db, '--user', 'dave', '--output', "$dir/no/such/dir.json");
is($rc, 1, 'export into a directory that is not there: exit 1');
is_deeply([glob("$dir/*.tmp*")], [], 'no temporary file left behind');

# ---- users ------------------------------------------------------------------------------
($rc, $out) = admin('users', '--db', $db);
is($rc, 0, 'users');
like($out, qr/^\s+$uid{carol}\s+carol\s+carol\@example\.org\s+\S+\s+2003\s/m, 'carol with her 2,003 rows');
($rc, $out) = admin('users', '--db', $db, '--json');
my %users = map { $_->{subject} // '' => $_ } @{ (eval { decode_json($out) } // {})->{items} // [] };
is($users{dave}{budgets}, 2, '--json: dave has two budgets');
is($users{dave}{shared_with}, 2, 'and two rows shared with him');
{
    Rig::write_file("$dir/ledger.conf", "db = $db\nhome_currency = AUD\n");
    ($rc, $out) = admin('users', '--config', "$dir/ledger.conf");
    is($rc, 0, '--config reads db from the service\'s file');
    like($out, qr/\bdave\b/, 'the same users');
    # A file the tool cannot use is a failed run (1), not a wrong command
    # line (2); a directory is no configuration (it read as an empty file,
    # and ./ledger.db was made and used).
    Rig::write_file("$dir/bad.conf", "db = $db\nthis line has no equals sign\n");
    ($rc, undef, $err) = admin('users', '--config', "$dir/bad.conf");
    is($rc, 1, 'a malformed --config file: exit 1');
    like($err, qr/bad\.conf:2: expected key = value/, 'naming its line');
    unlike($err, qr/usage:/, 'with no usage text');
    my $cwd = Cwd::getcwd();
    mkdir "$dir/emptydir";
    chdir "$dir/emptydir" or die;
    ($rc, undef, $err) = admin('migrate', '--config', "$dir/");
    chdir $cwd or die;
    is($rc, 1, 'a directory as --config: exit 1');
    like($err, qr/Is a directory/, 'saying so');
    ok(!-e "$dir/emptydir/ledger.db", 'and no ledger.db made where it ran');
    # Nor a FIFO (it held the open for ever) or a device (/dev/null read
    # as an empty file: ./ledger.db again).
    POSIX::mkfifo("$dir/fifo.conf", 0600) or die "mkfifo: $!";
    for my $conf ("$dir/fifo.conf", '/dev/null') {
        chdir "$dir/emptydir" or die;
        alarm 30;  # a hang is a failure, not a stuck suite
        ($rc, undef, $err) = admin('migrate', '--config', $conf);
        alarm 0;
        chdir $cwd or die;
        is($rc, 1, "$conf as --config: exit 1");
        like($err, qr/not a regular file/, 'saying so');
        ok(!-e "$dir/emptydir/ledger.db", 'and no ledger.db made where it ran');
    }
}

# ---- merge-users ------------------------------------------------------------------------
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'dave', '--into', 'bob');
is($rc, 1, 'merge-users refuses a conflict');
like($err, qr/both have a budget for groceries \(250\.00 and 300\.00\)/, 'two budgets for groceries named');
like($err, qr/payment \d+ of 2026-03-11 is between the two/, 'the payment between them named');
like($err, qr/\d conflicts: .*; rule $dave_split_rule would split with its own owner short of 100%/,
     "dave's rule splitting with bob named");
like($err, qr/nothing changed/, 'saying nothing changed');
is($rig->get('/api/me', user => 'dave')->{json}{id}, $uid{dave}, 'dave is still there');
is($rig->get('/api/budgets', user => 'dave')->{status}, 200, 'with his budgets');
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'bob', '--into', 'bob@example.org');
is($rc, 1, 'a user into itself is refused');
like($err, qr/cannot be merged into itself/, 'saying so');
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'nobody', '--into', 'bob');
is($rc, 1, 'an unknown user is refused');
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'id:abc', '--into', 'bob');
is($rc, 1, 'id: without a number is refused');
is($err, "ledger-admin: id:abc: 'id:' must be followed by a user id, a number above 0\n",
   'saying so once, naming the argument once');

# The people decide: the same budget, and the payment was a mistake.
$rig->put('/api/budgets/groceries', { amount => 300 }, user => 'dave');
is($rig->del("/api/payments/$pay->{json}{id}", user => 'dave')->{status}, 204, 'dave deletes the payment');
is($rig->del("/api/rules/$dave_split_rule", user => 'dave')->{status}, 204, 'dave deletes that rule');
# bob's rule giving rows wholly to dave would split with bob alone: a split
# with nobody, which applying it refuses (the merge left such a rule).
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'dave', '--into', 'bob');
is($rc, 1, 'merge-users refuses the rule that would split with its owner alone');
like($err, qr/1 conflict: rule $bob_gift_rule would split with its own owner alone/, 'naming it');
is($rig->del("/api/rules/$bob_gift_rule", user => 'bob')->{status}, 204, 'bob deletes that rule');
# The other way round: dave's rule giving rows wholly to bob becomes bob's,
# splitting with bob alone.
my $dave_gift_rule = rule('dave', 'Present', { type => 'apply_split',
                                               shares => [{ participant_id => $uid{bob}, share_percent => 100 }] });
($rc, undef, $err) = admin('merge-users', '--db', $db, '--from', 'dave', '--into', 'bob');
is($rc, 1, "merge-users refuses the merged user's rule that would split with its new owner alone");
like($err, qr/1 conflict: rule $dave_gift_rule would split with its own owner alone/, 'naming it');
is($rig->del("/api/rules/$dave_gift_rule", user => 'dave')->{status}, 204, 'dave deletes that rule');
my $bob_before = total('bob');
($rc, $out, $err) = admin('merge-users', '--db', $db, '--from', 'dave', '--into', 'bob', '--dry-run');
is($rc, 0, '--dry-run') or diag($err);
like($out, qr/^would merge user $uid{dave} into user $uid{bob}: transactions 2,/, 'says what would move');
is(total('bob'), $bob_before, 'and moves nothing');
($rc, $out, $err) = admin('merge-users', '--db', $db, '--from', "id:$uid{dave}", '--into', 'bob');
is($rc, 0, 'merge-users merges') or diag($err);
like($out, qr/^merged user $uid{dave} into user $uid{bob}: transactions 2, statements 0, splits \d+, splits_combined 3, splits_ended \d+,/,
     'reporting what moved');
($rc, $out) = admin('users', '--db', $db, '--json');
%users = map { $_->{subject} // '' => $_ } @{ (eval { decode_json($out) } // {})->{items} // [] };
ok(!exists $users{dave}, 'dave is gone');
is($users{bob}{budgets}, 2, 'bob has groceries once and travel');
($rc, $out) = admin('check', '--db', $db);
is($rc, 0, 'the merged database passes check') or diag($out);

my %bob_rows = map { $_->{description} => $_ } @{ $rig->get('/api/transactions?exclude_categories=&limit=100', user => 'bob')->{json}{items} };
ok($bob_rows{Dinner} && $bob_rows{'Lunch with carol'}, "bob owns dave's rows");
is($bob_rows{Dinner}{owner_id}, $uid{bob}, 'as their owner');
is_deeply([map { $_->{name} } @{ $bob_rows{Dinner}{tags} }], ['Food'], "dave's food tag folded into bob's Food");
my $rule_of = sub { $rig->get("/api/rules/$_[1]", user => $_[0])->{json}{actions}[0] };
is($rule_of->('alice', $alice_rule)->{shares}[0]{participant_id}, $uid{bob}, "alice's rule now splits with bob");
is($rule_of->('bob', $dave_rule)->{tag_id}, $bob_food, "dave's rule is bob's, adding bob's Food tag");
my $tags = $rig->get('/api/tags', user => 'bob')->{json}{items};
is(scalar(grep { lc $_->{name} eq 'food' } @$tags), 1, 'bob has one food tag');
is_deeply([map { $_->{id} } grep { $_->{name} eq "\xc3\xa9t\xc3\xa9" || $_->{name} eq "\xc3\x89T\xc3\x89" } @$tags],
          [$bob_ete], "and one accented ete tag, his own (dave's ETE folded into it)");
my %split = map { $_->{participant_id} => $_->{share_percent} } @{ $rig->get("/api/transactions/$party/splits", user => 'alice')->{json}{items} };
is_deeply({ map { $_ => sprintf('%.2f', $split{$_}) } keys %split },
          { $uid{alice} => '40.00', $uid{bob} => '60.00' }, "alice's party: bob's and dave's shares added up");
is_deeply($rig->get("/api/transactions/$dinner/splits", user => 'bob')->{json}{items}, [],
          'a split between the two is now all his: no split at all');
ok(!grep({ $_->{id} == $dinner } @{ $rig->get('/api/transactions?has_split=split&exclude_categories=&limit=500',
                                               user => 'bob')->{json}{items} }),
   'so it is not listed as split');
# Reverting dave's run (bob's now) puts back the dinner as the merge left
# it: unsplit, not split with bob alone.
is($rig->del("/api/rules/apply/$dave_run->{json}{id}", user => 'bob')->{status}, 200, "dave's old run reverted");
is($rig->get("/api/transactions/$dinner", user => 'bob')->{json}{category}, 'dining', 'the dinner is dining again');
is_deeply($rig->get("/api/transactions/$dinner/splits", user => 'bob')->{json}{items}, [], 'and still unsplit');
is(sprintf('%.2f', $rig->get("/api/participants/$uid{carol}/balance", user => 'bob')->{json}{net}), '10.00',
   'carol owes bob what she owed dave');
my $p = $rig->get('/api/participants', user => 'carol')->{json}{items};
ok((grep { $_->{id} == $uid{bob} } @$p), 'carol shares with bob now');

# A placeholder (added by email, never signed in) and erin's own account
# are one person: the merged account is one erin can still sign in to.
my $zoe = $rig->post('/api/participants', { email => 'zoe@example.org' }, user => 'alice')->{json}{id};
my $erin = $rig->get('/api/me', user => 'erin')->{json}{id};
($rc, $out, $err) = admin('merge-users', '--db', $db, '--from', 'erin', '--into', 'zoe@example.org');
is($rc, 0, 'erin merged into a placeholder') or diag($err);
like($out, qr/user $zoe had no identity: they now sign in with user $erin's/, 'saying who signs in how');
($rc, $out) = admin('users', '--db', $db, '--json');
my ($merged) = grep { $_->{id} == $zoe } @{ (eval { decode_json($out) } // {})->{items} // [] };
is_deeply([@{ $merged // {} }{qw(subject email)}], ['erin', 'zoe@example.org'],
          "the placeholder took erin's identity and kept its own email");
is($rig->get('/api/me', user => 'erin')->{json}{id}, $zoe, 'erin signs in to the merged account');
cmp_ok(total('erin'), '>=', $ok, 'with the rows erin wrote during the backup');
($rc, $out) = admin('check', '--db', $db);
is($rc, 0, 'and the database still passes check') or diag($out);

# ---- the man pages -----------------------------------------------------------------------
{
    my $fcgi_page = Rig::slurp("$src/fcgi/ledger-fcgi.8");
    my $admin_page = Rig::slurp("$src/fcgi/ledger-admin.1");
    s/\\-/-/g for $fcgi_page, $admin_page;    # roff's \- is a plain hyphen in a flag
    my $help = `@{[ Rig::fcgi_bin() ]} --help`;
    my %flags = map { $_ => 1 } $help =~ /(--[a-z][a-z-]+)/g;
    my $main = Rig::slurp("$src/fcgi/main.c");
    $flags{$_} = 1 for $main =~ /"(--[a-z][a-z-]+)"/g;
    ok(keys %flags >= 10, 'ledger-fcgi has its flags in --help and main.c');
    is_deeply([grep { $fcgi_page !~ /\Q$_\E\b/ } sort keys %flags], [], 'ledger-fcgi.8 documents every flag');
    my @keys = Rig::slurp("$src/fcgi/conf.c") =~ /strcmp\(key, "(\w+)"\)/g;
    ok(@keys >= 10, 'the configuration keys are read from conf.c');
    is_deeply([grep { $fcgi_page !~ /^\.BR? (?:.*\s)?\Q$_\E\b/m } @keys], [],
              'and ledger-fcgi.8 documents every key, in bold');
    my @missing;
    for my $cmd (qw(migrate backup check import users merge-users export clean-merchants)) {
        my (undef, $usage) = admin($cmd, '--help');
        like($admin_page, qr/^\.SS \Q$cmd\E$/m, "ledger-admin.1 has a section for $cmd");
        push @missing, grep { $admin_page !~ /\Q$_\E\b/ } $usage =~ /(--[a-z][a-z-]+)/g;
    }
    is_deeply(\@missing, [], 'ledger-admin.1 documents every option of every subcommand');
  SKIP: {
        skip 'groff is not installed', 2 unless Rig::find_program('groff');
        for my $page ("$src/fcgi/ledger-admin.1", "$src/fcgi/ledger-fcgi.8") {
            my $warnings = `groff -man -Tutf8 -ww -z $page 2>&1`;
            is($warnings, '', "groff has no warning for $page");
        }
    }
}

done_testing();
