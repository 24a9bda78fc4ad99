#!/usr/bin/perl
# The corpus of real OFX/QFX files (t/data/bank/ofx, see t/data/bank/README):
# each imported through POST /api/statements/import by a user of its own, as
# a user would.  A file expected to import stores every row of its sidecar
# (date, signed amount in cents, name, FITID), the closing balance and a
# period from the file's own dates, and a second import adds nothing.  A
# file expected to be refused is a 4xx naming the problem (the bank's own
# STATUS code and message, what to do with an investment statement) and
# writes nothing.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use Encode qw(decode_utf8);
use Rig;
use CommonChecks qw(same_rows);

my $dir = Rig::srcdir() . '/t/data/bank/ofx';
opendir my $dh, $dir or die "$dir: $!";
my @files = sort grep { /\.(ofx|qfx)\z/i } readdir $dh;
closedir $dh;
# A user of its own for each file, known to the web server.
push @Rig::USERS, map { "bank$_" } 1 .. @files;
my $rig = Rig->new;
cmp_ok(scalar @files, '>=', 40, 'the corpus holds at least 40 files');

# Decimal text as written (sign, digits, '.' or ',' radix) to cents, a
# fraction past the cent rounded half away from zero.
sub cents {
    my ($text) = @_;
    my ($sign, $int, $frac) = $text =~ /\A\s*([+-]?)(\d*)(?:[.,](\d*))?\s*\z/
        or die "not an amount: $text";
    $frac //= '';
    my $c = ($int || 0) * 100 + substr($frac . '00', 0, 2);
    $c++ if length $frac > 2 && substr($frac, 2, 1) >= 5;
    return $sign eq '-' ? -$c : $c;
}

sub user_id {
    my ($user) = @_;
    return $rig->sql("SELECT id FROM users WHERE subject = '$user'") || 0;
}
sub counts {
    my ($uid) = @_;
    return $rig->sql("SELECT (SELECT COUNT(*) FROM statements WHERE owner_id = $uid) || '/' ||"
                     . " (SELECT COUNT(*) FROM transactions WHERE owner_id = $uid)");
}

# What each file's answer must say it dropped or read other than as
# written (every other file: nothing).
my %warns = (
    'ofxparse-v102-empty-tags.ofx' =>
        [qr/\Aline 23: <CURDEF> is empty: the statement is taken to be in the home currency\z/],
    'ofxparser-emptyDateTime.ofx' =>
        [qr/\Aline 28: <STMTRS> has no <ACCTID>: its rows are kept under an account named by the bank/],
    'ofxrb-v100.ofx' => [qr{\Aline 59: <DTASOF> '23/04/2025' is not a date: the balance is kept}],
    'ofxtools-br_nubank_cc.ofx' =>
        [qr/\Aline 88: <BANKTRANLIST> \(line 37\) is not closed: it ends before <LEDGERBAL>\z/],
    'reds-ally-transactions.qfx' => [qr/\Aline 65: <STMTTRN> outside <BANKTRANLIST>/],
    'reds-capitalone-360Checking.qfx' =>
        [qr/\Aline 70: <DTASOF> '20230310048208.39' is not a date: the balance is kept/],
);

my $today = do { my @t = gmtime; sprintf '%04d-%02d-%02d', $t[5] + 1900, $t[4] + 1, $t[3] };
my ($n, $imported, $refused) = (0, 0, 0);
for my $file (@files) {
    my $expect = decode_json(Rig::slurp("$dir/$file.expect.json"));
    my $user = 'bank' . ++$n;
    my $body = Rig::slurp("$dir/$file");
    my $res = $rig->request('POST', '/api/statements/import', user => $user, body => $body,
                            type => 'application/x-ofx');
    my $uid = user_id($user);

    if ($expect->{expect} eq 'refuse') {
        my $msg = ref $res->{json} eq 'HASH' && ref $res->{json}{error} eq 'HASH'
                  ? $res->{json}{error}{message} // '' : '';
        ok($res->{status} >= 400 && $res->{status} < 500 && length $msg, "$file: refused with a 4xx")
            or diag("got $res->{status}: $res->{content}");
        for my $st (@{ $expect->{status_errors} // [] }) {
            like($msg, qr/\Q$st->{code}\E/, "$file: the message names the bank's code $st->{code}");
            like($msg, qr/\Q$st->{message}\E/, "$file: and the bank's message");
        }
        if ($expect->{investment} && !@{ $expect->{status_errors} // [] }) {
            like($msg, qr/investment/i, "$file: the message says it is an investment statement");
            like($msg, qr/export/i, "$file: and what to do");
        }
        like($msg, qr/\Aline \d+: /, "$file: the message names the line");
        is($uid ? counts($uid) : '0/0', '0/0', "$file: nothing written");
        $refused++ if $res->{status} >= 400 && $res->{status} < 500;
        next;
    }

    is($res->{status}, 201, "$file: imports") or do { diag($res->{content}); next };
    my $json = $res->{json};
    is(ref $json->{warnings}, 'ARRAY', "$file: the answer lists its warnings");
    my @warnings = @{ $warns{$file} // [] };
    is(scalar @{ $json->{warnings} // [] }, scalar @warnings, "$file: as many warnings as it should")
        or diag(join "\n", @{ $json->{warnings} // [] });
    for my $i (0 .. $#warnings) {
        like($json->{warnings}[$i] // '', $warnings[$i], "$file: warning " . ($i + 1));
    }
    my @want_st = @{ $expect->{statements} };
    my @got_st = @{ $json->{statements} };
    is(scalar @got_st, scalar @want_st, "$file: one statement per account");
    my $nrows = 0;
    $nrows += @{ $_->{rows} } for @want_st;
    is($json->{imported}, $nrows, "$file: every row imported");

    # Every row, as stored: date, signed amount in cents, name, FITID.
    my (@want, @got, %fitids);
    for my $s (@want_st) {
        $fitids{$_->{fitid}}++ for grep { length($_->{fitid} // '') } @{ $s->{rows} };
        push @want, map { join '|', $_->{date}, cents($_->{amount}), $_->{name} } @{ $s->{rows} };
    }
    # A row with neither NAME nor MEMO is described by its TRNTYPE: no name.
    for my $line (split /\n/, decode_utf8($rig->sql(
            "SELECT date || '|' || (CASE WHEN fitid_out THEN -amount ELSE amount END) || '|' ||"
            . " COALESCE(merchant, CASE WHEN description IN ('CREDIT', 'DEBIT',"
            . " 'INT', 'DIV', 'FEE', 'SRVCHG', 'DEP', 'ATM', 'POS', 'XFER', 'CHECK', 'PAYMENT', 'CASH',"
            . " 'DIRECTDEP', 'DIRECTDEBIT', 'REPEATPMT', 'HOLD', 'OTHER') THEN '' ELSE description END) FROM transactions WHERE owner_id = $uid"))) {
        push @got, $line;
    }
    same_rows(\@got, \@want, "$file: every row's date, signed amount and name");
    my %stored = map { $_ => 1 } split /\n/,
        decode_utf8 $rig->sql("SELECT fitid FROM transactions WHERE owner_id = $uid");
    my @lost = grep { $fitids{$_} == 1 && !$stored{$_} } sort keys %fitids;
    is_deeply(\@lost, [], "$file: each row keeps the bank's FITID");

    # The statements, in the file's order: closing balance and period.
    for my $i (0 .. $#want_st) {
        my ($w, $g) = ($want_st[$i], $got_st[$i] // {});
        my $name = "$file: statement " . ($i + 1);
        if (defined $w->{ledger_balance}) {
            my $bal = cents($w->{ledger_balance});
            $bal = -$bal if ($g->{statement_type} // '') =~ /\A(credit_card|loan)\z/;
            is(defined $g->{closing_balance} ? sprintf('%.0f', $g->{closing_balance} * 100) : 'none',
               $bal, "$name: the closing balance");
        } else {
            ok(!defined $g->{closing_balance}, "$name: no closing balance");
        }
        my @dates = sort map { $_->{date} } @{ $w->{rows} };
        my ($from, $to) = ($g->{period_start} // '', $g->{period_end} // '');
        ok($from =~ /\A\d{4}-\d\d-\d\d\z/ && $from le $to, "$name: a period");
        ok(!@dates || ($from le $dates[0] && $to ge $dates[-1]), "$name: the period holds its rows");
        isnt($to, $today, "$name: the period is the file's, not the clock's");
    }

    is($got_st[0]{account_name}, 'OTHER AUD', "$file: an account without ACCTID is named by type and currency")
        if $file eq 'ofxparser-emptyDateTime.ofx';

    # The same file again adds nothing.
    my $before = counts($uid);
    my $again = $rig->request('POST', '/api/statements/import', user => $user, body => $body,
                              type => 'application/x-ofx');
    is($again->{status}, 200, "$file: a second import answers 200");
    is($again->{json}{imported}, 0, "$file: and imports nothing");
    is(counts($uid), $before, "$file: and writes nothing");
    $imported++;
}
note("$imported files imported, $refused refused");

done_testing();
