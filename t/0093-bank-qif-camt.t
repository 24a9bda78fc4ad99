#!/usr/bin/perl
# The corpus of real QIF and CAMT.053 files (t/data/bank/qif, t/data/bank/camt,
# see t/data/bank/README): each imported through POST /api/statements/import
# by a user of its own.  A file expected to import stores every row of its
# sidecar (date, signed amount in cents, counterparty, remittance text, the
# bank's reference), the balances the file gives, exactly the warnings the
# sidecar lists, and a second import adds nothing.  A file expected to be
# refused is a 4xx naming the line and the problem, and writes nothing.
# Then the rules the corpus does not reach: QIF rows keyed by what they say
# and their place among rows saying the same, the day order of QIF dates,
# DOCTYPEs and entities refused, amounts finer than cents refused, pending
# entries left out, batches that do not add up kept whole.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use Encode qw(decode_utf8 encode_utf8);
use Rig;
use CommonChecks qw(same_rows);

my $base = Rig::srcdir() . '/t/data/bank';
my @files;
for my $kind (qw(qif camt)) {
    opendir my $dh, "$base/$kind" or die "$base/$kind: $!";
    push @files, map { "$kind/$_" } sort grep { /\.(qif|xml)\z/ } readdir $dh;
    closedir $dh;
}
my @extra = qw(twice accounts order_auto order_dmy order_mdy bad_order wrong_format bomb xxe precise kwd
               qif_precise othl pending batch cut);
push @Rig::USERS, (map { "bankq$_" } 1 .. @files), map { "bankx_$_" } @extra;
my $rig = Rig->new;
cmp_ok(scalar(grep { m{\Aqif/} } @files), '>=', 10, 'the corpus holds at least 10 QIF files');
cmp_ok(scalar(grep { m{\Acamt/} } @files), '>=', 15, 'and at least 15 CAMT files');

# Decimal text as written to cents (the sidecars hold no digit past the
# cent other than zeros).
sub cents {
    my ($text) = @_;
    my ($sign, $int, $frac) = $text =~ /\A([+-]?)(\d*)(?:\.(\d*))?\z/ or die "not an amount: $text";
    my $c = ($int || 0) * 100 + substr(($frac // '') . '00', 0, 2);
    return $sign eq '-' ? -$c : $c;
}
sub money { defined $_[0] ? sprintf('%.0f', $_[0] * 100) : 'none' }
sub user_id { $rig->sql("SELECT id FROM users WHERE subject = '$_[0]'") || 0 }
sub counts {
    my ($uid) = @_;
    return $rig->sql("SELECT (SELECT COUNT(*) FROM statements WHERE owner_id = $uid) || '/' ||"
                     . " (SELECT COUNT(*) FROM transactions WHERE owner_id = $uid)");
}
sub import_file {
    my ($user, $body, $type, $query) = @_;
    return $rig->request('POST', '/api/statements/import' . ($query // ''), user => $user,
                         body => $body, type => $type);
}
sub message {
    my ($res) = @_;
    return ref $res->{json} eq 'HASH' && ref $res->{json}{error} eq 'HASH'
           ? $res->{json}{error}{message} // '' : '';
}
sub slurp_file { Rig::slurp("$base/$_[0]") }

my ($n, $imported, $refused) = (0, 0, 0);
for my $file (@files) {
    my $expect = decode_json(Rig::slurp("$base/$file.expect.json"));
    my $user = 'bankq' . ++$n;
    my $body = slurp_file($file);
    # QIF by its media type every other file, else by its content.
    my $type = $file =~ /\.xml\z/ ? 'application/xml'
               : $n % 2 ? 'application/qif' : 'application/octet-stream';
    my $query = $expect->{date_order} && $expect->{date_order} ne 'mdy'
                ? "?date_order=$expect->{date_order}" : '';
    my $res = import_file($user, $body, $type, $query);
    my $uid = user_id($user);

    if ($expect->{expect} eq 'refuse') {
        my $msg = message($res);
        ok($res->{status} >= 400 && $res->{status} < 500, "$file: refused with a 4xx")
            or diag("got $res->{status}: $res->{content}");
        like($msg, qr/$expect->{message}/, "$file: the message names the line and the problem")
            or diag($msg);
        is($uid ? counts($uid) : '0/0', '0/0', "$file: nothing written");
        $refused++;
        next;
    }

    is($res->{status}, 201, "$file: imports") or do { diag($res->{content}); next };
    my $json = $res->{json};
    my @warnings = @{ $expect->{warnings} // [] };
    is(scalar @{ $json->{warnings} // [] }, scalar @warnings, "$file: as many warnings as values dropped")
        or diag(join "\n", @{ $json->{warnings} // [] });
    for my $i (0 .. $#warnings) {
        like($json->{warnings}[$i] // '', qr/$warnings[$i]/, "$file: warning " . ($i + 1));
    }
    my @want_st = @{ $expect->{statements} };
    my @got_st = @{ $json->{statements} };
    is(scalar @got_st, scalar @want_st, "$file: one statement per account");
    my $nrows = 0;
    $nrows += @{ $_->{rows} } for @want_st;
    is($json->{imported}, $nrows, "$file: every row imported");

    # Every row as stored: date, signed cents, counterparty; its text holds
    # the remittance text; the bank's reference is its key.
    my (@want, @got, %refs, @memos);
    for my $s (@want_st) {
        for my $r (@{ $s->{rows} }) {
            push @want, join '|', $r->{date}, cents($r->{amount}), $r->{name};
            $refs{$r->{fitid}}++ if length($r->{fitid} // '');
            push @memos, $r->{memo} if length($r->{memo} // '');
        }
    }
    @got = split /\n/, decode_utf8($rig->sql(
        "SELECT date || '|' || (CASE WHEN fitid_out THEN -amount ELSE amount END) || '|' ||"
        . " COALESCE(merchant, '') FROM transactions WHERE owner_id = $uid"));
    same_rows(\@got, \@want, "$file: every row's date, signed amount and counterparty");
    my $descriptions = decode_utf8($rig->sql("SELECT description FROM transactions WHERE owner_id = $uid"));
    my @lost = grep { index($descriptions, $_) < 0 } @memos;
    is_deeply(\@lost, [], "$file: every row's text is in its description");
    my %keys = map { $_ => 1 } split /\n/,
        decode_utf8($rig->sql("SELECT fitid FROM transactions WHERE owner_id = $uid"));
    is_deeply([grep { !$keys{$_} } sort keys %refs], [], "$file: each row keeps the bank's reference");

    for my $i (0 .. $#want_st) {
        my ($w, $g) = ($want_st[$i], $got_st[$i] // {});
        my $name = "$file: statement " . ($i + 1);
        my $close = $w->{closing_balance} // $w->{available_balance};
        is(money($g->{opening_balance}), defined $w->{opening_balance} ? cents($w->{opening_balance}) : 'none',
           "$name: the opening balance");
        is(money($g->{closing_balance}), defined $close ? cents($close) : 'none', "$name: the closing balance");
        if (defined $w->{opening_balance} && defined $close) {
            my $sum = 0;
            $sum += cents($_->{amount}) for @{ $w->{rows} };
            is($g->{balance_ok} ? 1 : 0, cents($w->{opening_balance}) + $sum == cents($close) ? 1 : 0,
               "$name: the balance assertion is the file's");
        } else {
            ok(!defined $g->{balance_ok}, "$name: no balance to assert");
        }
        my @dates = sort map { $_->{date} } @{ $w->{rows} };
        my ($from, $to) = ($g->{period_start} // '', $g->{period_end} // '');
        ok($from =~ /\A\d{4}-\d\d-\d\d\z/ && $from le $to, "$name: a period");
        ok(!@dates || ($from le $dates[0] && $to ge $dates[-1]), "$name: the period holds its rows");
    }

    my $before = counts($uid);
    my $again = import_file($user, $body, $type, $query);
    is($again->{status}, 200, "$file: a second import answers 200");
    is($again->{json}{imported}, 0, "$file: and imports nothing");
    is(counts($uid), $before, "$file: and writes nothing");
    $imported++;
}
note("$imported files imported, $refused refused");

# QIF rows have no ids: a row is known by what it says and its place among
# the rows saying the same, so a later file with one more such row adds it.
{
    my $body = slurp_file('qif/actual-e2e-test-no-account.qif');
    my $res = import_file('bankx_twice', $body, 'application/qif');
    is($res->{json}{imported}, 2, 'QIF: two rows');
    $res = import_file('bankx_twice', "$body\D07/16/24\nT-40.00\nPGrocery Store #21\n^\n",
                       'application/qif');
    is($res->{json}{imported}, 1, 'QIF: the same file with a second identical row adds that row');
    is($res->{json}{skipped_duplicates}, 2, 'QIF: and skips the two it has');
}

# !Account blocks: one statement per account the file names, a card's
# rows with a card's signs.
{
    my $body = "!Account\nNEveryday\nTBank\n^\n!Type:Bank\nD03/01/2024\nT-12.00\nPBakery\n^\n"
               . "!Account\nNVisa\nTCCard\n^\n!Type:CCard\nD03/02/2024\nT-30.00\nPCinema\n^\n"
               . "D03/20/2024\nT30.00\nPPayment\n^\n"
               . "!Account\nNEveryday\nTBank\n^\n!Type:Bank\nD03/21/2024\nT-30.00\nPVisa\n^\n";
    my $res = import_file('bankx_accounts', $body, 'application/qif');
    is($res->{status}, 201, 'QIF: a file of two accounts imports');
    is(join(',', map { "$_->{account_name}:$_->{statement_type}:$_->{transaction_count}" }
                 @{ $res->{json}{statements} // [] }),
       '...yday:other:2,Visa:credit_card:2', 'QIF: one statement per account, a card as a card');
}

# The day order of QIF dates: taken from the file when one order fits, else
# the caller says.
{
    my $body = "!Type:Bank\nD01/02/2024\nT-1.00\nPBaker\n^\nD03/04/24\nT-2.00\nPButcher\n^\n";
    my $res = import_file('bankx_order_auto', $body, 'application/qif');
    is($res->{status}, 400, 'QIF: dates that read both ways are refused');
    like(message($res), qr/\Aline 2: .*date_order=dmy/, 'QIF: naming the line and the parameter to send');
    is(counts(user_id('bankx_order_auto') || 0), '0/0', 'QIF: nothing written');
    $res = import_file('bankx_order_dmy', $body, 'application/qif', '?date_order=dmy');
    is($res->{status}, 201, 'QIF: date_order=dmy imports');
    is($rig->sql("SELECT group_concat(date, ',') FROM (SELECT date FROM transactions WHERE owner_id = "
                 . user_id('bankx_order_dmy') . ' ORDER BY date)'), '2024-02-01,2024-04-03',
       'QIF: day first');
    $res = import_file('bankx_order_mdy', $body, 'application/qif', '?date_order=mdy');
    is($rig->sql("SELECT group_concat(date, ',') FROM (SELECT date FROM transactions WHERE owner_id = "
                 . user_id('bankx_order_mdy') . ' ORDER BY date)'), '2024-01-02,2024-03-04',
       'QIF: month first');
    $res = import_file('bankx_order_mdy', "!Type:Bank\nD25/12/2024\nT-1.00\n^\n", 'application/qif',
                       '?date_order=mdy');
    like(message($res), qr/\Aline 2: D is not a date written month first/,
         'QIF: a date the named order does not fit is refused');
    $res = import_file('bankx_bad_order', $body, 'application/qif', '?date_order=ymd');
    is($res->{json}{error}{field}, 'date_order', 'an unknown date_order is refused by name');
}

# The format named wins over the content.
{
    my $res = import_file('bankx_wrong_format', slurp_file('qif/actual-qif-account.qif'),
                          'application/octet-stream', '?format=camt');
    like(message($res), qr/\Aline 1: not well-formed XML/, 'format=camt reads the body as XML');
    $res = import_file('bankx_wrong_format', 'x', 'application/octet-stream', '?format=mt940');
    is($res->{json}{error}{field}, 'format', 'an unknown format is refused by name');
}

# XML is untrusted: a DOCTYPE, and so any entity, is refused before it is read.
my $camt = slurp_file('camt/actual-camt.053.payee-memo.xml');
{
    my $bomb = '<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY a "aaaaaaaaaa">'
               . join('', map { my $p = $_ - 1; "<!ENTITY a$_ \"" . ("&a$p;" x 10) . '">' } 1 .. 9)
               . ']><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>'
               . '<GrpHdr><AddtlInf>&a9;</AddtlInf></GrpHdr></BkToCstmrStmt></Document>';
    $bomb =~ s/&a0;/&a;/g;
    my $res = import_file('bankx_bomb', $bomb, 'application/xml');
    is($res->{status}, 400, 'CAMT: a billion-laughs file is refused');
    like(message($res), qr/\Aline 1: the file declares a DOCTYPE/, 'CAMT: for its DOCTYPE');
    (my $xxe = $camt) =~ s{<Document}{<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<Document};
    $xxe =~ s{<Ustrd>Note Text</Ustrd>}{<Ustrd>&x;</Ustrd>};
    $res = import_file('bankx_xxe', $xxe, 'application/xml');
    like(message($res), qr/\Aline 2: the file declares a DOCTYPE/, 'CAMT: an external entity is refused');
    is(counts(user_id('bankx_xxe') || 0), '0/0', 'CAMT: nothing written');
}

# Money is cents: an amount finer than the currency allows is refused.
{
    (my $body = $camt) =~ s{<Amt Ccy="EUR">20\.00</Amt>}{<Amt Ccy="EUR">20.005</Amt>};
    my $res = import_file('bankx_precise', $body, 'application/xml');
    is($res->{status}, 400, 'CAMT: an amount with a third decimal is refused');
    like(message($res), qr/\Aline 46: <Amt> '20\.005' has more decimals than EUR has/, 'CAMT: naming line and amount');
    is(counts(user_id('bankx_precise') || 0), '0/0', 'CAMT: nothing written');
    ($body = $camt) =~ s{Ccy="EUR"}{Ccy="KWD"}g;
    $res = import_file('bankx_kwd', $body, 'application/xml');
    like(message($res), qr/\Aline \d+: the amount is in KWD, a currency with three decimal places/,
         'CAMT: a currency with three decimals is refused');
    $res = import_file('bankx_qif_precise', "!Type:Bank\nD12/19/2018\nT-1.255\n^\n", 'application/qif');
    like(message($res), qr/\Aline 3: T '-1\.255' has more decimals than cents hold/,
         'QIF: an amount with a third decimal is refused');
    $res = import_file('bankx_othl', "!Type:Oth L\nD12/19/2018\nT-1.25\n^\n", 'application/qif');
    like(message($res), qr/\Aline 1: !Type:Oth L is an account of a type this ledger does not import/,
         'QIF: an account type other than Bank, CCard and Cash is refused');
}

# A pending entry is not the bank's booking: left out, and said so.
{
    (my $body = $camt) =~ s{<Sts>BOOK</Sts>}{<Sts>PDNG</Sts>};
    my $res = import_file('bankx_pending', $body, 'application/xml');
    is($res->{json}{imported}, 3, 'CAMT: a pending entry is not imported');
    like($res->{json}{warnings}[0] // '', qr/\Aline 23: the entry's status is PDNG, not booked/,
         'CAMT: and the answer says so');
}

# A batch whose details do not add up to the entry is one row, and said so.
{
    (my $body = slurp_file('camt/actual-camt.053.xml')) =~ s{<Amt Ccy="EUR">2\.25</Amt>}{<Amt Ccy="EUR">2.24</Amt>};
    my $res = import_file('bankx_batch', $body, 'application/xml');
    is($res->{json}{imported}, 6, 'CAMT: a batch that does not add up is one row');
    ok((grep { /\Aline 354: the entry's 2 transaction details \(TxDtls\) are not each kept/ }
        @{ $res->{json}{warnings} // [] }), 'CAMT: and the answer says so');
    is($rig->sql("SELECT amount || '/' || fitid FROM transactions WHERE owner_id = " . user_id('bankx_batch')
                 . " AND fitid LIKE '201401030326%'"), '345/2014010303263400000', 'CAMT: at the entry\'s amount and reference');
}

# A text longer than a field holds is cut, and said so.
{
    my $long = 'Z' x 300;
    my $res = import_file('bankx_cut', "!Type:Bank\nD12/19/2018\nT-1.25\nP$long\n^\n", 'application/qif');
    is($res->{status}, 201, 'QIF: a long payee imports');
    like($res->{json}{warnings}[0] // '', qr/\Aline 4: P is longer than 255 bytes: cut/, 'QIF: cut, and said so');
}

done_testing();
