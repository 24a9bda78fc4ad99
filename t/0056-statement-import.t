#!/usr/bin/perl
# POST /api/statements/import: OFX 1.x (SGML, Windows-1252), OFX 2.x (XML),
# QFX, several accounts in one file; the same file twice creates nothing
# twice; malformed files are a 400 naming the line; owner scoping.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is m2);

my $rig = Rig->new;
my $data = Rig::srcdir() . '/t/data/ofx';

sub import_file {
    my ($user, $file, %o) = @_;
    my $body = Rig::slurp("$data/$file");
    return $rig->request('POST', '/api/statements/import', user => $user, body => $body,
                         type => $o{type} // 'application/x-ofx');
}
sub rows_of {
    my ($user, $sid) = @_;
    return @{ $rig->get("/api/transactions?statement_id=$sid&sort=date&order=asc&limit=500",
                        user => $user)->{json}{items} };
}

# A one-account SGML file (Windows-1252): org, bank (BANKID), acct (ACCTID),
# type (ACCTTYPE), rows (the STMTTRNs) and after (what follows BANKTRANLIST).
sub sgml_file {
    my (%o) = @_;
    return "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\n"
        . "COMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0"
        . "<SEVERITY>INFO</STATUS><DTSERVER>20260301<LANGUAGE>ENG<FI><ORG>$o{org}<FID>1</FI></SONRS>"
        . "</SIGNONMSGSRSV1><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS>"
        . "<CURDEF>AUD<BANKACCTFROM><BANKID>$o{bank}<ACCTID>$o{acct}<ACCTTYPE>$o{type}</BANKACCTFROM>"
        . "<BANKTRANLIST><DTSTART>20260301<DTEND>20260331$o{rows}</BANKTRANLIST>" . ($o{after} // '')
        . "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n";
}

# ---- OFX 1.x SGML, Windows-1252 ------------------------------------------------------
my $res = import_file('alice', 'bank-1252.ofx');
is($res->{status}, 201, 'an SGML bank statement imports');
is($res->{json}{imported}, 4, 'four rows');
is($res->{json}{skipped_duplicates}, 0, 'none skipped');
my ($s) = @{ $res->{json}{statements} };
is($s->{bank_name}, 'Banque Société Générale', 'bank_name from the FI ORG, Windows-1252 decoded');
is($s->{statement_type}, 'transaction', 'CHECKING is a transaction account');
is($s->{account_type}, 'CHECKING', 'the raw account type is kept');
is_deeply([@$s{qw(period_start period_end)}], ['2025-01-01', '2025-01-31'], 'the period from DTSTART/DTEND');
is($s->{account_name}, '...3456', 'the account shown by its last digits');
ok(defined $s->{closing_balance}, 'LEDGERBAL is the closing balance');
ok(!defined $s->{balance_ok}, 'no opening balance in the file, so no assertion');
my @rows = rows_of('alice', $s->{id});
is(scalar @rows, 4, 'the rows are under the statement');
is($rows[0]{date}, '2025-01-03', 'DTPOSTED, the calendar date as written');
is($rows[0]{merchant}, 'Café de Flore', 'the NAME, in UTF-8');
is($rows[0]{description}, 'Café de Flore CARTE 4970 & CO', 'the description joins NAME and MEMO, entities decoded');
is_deeply([$rows[0]{transaction_type}, m2($rows[0]{amount})], ['debit', '12.50'], 'a negative amount is a debit of 12.50');
is($rows[0]{currency}, 'EUR', 'the currency from CURDEF');
is_deeply([$rows[1]{transaction_type}, m2($rows[1]{amount})], ['credit', '1234.56'], 'a positive amount is a credit');
is($rows[2]{merchant}, 'Boulangerie Étienne', 'numeric character references');
is(m2($rows[2]{amount}), '0.86', '-.86 is 0.86');
is($rows[3]{transaction_type}, 'fee', 'SRVCHG is a fee');
is($rows[0]{owner_id}, $rig->get('/api/me', user => 'alice')->{json}{id}, "rows are the importer's");

# ---- the same file again: nothing twice ------------------------------------------------
$res = import_file('alice', 'bank-1252.ofx');
is($res->{status}, 200, 'importing the same file again creates nothing (200)');
is($res->{json}{imported}, 0, 'no rows imported');
is($res->{json}{skipped_duplicates}, 4, 'and says it skipped four');
is(scalar @{ $res->{json}{statements} }, 0, 'and no statement');
is($rig->get('/api/statements', user => 'alice')->{json}{total}, 1, 'still one statement');
# Another user importing the same file gets their own copy.
is(import_file('bob', 'bank-1252.ofx')->{json}{imported}, 4, "another user's import is their own");

# ---- OFX 2.x XML credit card ------------------------------------------------------------
$res = import_file('alice', 'cc-2x.ofx');
is($res->{status}, 201, 'an XML credit-card statement imports');
($s) = @{ $res->{json}{statements} };
is($s->{statement_type}, 'credit_card', 'CCSTMTRS is a credit card');
is(m2($s->{closing_balance}), '1209.42', 'LEDGERBAL -1209.42 on a card is 1209.42 owed');
@rows = rows_of('alice', $s->{id});
is_deeply([sort map { "$_->{transaction_type} " . m2($_->{amount}) } @rows],
          ['debit 161.25', 'debit 45.00', 'interest 3.17', 'payment 500.00'],
          'DEBIT rows are debits, INT is interest, a positive PAYMENT is a payment');
my ($pay) = grep { $_->{transaction_type} eq 'payment' } @rows;
is($pay->{category}, 'transfers', 'a card payment is a transfer');

# ---- two banks' cards with one masked number: two accounts --------------------------------
# A card has no BANKID and its ACCTID is masked; the bank (FID and ORG) is
# part of the account, so another bank's card whose FITIDs happen to match
# is not taken for this one.  A statement imported when the account was the
# ACCTID alone is still the same account, by its bank name.
{
    my $cc = Rig::slurp("$data/cc-2x.ofx");
    (my $other = $cc) =~ s{<ORG>Example Card Services</ORG>}{<ORG>Totally Different Bank</ORG>};
    $other =~ s{<FID>9912</FID>}{<FID>1234</FID>};
    my $imp = sub { $rig->request('POST', '/api/statements/import', user => 'dave', body => $_[0],
                                  type => 'application/x-ofx')->{json} // {} };
    is($imp->($cc)->{imported}, 4, "dave imports Example Card Services' statement");
    my $again = $imp->($other);
    is_deeply([ @$again{qw(imported skipped_duplicates)}, $again->{statements}[0]{bank_name} ],
              [ 4, 0, 'Totally Different Bank' ],
              "another bank's card with the same masked number and FITIDs: its own four rows");
    is($imp->($cc)->{imported}, 0, 'each file again: nothing twice');
    is($imp->($other)->{imported}, 0, '... for either bank');

    # As imported before: the account was ":<ACCTID>" for both.
    $rig->sql(q{UPDATE statements SET account_id = ':4111********1111' WHERE account_id LIKE 'fi:%'});
    is_deeply([ @{ $imp->($cc) }{qw(imported skipped_duplicates)} ], [ 0, 4 ],
              'a statement stored by the old account key is still known, by its bank name');
    is_deeply([ @{ $imp->($other) }{qw(imported skipped_duplicates)} ], [ 0, 4 ], '... for both banks');
    (my $third = $cc) =~ s{<ORG>Example Card Services</ORG>}{<ORG>Third Bank</ORG>};
    is($imp->($third)->{imported}, 4, 'and a third bank is not either of them');
}

# ---- a line of credit: a loan, what is owed kept positive (rule E) --------------------
{
    my $ofx = sgml_file(org => 'Line Bank', bank => '062000', acct => '99990000', type => 'CREDITLINE',
        rows => '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260310<TRNAMT>-200.00<FITID>L1<NAME>DRAWDOWN</STMTTRN>',
        after => '<LEDGERBAL><BALAMT>-5200.00<DTASOF>20260331</LEDGERBAL>');
    $res = $rig->request('POST', '/api/statements/import', user => 'carol', body => $ofx, type => 'application/x-ofx');
    is($res->{status}, 201, 'a line-of-credit statement imports') or diag($res->{content});
    my ($line) = @{ $res->{json}{statements} // [] };
    is($line->{statement_type}, 'loan', 'CREDITLINE is a loan');
    is(m2($line->{closing_balance}), '5200.00', 'LEDGERBAL -5200.00 on a loan is 5200.00 owed');
}

# ---- a bank called "Manual": the name of manual rows in the list's filter --------------
{
    my $ofx = sgml_file(org => 'Manual', bank => '062001', acct => '11112222', type => 'CHECKING',
        rows => '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260310<TRNAMT>-2.00<FITID>M1<NAME>TEA</STMTTRN>');
    $res = $rig->request('POST', '/api/statements/import', user => 'carol', body => $ofx, type => 'application/x-ofx');
    is($res->{status}, 201, 'a file whose ORG is Manual imports') or diag($res->{content});
    is(($res->{json}{statements} // [])->[0]{bank_name}, '062001', 'under its BANKID instead');
}

# ---- merchants from the bank's raw text (issue #31) ------------------------------------------
# NAME stays the row's merchant (the bank's); the row is listed under the
# merchant cleaned from NAME, else from MEMO, which /api/merchants shows.
{
    my $ofx = sgml_file(org => 'Card Bank', bank => '062002', acct => '33334444', type => 'CHECKING',
        rows => '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260311<TRNAMT>-4.50<FITID>C1'
              . '<NAME>SQ *BLUE BOTTLE COFFEE 0123<MEMO>SAN FRANCISCO CA</STMTTRN>'
              . '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260312<TRNAMT>-15.99<FITID>C2'
              . '<MEMO>PAYPAL *NETFLIX.COM 402-935-7733 CA</STMTTRN>'
              . '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260313<TRNAMT>-1.00<FITID>C3<NAME>1234 5678</STMTTRN>');
    $res = $rig->request('POST', '/api/statements/import', user => 'bob', body => $ofx, type => 'application/x-ofx');
    is($res->{status}, 201, 'a card statement with raw NAMEs imports') or diag($res->{content});
    my @r = rows_of('bob', $res->{json}{statements}[0]{id});
    is_deeply([ map { [ $_->{merchant}, $_->{merchant_normalized} ] } @r ],
              [ [ 'SQ *BLUE BOTTLE COFFEE 0123', 'Blue Bottle Coffee' ], [ undef, 'Netflix' ], [ '1234 5678', undef ] ],
              'NAME kept as the merchant; the listed merchant cleaned from NAME, else MEMO; none from numbers')
        or diag(explain([ map { [ $_->{merchant}, $_->{merchant_normalized} ] } @r ]));
    like($r[0]{description}, qr/^SQ \*BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA$/, 'the raw text stays in description');
    my %listed = map { $_->{merchant} => 1 } @{ $rig->get('/api/merchants', user => 'bob')->{json}{items} };
    ok($listed{'Blue Bottle Coffee'} && $listed{Netflix} && !$listed{'SQ *BLUE BOTTLE COFFEE 0123'},
       '/api/merchants lists the cleaned merchants, not the raw NAME') or diag(explain(\%listed));
    # The user renames one; the next statement's rows of it follow.
    is($rig->patch("/api/transactions/$r[0]{id}", { merchant_normalized => 'Blue Bottle' }, user => 'bob')->{status},
       200, 'bob renames Blue Bottle Coffee');
    $ofx = sgml_file(org => 'Card Bank', bank => '062002', acct => '33334444', type => 'CHECKING',
        rows => '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260320<TRNAMT>-5.00<FITID>C4'
              . '<NAME>SQ *BLUE BOTTLE COFFEE 0456</STMTTRN>');
    $res = $rig->request('POST', '/api/statements/import', user => 'bob', body => $ofx, type => 'application/x-ofx');
    my ($next) = rows_of('bob', $res->{json}{statements}[0]{id});
    is($next->{merchant_normalized}, 'Blue Bottle', "a later row of the renamed merchant takes the user's name");
    # Every row has one already: the run names nothing and records no run.
    $res = $rig->post('/api/merchants/clean', {}, user => 'bob');
    is($res->{status}, 200, 'POST /api/merchants/clean') or diag($res->{content});
    is_deeply([ @{ $res->{json} }{qw(run_id transactions)} ], [ undef, 0 ], 'nothing to name: no run');
    error_is($rig->request('POST', '/api/merchants/clean', user => 'bob', body => 'x', type => 'text/plain'),
             415, 'unsupported_media_type', 'a write in another type than JSON');
}

# ---- an account id beyond ASCII: its last four characters, not bytes -------------------------
{
    my $ofx = sgml_file(org => 'Euro Bank', bank => '1', acct => "5512\x80\x80", type => 'CHECKING',
        rows => '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260310<TRNAMT>-2.00<FITID>E1<NAME>EURO</STMTTRN>');
    $res = $rig->request('POST', '/api/statements/import', user => 'carol', body => $ofx, type => 'application/x-ofx');
    is($res->{status}, 201, 'an account id with euro signs imports') or diag($res->{content});
    ok(index($res->{content}, "\"account_name\":\"...12\xe2\x82\xac\xe2\x82\xac\"") >= 0,
       'its name is its last four characters, whole UTF-8') or diag($res->{content});
}

# ---- rows without a FITID: the same file twice still creates nothing twice ------------------
{
    my $trn = sub { "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>$_[0]<TRNAMT>$_[1]<NAME>$_[2]</STMTTRN>" };
    my $ofx = sgml_file(org => 'No Id Bank', bank => '1', acct => '777000', type => 'CHECKING',
        rows => $trn->('20260305', '-4.50', 'COFFEE') . $trn->('20260305', '-4.50', 'COFFEE')
                . $trn->('20260306', '-9.00', 'LUNCH'));
    my $import = sub { $rig->request('POST', '/api/statements/import', user => 'erin', body => $ofx,
                                     type => 'application/x-ofx') };
    $res = $import->();
    is($res->{status}, 201, 'a file whose rows have no FITID imports') or diag($res->{content});
    is($res->{json}{imported}, 3, 'all three rows, the two identical coffees both');
    my $sid = $res->{json}{statements}[0]{id} // 0;
    $res = $import->();
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 0, 3 ],
              'imported again: each row is known by what it says, nothing twice') or diag($res->{content});
    is($rig->get('/api/transactions?search=COFFEE', user => 'erin')->{json}{total}, 2, 'two coffees, not four');

    # Known however the rows were edited since: the lunch made a fee, a
    # coffee a refund: a retyped row is not imported again.
    my $items = $rig->get("/api/transactions?statement_id=$sid", user => 'erin')->{json}{items};
    my %row = map { $_->{description} => $_ } @$items;
    is($rig->patch("/api/transactions/$row{LUNCH}{id}", { transaction_type => 'fee' }, user => 'erin')->{status}, 200,
       'the lunch made a fee');
    is($rig->patch("/api/transactions/$row{COFFEE}{id}", { transaction_type => 'refund' }, user => 'erin')->{status}, 200,
       'a coffee made a refund');
    $res = $import->();
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 0, 3 ],
              'imported again after the edits: nothing twice') or diag($res->{content});
    # A later file with a third coffee of the same day and price adds it.
    my $more = sgml_file(org => 'No Id Bank', bank => '1', acct => '777000', type => 'CHECKING',
        rows => join('', map { $trn->('20260305', '-4.50', 'COFFEE') } 1 .. 3) . $trn->('20260307', '-1.00', 'BUN'));
    $res = $rig->request('POST', '/api/statements/import', user => 'erin', body => $more, type => 'application/x-ofx');
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 2, 2 ],
              'a later file: the third coffee and the bun are new') or diag($res->{content});
    is($rig->get('/api/transactions?search=COFFEE', user => 'erin')->{json}{total}, 3, 'three coffees');

    # Rows imported before such rows kept a FITID are known by what they
    # say, the direction of their type rather than the type.
    $rig->sql("UPDATE transactions SET fitid = NULL WHERE statement_id = $sid");
    $res = $import->();
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 0, 3 ],
              'rows stored without a FITID: known still, the fee as the debit it was') or diag($res->{content});
}

# ---- one FITID on two rows that say different things: both are rows ----------------------
# Some banks give two purchases one FITID.  The same row listed twice is
# still one row; a row saying something else is its own, and known again
# on the next import of the file.
{
    my $trn = sub { "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>$_[0]<TRNAMT>$_[1]<FITID>$_[3]<NAME>$_[2]</STMTTRN>" };
    my $ofx = sgml_file(org => 'Reuse Bank', bank => '2', acct => '888000', type => 'CHECKING',
        rows => $trn->('20260305', '-1.00', 'PEN', 'SAME') . $trn->('20260306', '-99.00', 'DESK', 'SAME')
                . $trn->('20260305', '-1.00', 'PEN', 'SAME') . $trn->('20260307', '-5.00', 'INK', 'OWN'));
    my $import = sub { $rig->request('POST', '/api/statements/import', user => 'erin', body => $ofx,
                                     type => 'application/x-ofx') };
    $res = $import->();
    is($res->{status}, 201, 'a file with a FITID on two different rows imports') or diag($res->{content});
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 3, 1 ],
              'the pen, the desk and the ink: the pen listed twice is one row, the desk is not dropped');
    my $sid = $res->{json}{statements}[0]{id} // 0;
    is_deeply([ sort map { "$_->{description} " . m2($_->{amount}) }
                @{ $rig->get("/api/transactions?statement_id=$sid", user => 'erin')->{json}{items} // [] } ],
              [ 'DESK 99.00', 'INK 5.00', 'PEN 1.00' ], 'the statement holds all three');
    $res = $import->();
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates statements)} ], [ 0, 4, [] ],
              'imported again: nothing twice, the desk known by its own key');
}

# ---- a FITID of an earlier file on another row -------------------------------------------
# Some banks reuse a FITID across files (a card's reward credit under its
# purchase's; ids numbered per day).  A later file's row under a FITID seen
# before, of another amount or direction, is a new row (it was skipped as
# seen), known by its own key when the file comes again; one of the same
# amount and direction is the same row, whatever its date and text (the
# bank correcting it).
{
    my $trn = sub { "<STMTTRN><TRNTYPE>$_[0]<DTPOSTED>$_[1]<TRNAMT>$_[2]<FITID>$_[4]<NAME>$_[3]</STMTTRN>" };
    my $file = sub { sgml_file(org => 'Reward Bank', bank => '3', acct => '777000', type => 'CHECKING', rows => $_[0]) };
    my $import = sub { $rig->request('POST', '/api/statements/import', user => 'erin', body => $_[0],
                                     type => 'application/x-ofx') };
    my $jan = $file->($trn->('DEBIT', '20260112', '-250.00', 'AIRLINE', 'R1') . $trn->('DEBIT', '20260110', '-55.00', 'COLES', '1'));
    my $feb = $file->($trn->('CREDIT', '20260203', '250.00', 'REDEMPTION CREDIT', 'R1')
                      . $trn->('DEBIT', '20260210', '-60.00', 'SHELL', '1')
                      . $trn->('DEBIT', '20260211', '-55.00', 'COLES CORRECTED', '1'));
    $res = $import->($jan);
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 2, 0 ], 'January: two rows');
    $res = $import->($feb);
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 2, 1 ],
              'February: the credit under the purchase\'s FITID and the new 60.00 are rows; 55.00 again is the row seen')
        or diag($res->{content});
    my $sid = $res->{json}{statements}[0]{id} // 0;
    is_deeply([ sort map { "$_->{transaction_type} $_->{description} " . m2($_->{amount}) }
                @{ $rig->get("/api/transactions?statement_id=$sid&exclude_categories=", user => 'erin')->{json}{items} // [] } ],
              [ 'credit REDEMPTION CREDIT 250.00', 'debit SHELL 60.00' ], 'the new rows');
    $res = $import->($feb);
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 0, 3 ], 'February again: nothing twice');
}

# A card file with its signs the wrong way round: the user corrects the
# rows' direction, and the next file with the same rows brings none of
# them back as other rows.
{
    my $trn = sub { "<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>$_[0]<TRNAMT>$_[1]<FITID>$_[3]<NAME>$_[2]</STMTTRN>" };
    my $file = sub { sgml_file(org => 'Sign Bank', bank => '4', acct => '888000', type => 'CHECKING', rows => $_[0]) };
    my $import = sub { $rig->request('POST', '/api/statements/import', user => 'erin', body => $_[0],
                                     type => 'application/x-ofx') };
    my $two = $trn->('20260303', '42.00', 'WOOLWORTHS', 'S1') . $trn->('20260305', '15.50', 'UBER TRIP', 'S2');
    $res = $import->($file->($two));
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 2, 0 ], 'two purchases, signed as credits');
    my $sid = $res->{json}{statements}[0]{id} // 0;
    for my $r (@{ $rig->get("/api/transactions?statement_id=$sid&exclude_categories=", user => 'erin')->{json}{items} // [] }) {
        is($rig->patch("/api/transactions/$r->{id}", { transaction_type => 'debit' }, user => 'erin')->{status}, 200,
           "$r->{description} corrected to a debit");
    }
    $res = $import->($file->($two . $trn->('20260312', '60.00', 'SHELL', 'S3')));
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 1, 2 ],
              'the next file: only its new row; the corrected two are the rows seen') or diag($res->{content});
    # The bank then sends the two with their signs put right: the same rows.
    my $fixed = sub { "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>$_[0]<TRNAMT>-$_[1]<FITID>$_[3]<NAME>$_[2]</STMTTRN>" };
    $res = $import->($file->($fixed->('20260303', '42.00', 'WOOLWORTHS', 'S1') . $fixed->('20260305', '15.50', 'UBER TRIP', 'S2')));
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 0, 2 ],
              'the bank sending them again as debits: the rows seen') or diag($res->{content});
    # A refund the bank files under its purchase's FITID, with the same
    # amount and text (and even its date), is a new row: the direction
    # compared is the file's, not a guess from the date or text (a
    # re-check found such a refund dropped).
    my $t2 = sub { "<STMTTRN><TRNTYPE>$_[0]<DTPOSTED>$_[1]<TRNAMT>$_[2]<FITID>P1<NAME>TOASTER CO</STMTTRN>" };
    $res = $import->($file->($t2->('DEBIT', '20260320', '-80.00')));
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 1, 0 ], 'a purchase');
    $res = $import->($file->($t2->('CREDIT', '20260320', '80.00')));
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 1, 0 ],
              'its refund the same day under the same FITID and text: a row') or diag($res->{content});
}

# A NAME longer than a merchant may be (200 bytes): the merchant is cut at
# a character, its history can be asked for, and the description keeps
# the whole NAME.
{
    my $name = 'PAYPAL *' . ("\xc3\xa9" x 100) . ' SHOP TAIL';
    my $file = sgml_file(org => 'Long Bank', bank => '5', acct => '999000', type => 'CHECKING',
        rows => "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-9.00<FITID>L1<NAME>$name</STMTTRN>");
    $res = $rig->request('POST', '/api/statements/import', user => 'erin', body => $file, type => 'application/x-ofx');
    is($res->{status}, 201, 'a row with a 218-byte NAME') or diag($res->{content});
    my ($r) = @{ $rig->get("/api/transactions?statement_id=" . ($res->{json}{statements}[0]{id} // 0), user => 'erin')
                     ->{json}{items} // [] };
    my $bytes = $r->{merchant} // '';  # the rig's JSON is read as bytes
    ok(length($bytes) <= 200 && $bytes =~ /\xc3\xa9$/, 'the merchant is cut to 200 bytes at a character')
        or diag(length($bytes) . " bytes: $bytes");
    like($r->{description} // '', qr/SHOP TAIL$/, 'the description keeps the whole NAME');
    my $path = join '', map { sprintf '%%%02X', ord } split //, $bytes;
    is($rig->get("/api/analytics/merchants/$path?from=2026-03&to=2026-03", user => 'erin')->{status}, 200,
       "the merchant's history can be asked for");
}

# ---- QFX and two accounts -----------------------------------------------------------------
$res = import_file('alice', 'bank.qfx', type => 'application/vnd.intu.qfx');
is($res->{status}, 201, 'a QFX file (Intuit elements ignored) imports');
is($res->{json}{statements}[0]{statement_type}, 'savings', 'SAVINGS is a savings account');
$res = import_file('alice', 'two-accounts.ofx', type => 'application/octet-stream');
is($res->{status}, 201, 'a file with two accounts');
is(scalar @{ $res->{json}{statements} }, 2, 'one statement per account');

# ---- malformed files: a 400 with the line, nothing written ---------------------------------
my $before = $rig->get('/api/statements', user => 'alice')->{json}{total};
for my $f (qw(bad-date.ofx bad-decimals.ofx binary.ofx empty.ofx no-trnamt.ofx not-ofx.csv
              truncated.ofx unterminated-tag.ofx)) {
    $res = import_file('alice', $f);
    is($res->{status}, 400, "$f is refused");
    like($res->{json}{error}{message} // '', qr/^line \d+: /, "$f: the message names the line")
        unless $f eq 'empty.ofx';
}
error_is($rig->request('POST', '/api/statements/import', user => 'alice', body => '',
                       type => 'application/x-ofx'), 400, 'invalid_field', 'an empty body', 'file');
is($rig->get('/api/statements', user => 'alice')->{json}{total}, $before, 'nothing was written');
# Every prefix of a good file is refused or imported whole, never a crash.
{
    my $body = Rig::slurp("$data/cc-2x.ofx");
    my ($bad, $crash) = (0, 0);
    for (my $n = 1; $n < length $body; $n += 97) {
        my $r = $rig->request('POST', '/api/statements/import', user => 'erin',
                              body => substr($body, 0, $n), type => 'application/x-ofx');
        $crash++ if $r->{status} >= 500 || !$r->{json};
        $bad++ if $r->{status} == 400;
    }
    is($crash, 0, 'truncated files never crash the service');
    ok($bad > 0, 'and are refused');
}

# A row listed twice in a file (the same FITID, date, amount and text) is
# one row, and the answer says so.
{
    my $row = "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-9.00<FITID>R1<NAME>TWICE</STMTTRN>\n";
    my $file = sgml_file(org => 'Twice Bank', bank => '6', acct => '606060', type => 'CHECKING',
                         rows => "\n$row$row");
    $res = $rig->request('POST', '/api/statements/import', user => 'erin', body => $file,
                         type => 'application/x-ofx');
    is_deeply([ @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 1, 1 ],
              'a row listed twice is one row') or diag($res->{content});
    like(join("\n", @{ $res->{json}{warnings} // [] }),
         qr/\Aline 13: <STMTTRN> repeats an earlier row of its statement .*: imported once\z/,
         'and the answer says so');
}

# ---- statements without rows: dated by the file, never by the clock ---------------------------
{
    my $balances = sub {
        my ($server, $asof) = @_;
        return "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0"
            . "<SEVERITY>INFO</STATUS>$server<LANGUAGE>ENG<FI><ORG>Dated Bank<FID>7</FI></SONRS>"
            . "</SIGNONMSGSRSV1><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>AUD<BANKACCTFROM>"
            . "<BANKID>7<ACCTID>55501<ACCTTYPE>SAVINGS</BANKACCTFROM>\n"
            . "<LEDGERBAL><BALAMT>12.00$asof</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n";
    };
    my $r = $rig->request('POST', '/api/statements/import', user => 'dave', type => 'application/x-ofx',
                          body => $balances->('<DTSERVER>20250305', '<DTASOF>20250228'));
    is($r->{status}, 201, 'a statement of balances only imports');
    is_deeply([@{ $r->{json}{statements}[0] }{qw(period_start period_end)}], ['2025-02-28', '2025-02-28'],
              "its period is the balance's DTASOF");
    is_deeply($r->{json}{warnings}, [], 'and nothing was dropped');
    $r = $rig->request('POST', '/api/statements/import', user => 'dave', type => 'application/x-ofx',
                       body => $balances->('<DTSERVER>20250306', '<DTASOF></DTASOF>'));
    is($r->{status}, 201, 'one without a balance date');
    is($r->{json}{statements}[0]{period_end}, '2025-03-06', "takes the file's DTSERVER");
    error_is($r = $rig->request('POST', '/api/statements/import', user => 'dave', type => 'application/x-ofx',
                                body => $balances->('', '')), 400, 'invalid_field',
             'one with no date at all', 'file');
    like($r->{json}{error}{message} // '', qr/\Aline 5: <STMTRS> has no transactions and the file gives no date/,
         'says which statement has no date');
}

# ---- access ----------------------------------------------------------------------------------
my $alice_stmt = $rig->get('/api/statements', user => 'alice')->{json}{items}[0]{id};
error_is($rig->get("/api/statements/$alice_stmt", user => 'carol'), 403, 'forbidden',
         "an imported statement is its importer's");
error_is($rig->request('POST', '/api/statements/import', open => 1, body => 'x',
                       type => 'application/x-ofx'), 401, 'unauthenticated', 'no identity');

done_testing();
