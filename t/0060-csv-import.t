#!/usr/bin/perl
# CSV import through nginx (SPEC.md Behaviour rule 7 and the csv-import tag,
# API.md section 9, issue 9): the preview of real bank exports (quoting,
# embedded line breaks, BOM, CRLF, guessed delimiters, thousands separators,
# currency symbols, parentheses, date formats, signed or debit/credit
# amounts, negate, no header with indexes) with per-row errors and nothing
# written; duplicates; the commit (manual rows of the caller, tagged
# csv-import, categories folded, duplicates skipped unless allowed, all or
# nothing; its limits: 1000-character descriptions, 100,000 rows,
# magnitudes); the bank presets of contrib/csv-presets; access.
#
# Users: alice commits, bob is the other owner, carol owns tags, dave only
# previews (so he must end with nothing), erin commits refused batches first.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use Rig;
use CommonChecks qw(error_is ok_json manual_ok m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

# ---- helpers ---------------------------------------------------------------------
# A preview row's amount with its sign: money out is negative.
sub signed {
    my ($r) = @_;
    return undef unless defined $r->{amount} && defined $r->{transaction_type};
    return m2($r->{transaction_type} eq 'debit' ? -$r->{amount} : $r->{amount});
}
# [line, date, description, signed amount] per row, and the rows' errors.
sub brief { [map { [$_->{line}, $_->{date}, $_->{description}, signed($_)] } @{ $_[0] }] }
sub errors_of { [map { scalar @{ $_->{errors} // [] } } @{ $_[0] }] }

sub preview {
    my ($user, $csv, $mapping) = @_;
    return $rig->post('/api/import/csv/preview', { csv => $csv, mapping => $mapping }, user => $user);
}
sub preview_raw {
    my ($user, $query, $bytes, $type) = @_;
    return $rig->request('POST', "/api/import/csv/preview?$query", user => $user, body => $bytes,
                         type => $type // 'text/csv');
}
sub commit {
    my ($user, $rows, %o) = @_;
    return $rig->post('/api/import/csv/commit', { rows => $rows, %o }, user => $user);
}
# Every row the user can list, transfers included.
sub total {
    my ($user) = @_;
    return $rig->get('/api/transactions?exclude_categories=&limit=1', user => $user)->{json}{total};
}
sub csv_tag {
    my ($user) = @_;
    my ($t) = grep { $_->{name} eq 'csv-import' } @{ $rig->get('/api/tags', user => $user)->{json}{items} };
    return $t;
}
sub usage { my $t = csv_tag($_[0]); $t ? $t->{usage_count} : 0 }
sub txn { $rig->get("/api/transactions/$_[1]", user => $_[0])->{json} }

my $NAMED = { date => 'Date', description => 'Description', amount => 'Amount' };
my $NAMED_ALT = { date => 'Date', description => 'Payee', amount => 'Amount' };

# ---- preview: a real export end to end ---------------------------------------------
# A UTF-8 BOM, CRLF line ends, a quoted description with a comma, a quoted
# description over two lines (the rows after it keep their file line
# numbers), a quoted thousands separator with a dollar sign, A$, a
# parenthesised negative, then three bad rows among good ones.
my $export = "\xEF\xBB\xBFDate,Description,Amount\r\n"
    . "03/01/2025,\"Cafe Nero, Sydney\",-4.50\r\n"
    . "04/01/2025,\"Salary\r\nACME Pty Ltd\",\"\$1,234.56\"\r\n"
    . "05/01/2025,Refund from shop,\"A\$12.00\"\r\n"
    . "06/01/2025,Account fee,(2.50)\r\n"
    . "31/02/2025,No such day,-1.00\r\n"
    . "07/01/2025,Not a number,abc\r\n"
    . "08/01/2025,Three decimals,-1.234\r\n"
    . "13/01/2025,Woolworths,-0.99\r\n";
my $before_total = total('dave');
my $res = preview('dave', $export, $NAMED);
is($res->{status}, 200, 'a bank export previews');
my $p = $res->{json};
is_deeply($p->{columns}, [qw(Date Description Amount)], 'columns from the header, BOM dropped');
is_deeply($p->{detected}, { delimiter => ',', has_header => JSON::PP::true, date_format => 'DD/MM/YYYY',
                            decimal => '.', encoding => 'utf-8', header_line => 1 },
          'detected: comma, header, DD/MM/YYYY, ., utf-8, the header on line 1');
is_deeply(brief($p->{rows}), [
    [2, '2025-01-03', 'Cafe Nero, Sydney', '-4.50'],
    [3, '2025-01-04', 'Salary ACME Pty Ltd', '1234.56'],
    [5, '2025-01-05', 'Refund from shop', '12.00'],
    [6, '2025-01-06', 'Account fee', '-2.50'],
    [7, undef, 'No such day', '-1.00'],
    [8, '2025-01-07', 'Not a number', undef],
    [9, '2025-01-08', 'Three decimals', undef],
    [10, '2025-01-13', 'Woolworths', '-0.99'],
], 'rows: quoted comma, line break as a space, line numbers after it, $1,234.56, A$, (2.50)');
is_deeply(errors_of($p->{rows}), [0, 0, 0, 0, 1, 1, 1, 0], 'only the three bad rows carry errors');
like($p->{rows}[4]{errors}[0], qr{31/02/2025}, 'the bad date is named in its error');
like($p->{rows}[5]{errors}[0], qr{abc}, 'the bad amount is named in its error');
like($p->{rows}[6]{errors}[0], qr{decimal}, 'three decimals: the error says so');
is_deeply([map { $_->{transaction_type} } @{ $p->{rows} }[0 .. 3]], [qw(debit credit credit debit)],
          'negative is money out (debit), positive money in (credit)');
is_deeply([map { $_->{duplicate_of} } @{ $p->{rows} }], [(undef) x 8], 'nothing is a duplicate yet');
ok(!grep({ ref $_->{errors} ne 'ARRAY' } @{ $p->{rows} }), 'errors is always an array');

# ---- preview: more shapes --------------------------------------------------------------
# ';' with decimal commas and '.' thousands, ISO dates.
$res = preview('dave', "Datum;Omschrijving;Bedrag\n2025-01-03;Albert Heijn;-12,50\n2025-01-04;Salaris;1.234,56\n",
               { date => 'Datum', description => 'Omschrijving', amount => 'Bedrag' });
is($res->{json}{detected}{delimiter}, ';', "';' is guessed");
is($res->{json}{detected}{decimal}, ',', 'a decimal comma is detected');
is($res->{json}{detected}{date_format}, 'YYYY-MM-DD', 'YYYY-MM-DD is guessed');
is_deeply(brief($res->{json}{rows}), [[2, '2025-01-03', 'Albert Heijn', '-12.50'], [3, '2025-01-04', 'Salaris', '1234.56']],
          "';' rows: -12,50 and 1.234,56");

# Tab-separated, "3 Jan 2025" dates.
$res = preview('dave', "Date\tDetails\tAmount\n3 Jan 2025\tWoolworths\t-45.10\n14 Feb 2025\tSalary\t3000.00\n",
               { date => 'Date', description => 'Details', amount => 'Amount' });
my $tab = $res->{json}{detected}{delimiter} // '';
ok($tab eq "\t" || $tab eq '\t', 'a tab is guessed') or diag("delimiter '$tab'");
is($res->{json}{detected}{date_format}, 'D MMM YYYY', '"3 Jan 2025" is D MMM YYYY');
is_deeply(brief($res->{json}{rows}), [[2, '2025-01-03', 'Woolworths', '-45.10'], [3, '2025-02-14', 'Salary', '3000.00']],
          'tab rows');
# What was detected can be sent back as the mapping.
$res = preview('dave', "Date\tDetails\tAmount\n3 Jan 2025\tWoolworths\t-45.10\n",
               { date => 'Date', description => 'Details', amount => 'Amount', delimiter => $tab });
is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-03', 'Woolworths', '-45.10']], 'the detected delimiter is accepted back');

# MM/DD/YYYY when a day over 12 settles it; a given date_format wins over the guess.
$res = preview('dave', "Date,Description,Amount\n01/13/2025,a,1\n02/01/2025,b,2\n", $NAMED);
is($res->{json}{detected}{date_format}, 'MM/DD/YYYY', 'a day over 12 in second place: MM/DD/YYYY');
is_deeply([map { $_->{date} } @{ $res->{json}{rows} }], ['2025-01-13', '2025-02-01'], 'and the dates read that way');
$res = preview('dave', "Date,Description,Amount\n03/01/2025,a,1\n", { %$NAMED, date_format => 'MM/DD/YYYY' });
is($res->{json}{rows}[0]{date}, '2025-03-01', 'a given date_format is used');

# Separate debit and credit columns: the column decides the direction.
my $dc_csv = "Date,Description,Debit,Credit\n"
    . "2025-01-03,Coles,12.50,\n2025-01-04,Pay,,100.00\n2025-01-05,Minus debit,-7.00,\n"
    . "2025-01-06,Both,1.00,2.00\n2025-01-07,Neither,,\n2025-01-08,Zero debit,0.00,5.00\n";
my $DC = { date => 'Date', description => 'Description', debit => 'Debit', credit => 'Credit' };
$res = preview('dave', $dc_csv, $DC);
is_deeply(brief($res->{json}{rows}), [
    [2, '2025-01-03', 'Coles', '-12.50'], [3, '2025-01-04', 'Pay', '100.00'],
    [4, '2025-01-05', 'Minus debit', '-7.00'], [5, '2025-01-06', 'Both', undef],
    [6, '2025-01-07', 'Neither', undef], [7, '2025-01-08', 'Zero debit', '5.00'],
], 'debit/credit: debit out, credit in, -7.00 in Debit is 7.00 out, a zero beside an amount is empty');
is_deeply(errors_of($res->{json}{rows}), [0, 0, 0, 1, 1, 0], 'both filled or both empty is a row error');
# negate flips the sign in either layout.
$res = preview('dave', $dc_csv, { %$DC, negate => JSON::PP::true });
is_deeply([map { signed($_) } @{ $res->{json}{rows} }], ['12.50', '-100.00', '7.00', undef, undef, '-5.00'],
          'negate flips debit/credit amounts');
$res = preview('dave', "Date,Description,Amount\n03/01/2025,Card payment,-4.50\n04/01/2025,Purchase,20.00\n",
               { %$NAMED, negate => JSON::PP::true });
is_deeply([map { signed($_) } @{ $res->{json}{rows} }], ['4.50', '-20.00'], 'negate flips a signed column (card exports)');

# No header, the mapping by 0-based indexes (JSON numbers, 0 included).
$res = preview('dave', "03/01/2025,\"-4.50\",\"EFTPOS CAFE\"\n14/01/2025,\"+100.00\",\"TRANSFER IN\"\n",
               { date => 0, amount => 1, description => 2 });
is($res->{status}, 200, 'indexes as JSON numbers');
is($res->{json}{detected}{has_header}, JSON::PP::false, 'no header guessed when the first line is data');
is_deeply($res->{json}{columns}, ['column 1', 'column 2', 'column 3'], 'columns are named by position');
is_deeply(brief($res->{json}{rows}), [[1, '2025-01-03', 'EFTPOS CAFE', '-4.50'], [2, '2025-01-14', 'TRANSFER IN', '100.00']],
          'rows from line 1');
$res = preview('dave', "Date,Amount,Description\n03/01/2025,-1.00,a\n", { date => 0, amount => 1, description => 2 });
is($res->{json}{detected}{has_header}, JSON::PP::true, 'with indexes, a header line is guessed as one');
is_deeply(brief($res->{json}{rows}), [[2, '2025-01-03', 'a', '-1.00']], 'and is not a row');
# Digits as text name a header column of that name when there is one (a
# client sends the names it shows); a JSON number is always an index; and
# a name given twice in the header is the first, an index the one picked.
{
    my $digits = "when,2,1\n2025-01-02,x,-3.50\n";
    $res = preview('dave', $digits, { date => 'when', description => '2', amount => '1', has_header => JSON::PP::true });
    is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-02', 'x', '-3.50']],
              'digits as text name the header columns "2" and "1"') or diag($res->{content});
    $res = preview_raw('dave', 'date=when&description=2&amount=1&has_header=true', $digits);
    is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-02', 'x', '-3.50']], 'and so in the query');
    $res = preview('dave', $digits, { date => 0, description => 1, amount => 2, has_header => JSON::PP::true });
    is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-02', 'x', '-3.50']],
              'JSON numbers are indexes even so') or diag($res->{content});
    $res = preview('dave', "Date,Amount,Description\n03/01/2025,-1.00,a\n",
                   { date => '0', description => '2', amount => '1', has_header => JSON::PP::true });
    is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-03', 'a', '-1.00']],
              'digits as text that name no column are indexes') or diag($res->{content});
    my $twice = "Date,Amount,Description,Amount\n2025-01-02,1.00,coffee,-99.99\n";
    $res = preview('dave', $twice, { date => 'Date', description => 'Description', amount => 3 });
    is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-02', 'coffee', '-99.99']],
              'of two columns named Amount, index 3 is the second') or diag($res->{content});
}

# Account details or a summary above the header (DKB, ING-DiBa, Bank of
# America): with a mapping by name the header is the first line holding
# every name, the lines above are not rows, and the rows are measured by
# the header's width (they were each flagged "not quoted?").
{
    my $dkb = qq{"Kontonummer:";"DE12 1203 0000 1234 5678 90 / Girokonto";\n"Von:";"01.01.2025";\n}
        . qq{"Bis:";"31.01.2025";\n"Kontostand vom 31.01.2025:";"1.234,56 EUR";\n\n}
        . qq{"Buchungstag";"Wertstellung";"Buchungstext";"Auftraggeber / Beguenstigter";"Verwendungszweck";}
        . qq{"Kontonummer";"BLZ";"Betrag (EUR)";"Glaeubiger-ID";"Mandatsreferenz";"Kundenreferenz";\n}
        . qq{"15.01.2025";"15.01.2025";"Lastschrift";"REWE Markt GmbH";"Einkauf";"DE00";"";"-45,67";"";"";"";\n}
        . qq{"14.01.2025";"14.01.2025";"Gutschrift";"Arbeitgeber GmbH";"Gehalt";"DE00";"";"2.500,00";"";"";"";\n};
    $res = preview('dave', $dkb, { date => 'Buchungstag', description => 'Auftraggeber / Beguenstigter',
                                   amount => 'Betrag (EUR)', date_format => 'DD.MM.YYYY' });
    is($res->{status}, 200, 'a DKB export with account details above the header') or diag($res->{content});
    is_deeply(brief($res->{json}{rows} // []), [[7, '2025-01-15', 'REWE Markt GmbH', '-45.67'],
                                                [8, '2025-01-14', 'Arbeitgeber GmbH', '2500.00']],
              'its two rows, from the line after the header');
    is_deeply(errors_of($res->{json}{rows} // []), [0, 0], 'neither flagged');
    is(($res->{json}{columns} // [])->[0], 'Buchungstag', 'the columns are the header line\'s');
    my $bofa = qq{Description,,Summary Amt.\nBeginning balance as of 01/01/2025,,"1,000.00"\n}
        . qq{Total credits,,"2,500.00"\nTotal debits,,"-45.67"\nEnding balance as of 01/31/2025,,"3,454.33"\n\n}
        . qq{Date,Description,Amount,Running Bal.\n01/15/2025,REWE,-45.67,954.33\n01/14/2025,Payroll,"2,500.00","3,454.33"\n};
    $res = preview('dave', $bofa, $NAMED);
    is_deeply(brief($res->{json}{rows} // []), [[8, '2025-01-15', 'REWE', '-45.67'], [9, '2025-01-14', 'Payroll', '2500.00']],
              'Bank of America: the summary above (a "Description" in it too) is not the header')
        or diag($res->{content});
    is($res->{json}{detected}{header_line}, 7, 'detected.header_line: the line the search found');

    # mapping.skip_lines: the lines above the table, for a client that maps
    # by index (the web client does, with a header) and so cannot have the
    # header found by its names.  Without it the preamble's first line was
    # the header and every real row "has 12 fields where the file has 3".
    my $BY_INDEX = { date => 0, description => 3, amount => 7, has_header => JSON::PP::true,
                     delimiter => ';', date_format => 'DD.MM.YYYY' };
    $res = preview('dave', $dkb, $BY_INDEX);
    like(($res->{json}{rows} // [])->[-1]{errors}[0] // '', qr/12 fields where the file has 3/,
         'DKB by index: without skip_lines the first line is the header');
    $res = preview('dave', $dkb, { %$BY_INDEX, skip_lines => 5 });
    is($res->{status}, 200, 'DKB by index with skip_lines 5') or diag($res->{content});
    is_deeply(brief($res->{json}{rows} // []), [[7, '2025-01-15', 'REWE Markt GmbH', '-45.67'],
                                                [8, '2025-01-14', 'Arbeitgeber GmbH', '2500.00']],
              'skip_lines: the two rows, with their lines in the file');
    is_deeply(errors_of($res->{json}{rows} // []), [0, 0], 'skip_lines: neither flagged');
    is(($res->{json}{columns} // [])->[0], 'Buchungstag', 'skip_lines: the columns are the header line\'s');
    is($res->{json}{detected}{header_line}, 6, 'skip_lines: detected.header_line is 6');
    $res = preview('dave', $dkb, { %$BY_INDEX, skip_lines => 5, has_header => undef, delimiter => undef });
    is_deeply([$res->{json}{detected}{delimiter}, $res->{json}{detected}{has_header}, scalar @{ $res->{json}{rows} // [] }],
              [';', JSON::PP::true, 2], 'skip_lines: the delimiter and the header guessed from the lines after them');
    $res = preview('dave', $dkb, { date => 'Buchungstag', description => 'Auftraggeber / Beguenstigter',
                                   amount => 'Betrag (EUR)', skip_lines => 3 });
    is_deeply([map { $_->{line} } @{ $res->{json}{rows} // [] }], [7, 8], 'skip_lines with names: the header is found after them');
    is($res->{json}{detected}{header_line}, 6, 'and reported');
    $res = preview_raw('dave', 'date=0&description=3&amount=7&has_header=true&skip_lines=5', $dkb);
    is_deeply(brief($res->{json}{rows} // []), [[7, '2025-01-15', 'REWE Markt GmbH', '-45.67'],
                                                [8, '2025-01-14', 'Arbeitgeber GmbH', '2500.00']],
              'skip_lines=5 in the query (a text/csv body)') or diag($res->{content});
    is($res->{json}{detected}{header_line}, 6, 'the query form reports the header line');
    $res = preview('dave', $dkb, { %$BY_INDEX, skip_lines => 0 });
    is($res->{json}{detected}{header_line}, 1, 'skip_lines 0 is the default');
    $res = preview('dave', "03/01/2025,Coffee,-4.50\n", { date => 0, description => 1, amount => 2 });
    ok(exists $res->{json}{detected}{header_line} && !defined $res->{json}{detected}{header_line},
       'detected.header_line is null without a header') or diag($res->{content});

    # Validation, as the other mapping keys.
    for my $bad ([-1, 'negative'], [1001, 'over 1000'], ['5', 'a string'], [2.5, 'not whole'],
                 [JSON::PP::true, 'a boolean']) {
        error_is(preview('dave', $dkb, { %$BY_INDEX, skip_lines => $bad->[0] }),
                 400, 'invalid_field', "skip_lines $bad->[1]", 'mapping.skip_lines');
    }
    error_is($rig->request('POST', '/api/import/csv/preview', user => 'dave', type => 'application/json',
                           body => '{"csv":"a,b\\n1,2\\n","mapping":{"date":0,"amount":1,"skip_lines":1e0}}'),
             400, 'invalid_field', 'skip_lines 1e0', 'mapping.skip_lines');
    for my $q ('-1', '1001', 'five', '5.0') {
        error_is(preview_raw('dave', "date=0&amount=7&skip_lines=$q", $dkb),
                 400, 'invalid_field', "skip_lines=$q in the query", 'mapping.skip_lines');
    }
    # Past the end of the file: a 400 naming the mapping, not an empty preview
    # (the mapping is wrong, and an empty preview would look like an empty file).
    error_is(preview('dave', $dkb, { %$BY_INDEX, skip_lines => 9 }), 400, 'invalid_field',
             'skip_lines past the end of the file', 'mapping.skip_lines');
    like(preview('dave', $dkb, { %$BY_INDEX, skip_lines => 20 })->{json}{error}{message} // '',
         qr/the file has only 8 lines/, 'its message says how many lines the file has');
    error_is(preview('dave', "Date,Amount\n03/01/2025,1\n\n\n", { date => 'Date', amount => 'Amount', skip_lines => 2 }), 400,
             'invalid_field', 'skip_lines leaving only blank lines', 'mapping.skip_lines');
}

# A blank line and a lone CR (old Mac exports) keep line numbers right; a short row is an error.
$res = preview('dave', "Date,Description,Amount\r03/01/2025,a,4.50 DR\r\r04/01/2025,b,4.50 CR\r05/01/2025,short\r", $NAMED);
is_deeply(brief($res->{json}{rows}), [[2, '2025-01-03', 'a', '-4.50'], [4, '2025-01-04', 'b', '4.50'], [5, '2025-01-05', 'short', undef]],
          'lone CR lines, a blank line skipped, DR/CR suffixes');
like($res->{json}{rows}[2]{errors}[0] // '', qr/Amount/, 'a short row names the missing column');

# Windows-1252 bytes (only as text/csv: JSON must be UTF-8).
$res = preview_raw('dave', 'date=Date&description=Description&amount=Amount',
                   "Date,Description,Amount\n03/01/2025,Caf\xe9 cr\xe8me,-4.50\n");
is($res->{json}{detected}{encoding}, 'windows-1252', 'a non-UTF-8 file is read as Windows-1252');
# (Rig decodes JSON without ->utf8: strings hold the UTF-8 bytes.)
is($res->{json}{rows}[0]{description}, "Caf\xc3\xa9 cr\xc3\xa8me", 'and converted to UTF-8');

# The encoding, for the code pages the guess cannot tell apart: in the
# query, or as the text/csv body's charset (the query's wins).
my $hu = "Date,Description,Amount\n03/01/2025,F\xd5V\xc1ROSI V\xcdZM\xdbVEK,-4.50\n";
my $hu_utf8 = "F\xc5\x90V\xc3\x81ROSI V\xc3\x8dZM\xc5\xb0VEK";
$res = preview_raw('dave', 'date=Date&description=Description&amount=Amount&encoding=windows-1250', $hu);
is($res->{json}{detected}{encoding}, 'windows-1250', 'encoding=windows-1250 in the query is used');
is($res->{json}{rows}[0]{description}, $hu_utf8, 'and its letters are the Hungarian ones');
$res = preview_raw('dave', 'date=Date&description=Description&amount=Amount', $hu,
                   'text/csv; charset="windows-1250"');
is($res->{json}{rows}[0]{description}, $hu_utf8, "the body's charset parameter is used");
$res = preview_raw('dave', 'date=Date&description=Description&amount=Amount&encoding=latin1', $hu,
                   'text/csv; charset=windows-1250');
is($res->{json}{detected}{encoding}, 'windows-1252', "the query's encoding wins over the charset");
error_is(preview_raw('dave', 'date=Date&description=Description&amount=Amount', $hu,
                     'text/csv; charset=koi8-r'),
         415, 'unsupported_media_type', 'a charset not read here is a 415');
error_is(preview_raw('dave', 'date=Date&description=Description&amount=Amount&encoding=ebcdic', $hu),
         400, 'invalid_field', 'an encoding not read here is a 400 naming it', 'mapping.encoding');
error_is(preview('dave', "Date,Description,Amount\n03/01/2025,Cafe,1\n",
                 { date => 'Date', description => 'Description', amount => 'Amount',
                   encoding => 'windows-1250' }),
         400, 'invalid_field', "a JSON body's csv is text: a code page is refused", 'mapping.encoding');
$res = preview('dave', "Date,Description,Amount\n03/01/2025,Cafe,1\n",
               { date => 'Date', description => 'Description', amount => 'Amount', encoding => 'UTF-8' });
is($res->{status}, 200, 'a JSON body may say utf-8');

# ---- preview: a text/csv body with the mapping in the query ------------------------------
$res = preview_raw('dave', 'date=Date&description=Description&amount=Amount&has_header=true', $export);
is($res->{status}, 200, 'a text/csv body with the mapping as query parameters');
is_deeply(brief($res->{json}{rows}), brief($p->{rows}), 'the same rows as the JSON body');
is_deeply($res->{json}{detected}, $p->{detected}, 'and the same detection');
$res = preview_raw('dave', 'date=0&amount=1&description=2&has_header=false&negate=true', "03/01/2025,-4.50,x\n",
                   'text/csv; charset=utf-8');
is_deeply(brief($res->{json}{rows} // []), [[1, '2025-01-03', 'x', '4.50']], 'indexes, has_header=false and negate=true in the query');
$res = preview_raw('dave', 'date=0&amount=1&description=2&delimiter=tab', "03/01/2025\t-4.50\tx\n");
is_deeply(brief($res->{json}{rows} // []), [[1, '2025-01-03', 'x', '-4.50']], 'delimiter=tab in the query');
error_is(preview_raw('dave', 'date=Date&amount=Amount&has_header=maybe', "Date,Amount\n03/01/2025,1\n"),
         400, 'invalid_field', 'has_header must be true or false (named as the other mapping keys are)',
         'mapping.has_header');
error_is(preview_raw('dave', 'date=Date&amount=Amount&negate=yes', "Date,Amount\n03/01/2025,1\n"),
         400, 'invalid_field', 'negate must be true or false', 'mapping.negate');
error_is(preview_raw('dave', '', "Date,Amount\n03/01/2025,1\n"), 400, 'invalid_field',
         'a text/csv body without a mapping', 'mapping.date');
is(preview_raw('dave', 'date=Date&amount=Amount', '')->{status}, 400, 'an empty text/csv body is a 400');

# ---- preview: mapping and file errors --------------------------------------------------
error_is(preview('dave', $export, { date => 'Date', description => 'Memo', amount => 'Amount' }),
         400, 'invalid_field', 'a column that does not exist', 'mapping.description');
error_is(preview('dave', $export, { date => 'When', description => 'Description', amount => 'Amount' }),
         400, 'invalid_field', 'a date column that does not exist', 'mapping.date');
error_is(preview('dave', "03/01/2025,-1.00,a\n", { date => 0, amount => 5, description => 2 }),
         400, 'invalid_field', 'an index past the last column', 'mapping.amount');
error_is(preview('dave', $export, { date => 'Date', description => 'Description' }),
         400, 'invalid_field', 'neither amount nor debit+credit', 'mapping.amount');
error_is(preview('dave', $export, { date => 'Date', description => 'Description', debit => 'Amount' }),
         400, 'invalid_field', 'debit without credit', 'mapping.credit');
error_is(preview('dave', $export, { %$NAMED, debit => 'Amount', credit => 'Amount' }),
         400, 'invalid_field', 'amount and debit+credit at once', 'mapping.amount');
error_is(preview('dave', $export, { description => 'Description', amount => 'Amount' }),
         400, 'invalid_field', 'no date column', 'mapping.date');
error_is(preview('dave', $export, { %$NAMED, date_format => 'QQ/QQ' }),
         400, 'invalid_field', 'an unknown date_format', 'mapping.date_format');
error_is($rig->post('/api/import/csv/preview', { csv => $export }, user => 'dave'),
         400, 'invalid_field', 'no mapping at all', 'mapping');
# A wrong JSON type inside the mapping names that member, as every other
# mapping error does.
error_is(preview('dave', $export, { %$NAMED, has_header => 'yes' }),
         400, 'invalid_field', 'mapping.has_header of the wrong type', 'mapping.has_header');
error_is(preview('dave', $export, { %$NAMED, date => -1 }),
         400, 'invalid_field', 'a negative index', 'mapping.date');
error_is(preview('dave', '', $NAMED), 400, 'invalid_field', 'an empty csv', 'csv');
error_is(preview('dave', "\r\n \r\n,,\r\n", $NAMED), 400, 'invalid_field', 'a csv of blank lines', 'csv');
error_is(preview('dave', "hello world\nthis is prose\n", $NAMED), 400, 'invalid_field', 'not CSV at all', 'csv');
error_is(preview('dave', "<html><body>a,b</body></html>\n", $NAMED), 400, 'invalid_field', 'HTML', 'csv');
error_is(preview('dave', "Date,Description,Amount\n03/01/2025,\"open,1.00\n04/01/2025,b,1\n", $NAMED),
         400, 'invalid_field', 'a quote never closed', 'csv');
error_is(preview('dave', 42, $NAMED), 400, 'invalid_field', 'csv of the wrong type (a number)', 'csv');
error_is($rig->post('/api/import/csv/preview', { mapping => $NAMED }, user => 'dave'),
         400, 'invalid_field', 'csv missing', 'csv');
error_is($rig->request('POST', '/api/import/csv/preview', user => 'dave', body => 'csv=a&date=Date',
                       type => 'application/x-www-form-urlencoded'),
         415, 'unsupported_media_type', 'a form body');
error_is($rig->request('POST', '/api/import/csv/preview', user => 'dave', body => '[1]',
                       type => 'application/json'),
         400, 'invalid_json', 'a JSON array');

# The decimal mark is reported as a guess; a client can correct it like the
# delimiter and the date format ("1.234" is 1234 in a European file).
$res = preview('dave', "Datum;Omschrijving;Bedrag\n2025-01-03;Miete;-1.234\n",
               { date => 'Datum', description => 'Omschrijving', amount => 'Bedrag', decimal => ',' });
is_deeply(brief($res->{json}{rows} // []), [[2, '2025-01-03', 'Miete', '-1234.00']],
          'mapping.decimal "," overrides the guessed decimal mark');

# ---- a preview writes nothing ----------------------------------------------------------
is(total('dave'), $before_total, 'previews wrote no rows');
is(csv_tag('dave'), undef, 'nor a csv-import tag');

# ---- commit ----------------------------------------------------------------------------------
my @good = grep { !@{ $_->{errors} } } @{ $p->{rows} };
is(scalar @good, 5, 'five good rows in the export');
$res = commit('alice', \@good);
is($res->{status}, 201, 'the good preview rows commit as they are (line, errors, duplicate_of included)')
    or diag($res->{content});
my $c = $res->{json};
ok($c->{import_id} > 0, 'an import id');
is($c->{imported}, 5, 'imported 5');
is($c->{skipped_duplicates}, 0, 'skipped none');
is(scalar @{ $c->{transaction_ids} }, 5, 'five transaction ids');
is(total('alice'), 5, 'five rows listed');
my @rows = map { txn('alice', $_) } @{ $c->{transaction_ids} };
is_deeply([map { [$_->{date}, $_->{description}, m2($_->{amount}), $_->{transaction_type}] } @rows], [
    ['2025-01-03', 'Cafe Nero, Sydney', '4.50', 'debit'],
    ['2025-01-04', 'Salary ACME Pty Ltd', '1234.56', 'credit'],
    ['2025-01-05', 'Refund from shop', '12.00', 'credit'],
    ['2025-01-06', 'Account fee', '2.50', 'debit'],
    ['2025-01-13', 'Woolworths', '0.99', 'debit'],
], 'the rows as previewed, amounts as magnitudes');
is_deeply([map { [$_->{statement_id}, $_->{bank_name}, $_->{owner_id}] } @rows],
          [([undef, 'Manual', $uid{alice}]) x 5], "manual rows (statement_id null, bank Manual) of the caller");
is_deeply([map { join ',', map { $_->{name} } @{ $_->{tags} } } @rows], [('csv-import') x 5], 'each tagged csv-import only');
is(usage('alice'), 5, 'GET /api/tags: csv-import used 5 times');
is($rig->get('/api/transactions?bank_names=Manual&exclude_categories=', user => 'alice')->{json}{total}, 5,
   'listed under bank Manual');
my $tag_id = csv_tag('alice')->{id};
is($rig->get("/api/transactions?tag_ids=$tag_id&exclude_categories=", user => 'alice')->{json}{total}, 5,
   'and under the csv-import tag');

# ---- duplicates ----------------------------------------------------------------------------
$res = preview('alice', $export, $NAMED);
my %dup = map { $_->{line} => $_->{duplicate_of} } @{ $res->{json}{rows} };
is_deeply([@dup{2, 3, 5, 6, 10}], $c->{transaction_ids}, 'after the commit each row is a duplicate of the row it made');
is_deeply([@dup{7, 8, 9}], [undef, undef, undef], 'bad rows are never duplicates');
# A refund of the same amount the same day is not a duplicate of a debit;
# another description, day or amount is not one either.
$res = preview('alice', "Date,Description,Amount\n03/01/2025,\"Cafe Nero, Sydney\",4.50\n"
               . "03/01/2025,Cafe Nero,-4.50\n04/01/2025,\"Cafe Nero, Sydney\",-4.50\n03/01/2025,\"Cafe Nero, Sydney\",-4.51\n"
               . "03/01/2025,\"Cafe Nero, Sydney\",-4.50\n", $NAMED);
is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }], [undef, undef, undef, undef, $c->{transaction_ids}[0]],
          'money in vs out, description, date and amount all tell rows apart');
# The same rows again: all skipped, nothing written.
$res = commit('alice', \@good);
is($res->{status}, 200, 'committing the same rows again: 200, no new import');
is_deeply([@{ $res->{json} }{qw(import_id imported skipped_duplicates)}, $res->{json}{transaction_ids}],
          [undef, 0, 5, []], 'imported 0, skipped 5');
is(total('alice'), 5, 'still five rows');
is(usage('alice'), 5, 'still five tagged');
# allow_duplicates imports them again.
$res = commit('alice', \@good, allow_duplicates => JSON::PP::true);
is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [5, 0], 'allow_duplicates: imported again');
ok(!grep({ my $n = $_; grep { $_ == $n } @{ $c->{transaction_ids} } } @{ $res->{json}{transaction_ids} }),
   'as new rows');
isnt($res->{json}{import_id}, $c->{import_id}, 'in a new import');
is(total('alice'), 10, 'ten rows');
is(usage('alice'), 10, 'csv-import used 10 times');
# A refund committed beside the debit of the same amount and day is imported.
$res = commit('alice', [{ date => '2025-01-03', description => 'Cafe Nero, Sydney', amount => 4.5,
                          transaction_type => 'refund' }]);
is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [1, 0], 'a refund is not a duplicate of the debit');
# A statement row of the caller's counts as an existing row.
$res = $rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Everyday Account',
                                       period_start => '2025-03-01', period_end => '2025-03-31',
                                       transactions => [{ date => '2025-03-10', description => 'BP FUEL',
                                                          amount => 60, transaction_type => 'debit' }] },
                  user => 'alice');
is($res->{status}, 201, 'alice has a statement');
my ($srow) = @{ $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items} };
$res = preview('alice', "Date,Description,Amount\n10/03/2025,BP FUEL,-60.00\n", $NAMED);
is($res->{json}{rows}[0]{duplicate_of}, $srow->{id}, "a statement row of the caller's is a duplicate too");
# A line imported, then reconciled with its statement row, is hidden but
# still there: importing the file again must not bring the spend back.
$res = commit('alice', [{ date => '2025-03-12', description => 'Woolies Bondi', amount => 45 }]);
my $wool = $res->{json}{transaction_ids}[0];
$res = $rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Everyday Account',
                                       period_start => '2025-03-01', period_end => '2025-03-31',
                                       transactions => [{ date => '2025-03-13', description => 'WOOLWORTHS 1234',
                                                          amount => 45, transaction_type => 'debit' }] },
                  user => 'alice');
my ($wrow) = @{ $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items} };
is($rig->post('/api/reconcile', { matches => [{ manual_id => $wool, statement_transaction_id => $wrow->{id} }] },
              user => 'alice')->{status}, 200, 'the imported line is reconciled with its statement row');
$res = preview('alice', "Date,Description,Amount\n12/03/2025,Woolies Bondi,-45.00\n", $NAMED);
is($res->{json}{rows}[0]{duplicate_of}, $wrow->{id},
   'previewed again, it is a duplicate of the statement row it was reconciled with');
$res = commit('alice', $res->{json}{rows});
is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [0, 1], 'and committing it again skips it');

# A file of 200 lines or more is checked in one pass over the caller's
# rows (csv_import.c): the same answers as line by line.  300 coffees at
# the same price on 300 days, imported; then the same file with a refund
# of one of them and 5 new lines: each old line names its row, the refund
# and the new lines none.  Imported again with allow_duplicates, the old
# lines still name the first copies (the lowest ids).
{
    my (@file, @rows);
    for my $i (0 .. 299) {
        my ($y, $d) = (2023 + int($i / 200), $i % 200);
        my $date = sprintf('%04d-%02d-%02d', $y, 1 + int($d / 28), 1 + $d % 28);
        push @rows, { date => $date, description => 'Coffee at Bean', amount => 4.5 };
        push @file, sprintf('%02d/%02d/%04d,Coffee at Bean,-4.50', 1 + $d % 28, 1 + int($d / 28), $y);
    }
    $res = commit('alice', \@rows);
    is($res->{json}{imported}, 300, '300 coffees imported');
    my @first = @{ $res->{json}{transaction_ids} };
    my $csv = "Date,Description,Amount\n" . join("\n", @file, '01/01/2023,Coffee at Bean,4.50',
              map({ sprintf('%02d/09/2024,Tea at Leaf %d,-3.00', $_, $_) } 1 .. 5)) . "\n";
    $res = preview('alice', $csv, $NAMED);
    my @dup = map { $_->{duplicate_of} } @{ $res->{json}{rows} // [] };
    is(scalar @dup, 306, '306 lines previewed');
    is_deeply([@dup[0 .. 299]], \@first, 'each old line names the row it made');
    is_deeply([@dup[300 .. 305]], [(undef) x 6], 'the refund and the new lines name none');
    $res = commit('alice', \@rows, allow_duplicates => JSON::PP::true);
    is($res->{json}{imported}, 300, 'imported again with allow_duplicates');
    $res = preview('alice', $csv, $NAMED);
    is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }[0 .. 299]], \@first,
              'the old lines still name the first copies');
    $res = commit('alice', [ @rows, { date => '2024-09-01', description => 'Tea at Leaf 1', amount => 3 } ]);
    is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [1, 300],
              'committed once more: the 300 are skipped, the new line imported');
}

# Two identical purchases in one file (two coffees the same day) are both
# real: the preview shows neither as a duplicate, so the commit imports both.
$res = preview('alice', "Date,Description,Amount\n20/01/2025,Coffee,-4.00\n20/01/2025,Coffee,-4.00\n", $NAMED);
is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }], [undef, undef], 'two identical rows: neither is a duplicate');
$res = commit('alice', $res->{json}{rows});
is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [2, 0],
          'and the commit imports both, as the preview said');
my @two = sort { $a <=> $b } @{ $res->{json}{transaction_ids} // [] };
# A later export of the day has a third: one stored row stands for one
# line, so the first two lines are the two rows (each its own) and the
# third is new; line by line and in the one pass of a long file alike.
{
    my $three = "Date,Description,Amount\n" . "20/01/2025,Coffee,-4.00\n" x 3;
    $res = preview('alice', $three, $NAMED);
    is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }], [@two, undef],
              'three same lines, two stored: each of the two named once, the third new');
    my $long = $three . join('', map { sprintf("%02d/03/2025,Long file line %d,-1.00\n", 1 + $_ % 28, $_) } 1 .. 220);
    $long =~ s/^Date,Description,Amount\n//;
    $res = preview('alice', "Date,Description,Amount\n$long", $NAMED);
    is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }[0 .. 2]], [@two, undef],
              'so in a file of 223 lines (the one pass)');
    $res = commit('alice', [ map { { date => '2025-01-20', description => 'Coffee', amount => 4 } } 1 .. 3 ]);
    is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [1, 2], 'the commit imports the third alone');
}

# ---- commit: edited rows, categories, defaults ---------------------------------------------
$res = preview('alice', "Date,Description,Amount\n01/02/2025,Dinner at Mamak,-56.00\n02/02/2025,Card repayment,500.00\n"
               . "03/02/2025,Gym,-20.00\n04/02/2025,Coles,-80.00\n", $NAMED);
my @edit = @{ $res->{json}{rows} };
$edit[0]{category} = 'Dining';
$edit[0]{payment_method} = 'card';
$edit[1]{category} = 'payment';
$edit[1]{transaction_type} = 'payment';
$edit[2]{category} = 'Personal Care';
$edit[2]{description} = 'Gym membership';
$edit[3]{merchant} = 'Coles';
$edit[3]{category} = 'groceries';
$res = commit('alice', \@edit);
is($res->{status}, 201, 'edited preview rows commit') or diag($res->{content});
@rows = map { txn('alice', $_) } @{ $res->{json}{transaction_ids} // [] };
is_deeply([map { $_->{category} } @rows], [qw(dining transfers personal_care groceries)],
          'categories folded: Dining -> dining, payment -> transfers, Personal Care -> personal_care');
is($rows[0]{payment_method}, 'card', 'payment_method kept');
is($rows[1]{transaction_type}, 'payment', 'an edited transaction_type kept');
is($rows[2]{description}, 'Gym membership', 'an edited description kept');
# refund as a category becomes the merchant's usual one.
$res = commit('alice', [{ date => '2025-02-05', description => 'Coles refund', amount => 10,
                          transaction_type => 'refund', merchant => 'Coles', category => 'refund' },
                        { date => '2025-02-05', description => 'Odd shop refund', amount => 3,
                          transaction_type => 'refund', merchant => 'Odd Shop', category => 'refund' }]);
is_deeply([map { txn('alice', $_)->{category} } @{ $res->{json}{transaction_ids} // [] }], [qw(groceries other)],
          "refund -> the merchant's usual category, else other");
# transaction_type is optional: debit.
$res = commit('alice', [{ date => '2025-02-06', description => 'No type', amount => 1 }]);
is(txn('alice', $res->{json}{transaction_ids}[0])->{transaction_type}, 'debit', 'a row without transaction_type is a debit');

# ---- commit: all or nothing -------------------------------------------------------------------
# erin has never imported: a refused batch must not even leave the tag.
my $ok_row = { date => '2025-04-01', description => 'Good row', amount => 10, transaction_type => 'debit' };
my @bad = (
    [{ %$ok_row, date => '2025-02-30' }, 'date', 'a day February does not have'],
    [{ %$ok_row, date => '01/04/2025' }, 'date', 'a date not YYYY-MM-DD'],
    [{ %$ok_row, date => undef }, 'date', 'a date null (a bad preview row)'],
    [{ %$ok_row, amount => -5 }, 'amount', 'a negative amount'],
    [{ %$ok_row, amount => 1.234 }, 'amount', 'three decimals'],
    [{ %$ok_row, amount => undef }, 'amount', 'an amount null (a bad preview row)'],
    [{ %$ok_row, transaction_type => 'purchase' }, 'transaction_type', 'an unknown transaction_type'],
    [{ map { $_ => $ok_row->{$_} } qw(date amount transaction_type) }, 'description', 'description missing'],
    [{ %$ok_row, payment_method => 'bogus' }, 'payment_method', 'payment_method bogus'],
    [{ %$ok_row, category => 42 }, 'category', 'a category of the wrong type'],
);
for my $b (@bad) {
    my ($row, $field, $what) = @$b;
    error_is(commit('erin', [$ok_row, { %$ok_row, description => 'Second' }, $row]),
             400, 'invalid_field', "a batch with $what", "rows[2].$field");
}
error_is(commit('erin', [$ok_row, 'not a row']), 400, 'invalid_field', 'a row that is not an object', 'rows[1]');
error_is(commit('erin', {}), 400, 'invalid_field', 'rows not an array', 'rows');
error_is(commit('erin', []), 400, 'invalid_field', 'rows empty', 'rows');
error_is($rig->post('/api/import/csv/commit', { allow_duplicates => JSON::PP::true }, user => 'erin'),
         400, 'invalid_field', 'rows missing', 'rows');
error_is(commit('erin', [$ok_row], allow_duplicates => 'yes'), 400, 'invalid_field',
         'allow_duplicates not a boolean', 'allow_duplicates');
error_is($rig->request('POST', '/api/import/csv/commit', user => 'erin', body => "date,amount\n2025-01-01,1\n",
                       type => 'text/csv'), 415, 'unsupported_media_type', 'commit takes JSON only');
is(total('erin'), 0, 'refused batches wrote no rows');
is(csv_tag('erin'), undef, 'nor the csv-import tag');
# The whole preview of a file with bad rows cannot be committed as is.
error_is(commit('alice', $p->{rows}, allow_duplicates => JSON::PP::true), 400, 'invalid_field',
         'the preview with its bad rows', 'rows[4].date');
my ($alice_total, $alice_usage) = (total('alice'), usage('alice'));
error_is(commit('alice', [$ok_row, { %$ok_row, amount => -1 }]), 400, 'invalid_field',
         'a bad second row', 'rows[1].amount');
is(total('alice'), $alice_total, "alice's list total unchanged");
is(usage('alice'), $alice_usage, "alice's csv-import usage unchanged");
error_is(commit('alice', [$ok_row, { %$ok_row, description => 'AUD row', amount_aud => 99 }]), 400, 'invalid_field',
         'a home-currency row with another amount_aud', 'rows[1].amount_aud');
is(total('alice'), $alice_total, 'nothing written');

# A row in another currency counts at its home amount, as a manual row
# does: given, or amount x exchange_rate_to_aud (the rate was dropped and
# 10 EUR counted as 10 AUD).
{
    my $res = commit('carol', [ { date => '2025-06-10', description => 'Museum in Paris', amount => 10,
                                 currency => 'eur', exchange_rate_to_aud => 1.65 },
                               { date => '2025-06-11', description => 'Bistro in Paris', amount => 20,
                                 currency => 'EUR', amount_aud => 33.4 } ]);
    is($res->{status}, 201, 'a commit of two EUR rows') or diag($res->{content});
    my %row = map { $_->{description} => $_ }
              @{ $rig->get('/api/transactions?date_from=2025-06-01&date_to=2025-06-30', user => 'carol')->{json}{items} // [] };
    is_deeply([ map { [ $_->{currency}, sprintf('%.2f', $_->{amount_aud} // -1), sprintf('%.2f', $_->{my_amount}) ] }
                @row{'Museum in Paris', 'Bistro in Paris'} ],
              [ [ 'EUR', '16.50', '16.50' ], [ 'EUR', '33.40', '33.40' ] ],
              'EUR 10 at 1.65 is 16.50 at home; EUR 20 stated as 33.40');
    my $m = $rig->get('/api/analytics/monthly?from=2025-06&to=2025-06', user => 'carol')->{json};
    is(sprintf('%.2f', $m->{items}[0]{total} // -1), '49.90', "June's spend counts the home amounts, 49.90");
}

# A row the preview passes is one the commit takes: an empty description
# (or a file without a description column) either carries an error in the
# preview or is accepted by the commit.
for my $case (["Date,Description,Amount\n03/01/2025,,-4.50\n", $NAMED, 'an empty description cell'],
              ["Date,Amount\n04/01/2025,-4.50\n", { date => 'Date', amount => 'Amount' }, 'no description column'],
              ["Date,Description,Amount\n05/01/2025," . ('x' x 1500) . ",-4.50\n", $NAMED, 'a 1500-byte description']) {
    my ($csv, $map, $what) = @$case;
    $res = preview('erin', $csv, $map);
    my $flagged = @{ $res->{json}{rows}[0]{errors} // [] };
    my $taken = !$flagged && commit('erin', $res->{json}{rows})->{status} == 201;
    ok($flagged || $taken, "$what: flagged in the preview or accepted by the commit");
}

# ---- the csv-import tag is the service's ---------------------------------------------------------
error_is($rig->post('/api/tags', { name => 'csv-import' }, user => 'carol'), 400, 'invalid_field',
         'a user cannot create a tag named csv-import', 'name');
error_is($rig->post('/api/tags', { name => 'CSV-Import' }, user => 'carol'), 400, 'invalid_field',
         'in any case', 'name');
my $carol_tag = $rig->post('/api/tags', { name => 'mine' }, user => 'carol')->{json};
error_is($rig->patch("/api/tags/$carol_tag->{id}", { name => 'csv-import' }, user => 'carol'), 400,
         'invalid_field', 'nor rename a tag of their own to csv-import', 'name');
my $alice_tag = $rig->post('/api/tags', { name => 'other' }, user => 'alice')->{json};
error_is($rig->patch("/api/tags/$alice_tag->{id}", { name => 'csv-import' }, user => 'alice'), 400,
         'invalid_field', 'nor rename one to csv-import beside the real one', 'name');
error_is($rig->patch("/api/tags/$tag_id", { name => 'imported' }, user => 'alice'), 400, 'invalid_field',
         'the csv-import tag cannot be renamed', 'name');

# ---- presets ------------------------------------------------------------------------------------
# Each preset's sample line is a header (then two data rows are built under
# it) or a data line (then it is the first row and two more are built in
# its shape).  Every row must read with the right date and signed amount.
my $presets = Rig::srcdir() . '/contrib/csv-presets';
my @preset_files = sort glob("$presets/*.json");
ok(@preset_files >= 8, 'the presets are there');

sub split_line {   # a CSV line into [text, quoted] fields
    my ($l) = @_;
    my @f;
    while ($l =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|$)/gc) {
        push @f, defined $1 ? [$1 =~ s/""/"/gr, 1] : [$2, 0];
        last if $3 eq '';
    }
    return @f;
}
sub join_line { join ',', map { $_->[1] || $_->[0] =~ /[,"]/ ? '"' . ($_->[0] =~ s/"/""/gr) . '"' : $_->[0] } @_ }
my @MON = qw(Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec);
sub date_as {
    my ($fmt, $y, $m, $d) = @_;
    $fmt //= 'DD/MM/YYYY';
    return sprintf('%02d/%02d/%04d', $d, $m, $y) if $fmt eq 'DD/MM/YYYY';
    return sprintf('%02d/%02d/%04d', $m, $d, $y) if $fmt eq 'MM/DD/YYYY';
    return sprintf('%04d-%02d-%02d', $y, $m, $d) if $fmt eq 'YYYY-MM-DD';
    return sprintf('%d %s %04d', $d, $MON[$m - 1], $y) if $fmt eq 'D MMM YYYY';
    return undef;
}
sub date_from {
    my ($fmt, $s) = @_;
    $fmt //= 'DD/MM/YYYY';
    return sprintf('%04d-%02d-%02d', $3, $2, $1) if $fmt eq 'DD/MM/YYYY' && $s =~ m{^(\d\d?)/(\d\d?)/(\d{4})$};
    return sprintf('%04d-%02d-%02d', $3, $1, $2) if $fmt eq 'MM/DD/YYYY' && $s =~ m{^(\d\d?)/(\d\d?)/(\d{4})$};
    return $s if $fmt eq 'YYYY-MM-DD';
    return undef;
}
sub money_from { my $s = $_[0] =~ s/[\$,+\s]//gr; m2($s) }

for my $file (@preset_files) {
    (my $name = $file) =~ s{.*/}{};
    my $preset = JSON::PP->new->decode(Rig::slurp($file));
    my $m = $preset->{mapping};
    # A preset made for files of the bank corpus is tested against them
    # (t/0088-bank-csv.t).
    next if $preset->{corpus};
    my $fmt = $m->{date_format};
    my $flip = $m->{negate} ? -1 : 1;
    my @data = ([2025, 1, 14, 'PRESET ROW ONE', '-12.34'], [2025, 2, 3, 'PRESET ROW TWO', '1234.56']);
    ok(defined date_as($fmt, 2025, 1, 1), "$name: the test knows its date format") or next;
    my (@lines, @want);
    my @sample = split_line($preset->{sample});
    if ($m->{has_header}) {
        push @lines, $preset->{sample};
        my @names = map { $_->[0] } @sample;
        my %col;
        for my $k (qw(date description amount debit credit)) {
            next unless defined $m->{$k};
            ($col{$k}) = grep { lc $names[$_] eq lc $m->{$k} } 0 .. $#names;
            ok(defined $col{$k}, "$name: the sample header has the $k column '$m->{$k}'");
        }
        for my $d (@data) {
            my ($y, $mo, $day, $desc, $amt) = @$d;
            my @f = map { ['x', 0] } @names;
            $f[$col{date}] = [date_as($fmt, $y, $mo, $day), 0];
            $f[$col{description}] = [$desc, 0] if defined $col{description};
            if (defined $col{amount}) {
                $f[$col{amount}] = [$amt, 0];
            } else {
                $f[$col{debit}] = [$amt < 0 ? sprintf('%.2f', -$amt) : '', 0];
                $f[$col{credit}] = [$amt > 0 ? $amt : '', 0];
            }
            push @lines, join_line(@f);
            push @want, [sprintf('%04d-%02d-%02d', $y, $mo, $day), defined $col{description} ? $desc : '',
                         m2($flip * $amt)];
        }
    } else {
        # The sample is a data row: the first row, and the shape of the others.
        push @lines, $preset->{sample};
        my $s_amt = defined $m->{amount} ? money_from($sample[$m->{amount}][0])
                  : m2(money_from($sample[$m->{credit}][0] || 0) - money_from($sample[$m->{debit}][0] || 0));
        push @want, [date_from($fmt, $sample[$m->{date}][0]),
                     defined $m->{description} ? $sample[$m->{description}][0] : '', m2($flip * $s_amt)];
        for my $d (@data) {
            my ($y, $mo, $day, $desc, $amt) = @$d;
            my @f = map { [@$_] } @sample;
            $f[$m->{date}][0] = date_as($fmt, $y, $mo, $day);
            $f[$m->{description}][0] = $desc if defined $m->{description};
            if (defined $m->{amount}) {
                $f[$m->{amount}][0] = $amt;
            } else {
                $f[$m->{debit}][0] = $amt < 0 ? sprintf('%.2f', -$amt) : '';
                $f[$m->{credit}][0] = $amt > 0 ? $amt : '';
            }
            push @lines, join_line(@f);
            push @want, [sprintf('%04d-%02d-%02d', $y, $mo, $day), defined $m->{description} ? $desc : '',
                         m2($flip * $amt)];
        }
    }
    $res = preview('dave', join("\r\n", @lines) . "\r\n", $m);
    is($res->{status}, 200, "$name: the preset's export previews") or diag($res->{content}), next;
    my $got = $res->{json}{rows};
    is_deeply(errors_of($got), [(0) x @want], "$name: every row reads without errors")
        or diag(explain([map { $_->{errors} } @$got]));
    is_deeply([map { [$_->{date}, $_->{description}, signed($_)] } @$got], \@want,
              "$name: dates, descriptions and signed amounts");
    is($res->{json}{detected}{has_header} ? 1 : 0, $m->{has_header} ? 1 : 0, "$name: header as the preset says");
    is($res->{json}{detected}{date_format}, $fmt, "$name: its date format") if defined $fmt;
}
is(total('dave'), $before_total, 'the preset previews wrote nothing either');

# ---- access --------------------------------------------------------------------------------------
# bob's preview of alice's export finds none of alice's rows; his import is his own.
$res = preview('bob', $export, $NAMED);
is_deeply([map { $_->{duplicate_of} } @{ $res->{json}{rows} }], [(undef) x 8],
          "bob's preview never reports alice's rows as duplicates");
$alice_total = total('alice');
$res = commit('bob', \@good);
is_deeply([@{ $res->{json} }{qw(imported skipped_duplicates)}], [5, 0], "bob imports the same rows as his own");
is_deeply([map { txn('bob', $_)->{owner_id} } @{ $res->{json}{transaction_ids} }], [($uid{bob}) x 5], 'owned by bob');
is(usage('bob'), 5, "bob's csv-import tag counts his rows");
isnt(csv_tag('bob')->{id}, $tag_id, "bob's csv-import tag is his own");
is(total('alice'), $alice_total, "alice's rows are unchanged");
is(txn('alice', $res->{json}{transaction_ids}[0])->{id}, undef, "alice cannot read bob's imported row");
error_is($rig->request('POST', '/api/import/csv/preview', open => 1, json => { csv => $export, mapping => $NAMED }),
         401, 'unauthenticated', 'preview without identity');
error_is($rig->request('POST', '/api/import/csv/preview?date=Date&amount=Amount', open => 1, body => $export,
                       type => 'text/csv'), 401, 'unauthenticated', 'a text/csv preview without identity');
# ---- a refund takes its merchant's usual category, the file's rows included ------------
# dave has no rows at Edge Deli; the file lists a row he already has (a
# duplicate, skipped), then the refund, then two dining rows there: the
# refund is dining (resolved as rows were read, it was other).
{
    my $old = { date => '2025-06-01', description => 'Old lunch', amount => 7, merchant => 'Somewhere' };
    is(commit('dave', [ $old ])->{status}, 201, 'dave has one row');
    my $res = commit('dave', [ $old,
        { date => '2025-06-02', description => 'Deli refund', amount => 4, transaction_type => 'refund',
          merchant => 'Edge Deli', category => 'Refund' },
        { date => '2025-06-03', description => 'Deli lunch', amount => 12, merchant => 'Edge Deli', category => 'Dining' },
        { date => '2025-06-04', description => 'Deli dinner', amount => 30, merchant => 'Edge Deli', category => 'dining' },
        { date => '2025-06-05', description => 'Odd refund', amount => 2, transaction_type => 'refund',
          merchant => 'Nowhere Deli', category => 'refund' } ]);
    is_deeply([ $res->{status}, @{ $res->{json} // {} }{qw(imported skipped_duplicates)} ], [ 201, 4, 1 ],
              'four rows, the duplicate skipped') or diag($res->{content});
    my %by = map { my $t = txn('dave', $_); ($t->{description} => $t->{category}) } @{ $res->{json}{transaction_ids} // [] };
    is_deeply([ @by{'Deli refund', 'Deli lunch', 'Odd refund'} ], [ 'dining', 'dining', 'other' ],
              "the refund before its merchant's rows takes their dining; one at a merchant with none, other");
    my $m = $rig->get('/api/analytics/monthly?from=2025-06&to=2025-06', user => 'dave')->{json}{items}[0] // {};
    is_deeply({ map { $_->{category} => m2($_->{total}) } @{ $m->{categories} // [] } },
              { dining => '38.00', other => '-2.00', uncategorised => '7.00' },
              'spend: dining 12 + 30 - 4, other -2, the old row 7 uncategorised');
}

# ---- commit: duplicates in a large file, limits, money in, categories ---------------------
# A duplicate is the caller's own row (same owner, date, amount and
# description), in a file of 200 lines or more too (the one-pass check);
# a manual row reconciled with a statement row is one purchase with it; a
# payment line is money in; a description is at most 1000 characters,
# amounts are magnitudes, a commit takes up to 100,000 rows; the committed
# row's category is its folded category.
# A large file's duplicates are the caller's own rows.
manual_ok($rig, 'bob', date => '2025-05-05', description => 'Shared Name', amount => 42, transaction_type => 'debit');
{
    my @lines = map { { date => '2025-05-06', description => "Line $_", amount => $_, transaction_type => 'debit' } }
                1 .. 199;
    push @lines, { date => '2025-05-05', description => 'Shared Name', amount => 42, transaction_type => 'debit' };
    my $res = commit('alice', \@lines);
    is($res->{status}, 201, 'alice commits 200 lines (the one-pass duplicate check)') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 200, 0 ],
              "a line like bob's row is no duplicate of alice's: duplicates are the caller's own rows");
    $res = commit('bob', \@lines);
    is_deeply([ $res->{status}, $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 201, 199, 1 ],
              "bob's 200 lines: the one like his own row is skipped");
}

# A reconciled pair is one purchase, in a large file too.
{
    my $m = manual_ok($rig, 'dave', date => '2025-09-01', description => 'Gym Fee', amount => 20, transaction_type => 'debit',
                      payment_method => 'card')->{id};
    ok_json($rig->post('/api/statements', { bank_name => 'Dave Bank', account_type => 'Visa',
        period_start => '2025-09-01', period_end => '2025-09-30',
        transactions => [ { date => '2025-09-01', description => 'Gym Fee', amount => 20, transaction_type => 'debit' } ] },
        user => 'dave'), 'dave: the statement row');
    my ($p) = grep { $_->{transaction}{id} == $m } @{ ok_json($rig->get('/api/reconcile', user => 'dave'), 'list')->{pending} };
    ok_json($rig->post('/api/reconcile', { matches => [ { manual_id => $m, statement_transaction_id => $p->{candidates}[0]{id} } ] },
                       user => 'dave'), 'dave reconciles the manual row with it');
    my $gym = { date => '2025-09-01', description => 'Gym Fee', amount => 20, transaction_type => 'debit' };
    for my $n (200) {
        my @lines = ($gym, $gym, map { { date => '2025-09-02', description => "Dave line $n-$_", amount => $_,
                                          transaction_type => 'debit' } } 1 .. $n - 2);
        my $res = commit('dave', \@lines);
        is_deeply([ $res->{status}, $res->{json}{skipped_duplicates} ], [ 201, 1 ],
                  "$n lines, two like the reconciled pair: one is a duplicate of it, the other a new purchase");
    }
}

# Description length.
{
    my $ok = { date => '2025-10-01', description => 'd' x 1000, amount => 1, transaction_type => 'debit' };
    is(commit('carol', [ $ok ])->{status}, 201, 'a description of exactly 1000 characters is accepted');
    error_is(commit('carol', [ { %$ok, description => 'd' x 1001 } ]), 400, 'invalid_field',
             'a description of 1001 characters', 'rows[0].description');
}

# A payment line is money in.
manual_ok($rig, 'carol', date => '2025-06-01', description => 'Card payment thanks', amount => 250,
       transaction_type => 'payment');
{
    my $res = commit('carol', [ { date => '2025-06-01', description => 'Card payment thanks', amount => 250,
                                  transaction_type => 'payment' } ]);
    is($res->{status}, 200, 'commit a payment line (nothing new: 200)') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 0, 1 ],
              'a payment line (money in) duplicates the existing payment row');
}

# Amount_aud is a magnitude.
{
    my $ok = { date => '2025-07-01', description => 'Euro lunch', amount => 10, currency => 'EUR',
               amount_aud => 16, transaction_type => 'debit' };
    error_is(commit('dave', [ $ok, { %$ok, description => 'Euro dinner', amount_aud => -16 } ]), 400,
             'invalid_field', 'a negative amount_aud: amounts are magnitudes', 'rows[1].amount_aud');
    is($rig->get('/api/transactions?search=Euro', user => 'dave')->{json}{total}, 0, 'and nothing was imported');
}

# Exactly the most rows a commit takes (100,000).
# Rows of nothing: the count passes and the first row is refused (nothing
# is stored, the test stays quick); one more is too many.
{
    my $body = '{"rows":[' . join(',', ('{}') x 100000) . ']}';
    my $r = $rig->request('POST', '/api/import/csv/commit', user => 'erin', body => $body, type => 'application/json');
    is($r->{status}, 400, '100000 rows of nothing: 400');
    like($r->{json}{error}{field} // '', qr/^rows\[0\]/, '... for its first row: 100000 rows are not too many')
        or diag($r->{content});
    $body =~ s/\]\}$/,{}]}/;
    $r = $rig->request('POST', '/api/import/csv/commit', user => 'erin', body => $body, type => 'application/json');
    is_deeply([ $r->{status}, $r->{json}{error}{field} ], [ 400, 'rows' ], '100001 rows: too many');
}

# The committed category.
{
    my $res = commit('erin', [ { date => '2025-08-03', description => 'Bistro', amount => 30, category => 'Dining',
                                 transaction_type => 'debit' } ]);
    is($res->{status}, 201, 'commit a Dining line') or diag($res->{content});
    my $id = $res->{json}{transaction_ids}[0];
    is($rig->get("/api/transactions/$id", user => 'erin')->{json}{category}, 'dining',
       "the row's (effective) category is the folded one");
    is($rig->get('/api/transactions?categories[]=dining', user => 'erin')->{json}{total}, 1,
       'the category filter finds it');
    my $m = $rig->get('/api/analytics/monthly?from=2025-08&to=2025-08', user => 'erin')->{json};
    my %cats = map { $_->{category} => m2($_->{total}) } @{ $m->{items}[0]{categories} // [] };
    is($cats{dining}, '30.00', 'the monthly report counts it under dining');
}

# Duplicates: an interest line is money out, so a duplicate of the
# caller's interest row; the description compares as written (bytes, as
# the one-pass check of large files does), so another case is a new row;
# a line like two existing rows names the lower id.
{
    manual_ok($rig, 'bob', date => '2025-03-31', description => 'Interest charged', amount => 3.21,
              transaction_type => 'interest');
    my $res = commit('bob', [ { date => '2025-03-31', description => 'Interest charged', amount => 3.21,
                                transaction_type => 'interest' } ]);
    is($res->{status}, 200, 'commit an interest line (nothing new: 200)') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 0, 1 ],
              'duplicates: an interest line is money out, a duplicate of the existing interest row');

    manual_ok($rig, 'bob', date => '2025-03-02', description => 'Coffee Cart', amount => 4.5, transaction_type => 'debit');
    $res = commit('bob', [ { date => '2025-03-02', description => 'COFFEE CART', amount => 4.5,
                             transaction_type => 'debit' } ]);
    is($res->{status}, 201, 'commit the line in capitals') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 1, 0 ],
              'duplicates: the description compares as written, so another case is a new row');

    my %twin = (date => '2025-03-05', description => 'Twin Row', amount => 7, transaction_type => 'debit');
    my $first = manual_ok($rig, 'bob', %twin)->{id};
    my $second = manual_ok($rig, 'bob', %twin)->{id};
    ok($first < $second, 'two identical rows');
    $res = $rig->post('/api/import/csv/preview', { csv => "Date,Description,Amount\n2025-03-05,Twin Row,-7.00\n",
        mapping => { date => 'Date', description => 'Description', amount => 'Amount' } }, user => 'bob');
    is($res->{status}, 200, 'preview the twin line') or diag($res->{content});
    is($res->{json}{rows}[0]{duplicate_of}, $first, 'duplicate_of names the lower id of two matching rows');
}

error_is($rig->request('POST', '/api/import/csv/commit', open => 1, json => { rows => \@good }),
         401, 'unauthenticated', 'commit without identity');
error_is($rig->get('/api/import/csv/preview', user => 'alice'), 405, 'method_not_allowed', 'GET on the preview');

# ---- direction, text columns, warnings, refusals (issue 30) ----------------------------------
{
    my $file = "Date,Payee,Memo,Amount,Way,Shop,Cat,Notes\n"
        . "03/01/2026,,Coffee beans,4.50,Af,,Groceries,\n"
        . "04/01/2026,ACME,,100.00,Bij,ACME Pty,,pay run\n"
        . "05/01/2026,,,7.00,out,,,only a memo\n";
    my $m = { date => 'Date', description => [ 'Payee', 'Memo' ], amount => 'Amount', direction => 'Way',
              merchant => 'Shop', category => 'Cat', memo => 'Notes' };
    my $res = preview('dave', $file, $m);
    is($res->{status}, 200, 'a mapping with direction, a description list and text columns')
        or diag($res->{content});
    my $rows = $res->{json}{rows};
    is_deeply([ map { [ $_->{description}, signed($_) ] } @$rows[0, 1] ],
              [ [ 'Coffee beans', m2(-4.50) ], [ 'ACME', m2(100) ] ],
              'Af is money out, Bij money in; an empty payee falls to the memo column');
    # A row whose merchant column is empty is listed under the merchant its
    # description names (issue #31); the mapped column wins where it has one.
    is_deeply([ map { [ @$_{qw(merchant category notes)} ] } @$rows ],
              [ [ 'Coffee Beans', 'Groceries', undef ], [ 'ACME Pty', undef, 'pay run' ],
                [ 'Only a Memo', undef, 'only a memo' ] ],
              'merchant (else derived from the description), category and notes (memo) shown, null when empty');
    is($rows->[2]{description}, 'only a memo', 'no description or merchant: the notes');
    # No merchant column at all: the preview row still carries one, cleaned
    # from the bank's text, and null when the text names none.
    my $plain = preview('dave', "Date,Description,Amount\n"
                        . "06/01/2026,SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA,-4.50\n"
                        . "07/01/2026,12345 0000,-1.00\n",
                        { date => 'Date', description => 'Description', amount => 'Amount' });
    is_deeply([ map { [ $_->{merchant}, $_->{description} ] } @{ $plain->{json}{rows} } ],
              [ [ 'Blue Bottle Coffee', 'SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA' ], [ undef, '12345 0000' ] ],
              'no merchant column: the merchant cleaned from the description, the raw text kept')
        or diag($plain->{content});
    like($rows->[2]{errors}[0] // '', qr/^direction 'out' is neither a debit nor a credit value/,
         'a word not in the defaults is the row\'s error');
    $res = preview('dave', $file, { %$m, debit_values => [ 'Af', 'out' ], credit_values => [ 'Bij' ] });
    is_deeply([ map { signed($_) } @{ $res->{json}{rows} } ], [ m2(-4.50), m2(100), m2(-7) ],
              'debit_values and credit_values replace the defaults');
    is_deeply($res->{json}{warnings}, [], 'no warning with a direction column');
    # The commit keeps what the preview showed: merchant, category and the
    # notes, each row's own.
    my $c = commit('dave', $res->{json}{rows});
    is($c->{status}, 201, 'the text columns commit') or diag($c->{content});
    my @kept = map { $rig->get("/api/transactions/$_", user => 'dave')->{json} } @{ $c->{json}{transaction_ids} // [] };
    is_deeply([ map { [ @$_{qw(description merchant category notes)} ] } @kept ],
              [ [ 'Coffee beans', 'Coffee Beans', 'groceries', undef ], [ 'ACME', 'ACME Pty', undef, 'pay run' ],
                [ 'only a memo', 'Only a Memo', undef, 'only a memo' ] ],
              'merchant, category (folded) and notes stored as the preview showed them');
    my $big = commit('dave', [ { %{ $res->{json}{rows}[0] }, notes => 'n' x 1001 } ]);
    error_is($big, 400, 'invalid_field', 'notes of 1001 bytes', 'rows[0].notes');
    $rig->request('DELETE', "/api/transactions/$_", user => 'dave') for @{ $c->{json}{transaction_ids} // [] };
    # Amounts that name another currency than home are read as written,
    # and the preview says so.
    my $home = $rig->get('/api/me', user => 'dave')->{json}{home_currency} // 'AUD';
    my $other = $home eq 'USD' ? 'EUR' : 'USD';
    $res = preview('dave', "Date,Description,Amount\n03/01/2026,a,-12.50 $other\n04/01/2026,b,$other 3.00\n"
                   . "05/01/2026,c,4.00 $home\n06/01/2026,d,1.00\n", $NAMED);
    is_deeply($res->{json}{warnings},
              [ "line 2: 2 amounts are written in $other, not $home (the home currency): kept as written, "
                . "and in $home unless each row is committed with its currency and its home amount "
                . "(amount_aud) or exchange_rate_to_aud" ],
              'amounts in another currency: one warning naming it, its count and first line');
    error_is(preview('dave', $file, { %$m, debit_values => 'Af' }), 400, 'invalid_field',
             'debit_values not a list', 'mapping.debit_values');
    error_is(preview('dave', $file, { %$m, credit_values => [ '' ] }), 400, 'invalid_field',
             'an empty credit value', 'mapping.credit_values');
    error_is(preview('dave', $file, { %$m, description => [] }), 400, 'invalid_field',
             'an empty description list', 'mapping.description');
    error_is(preview('dave', $file, { %$m, description => [ 'Payee', 'Nope' ] }), 400, 'invalid_field',
             'a description column that is not there', 'mapping.description[1]');
    error_is(preview('dave', $file, { %$m, description => [ 'Payee', {} ] }), 400, 'invalid_field',
             'a description list item that is not a column', 'mapping.description[1]');
    $res = preview('dave', "Date,Payee,Amount\n03/01/2026,Shop,4.50\n04/01/2026,Pay,9.00\n", $NAMED_ALT);
    like($res->{json}{warnings}[0] // '', qr/^no amount in the file is money out/,
         'a signed column with no money out at all: a warning');
    $res = preview('dave', "Date,Payee,Amount\n", $NAMED_ALT);
    error_is($res, 400, 'invalid_field', 'a header and no rows', 'csv');
    like($res->{json}{error}{message} // '', qr/^line 1: the file has a header and no rows/, 'naming the header\'s line');
    $res = preview('dave', "Date,Payee,Amount\n03/01/2026,Souk,\"-\xd8\xaf.\xd9\x83.\xe2\x80\x8f1.250\"\n", $NAMED_ALT);
    error_is($res, 400, 'invalid_field', 'a three-decimal currency (KWD)', 'csv');
    like($res->{json}{error}{message} // '', qr/^line 2: amount .* is in a currency with three decimal places/,
         'naming the line and why');
    $res = preview('dave', "Date,Payee,Amount\n03/01/2026,Souk,\"-\xd8\xb1.\xd8\xb3.\xe2\x80\x8f1,250.50\"\n", $NAMED_ALT);
    is(signed($res->{json}{rows}[0]), m2(-1250.50), 'a two-decimal Arabic symbol (SAR) with an RLM reads');
}

done_testing();
