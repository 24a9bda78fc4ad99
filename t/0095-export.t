#!/usr/bin/perl
# The export (issue 32; API.md's GET /api/export): everything the caller
# can see, streamed as CSV, JSON or an hledger journal.
#
# alice holds a ledger of three months (2025-01 to 2025-03) over a credit
# card, an everyday account, a home loan and manual rows: spend in several
# categories, a refund, a fee, interest, an itemised repayment, transfers,
# income, a row in another currency, a row split with bob and carol, a
# row with her own override share, a trip, tags, a budget, a rule and
# payments both ways.  bob owns rows split with alice (a debit and a
# refund) and rows of his own that must never reach her; 700 more card
# rows make each export longer than the 64 kB the library writes at once.
#
# The journal is read by the real hledger (Debian's package): `hledger
# check` takes it, `hledger bal ^expenses -M` equals
# /api/analytics/monthly?basis=mine for every month and category to the
# cent, and what each participant owes alice in it equals her balance with
# them (GET /api/balances).
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_ok statement_ok srow m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);
my $tmp = tempdir(CLEANUP => 1);

# A statement of the first quarter of 2025.
sub statement { my ($user, %f) = @_; statement_ok($rig, $user, period_end => '2025-03-31', %f) }

# ---- the ledger ---------------------------------------------------------------

participant_ok($rig, 'alice', $_) for qw(bob carol);
participant_ok($rig, 'bob', 'alice');

my @card_rows = (
    srow('2025-01-03', 'debit', 82.45, 'groceries', 'Coles'),
    srow('2025-01-09', 'debit', 41.10, 'dining', 'Cafe Roma'),
    srow('2025-01-12', 'refund', 12.00, 'groceries', 'Coles'),
    srow('2025-01-31', 'fee', 3.50, 'fees', 'Bank'),
    srow('2025-01-31', 'interest', 7.77, 'loan_interest', 'Bank'),
    srow('2025-02-02', 'payment', 150.00, 'transfers', 'Card repayment'),
    srow('2025-02-14', 'debit', 120.00, 'Home & Garden', 'Bunnings'),
    srow('2025-02-20', 'debit', 75.00, 'fuel', 'Shell', currency => 'USD', amount_aud => 113.64,
         exchange_rate_to_aud => 1.5152),
    srow('2025-03-05', 'debit', 19.99, 'subscriptions', 'Netflix'),
    srow('2025-03-07', 'debit', 33.30, undef, 'Mystery; shop, "quoted" =1+1'),
);
# 700 more rows: a few cents each over the three months, so every export is
# several of the library's 64 kB pieces.
for my $i (1 .. 700) {
    push @card_rows, srow(sprintf('2025-%02d-%02d', 1 + $i % 3, 1 + $i % 28), 'debit',
                          0 + sprintf('%.2f', 1 + ($i % 97) / 100), ($i % 2 ? 'dining' : 'groceries'),
                          "Shop $i");
}
my $card = statement('alice', bank_name => 'Test Bank', account_name => 'Visa Platinum',
                     account_type => 'Visa Credit Card', transactions => \@card_rows);
my $everyday = statement('alice', bank_name => 'Test Bank', account_name => 'Everyday',
                         account_type => 'Everyday Account', transactions => [
    srow('2025-01-15', 'credit', 2500.00, 'income', 'Employer'),
    srow('2025-02-02', 'debit', 150.00, 'transfers', 'To card'),
    srow('2025-02-15', 'credit', 2500.00, 'income', 'Employer'),
    srow('2025-03-01', 'debit', 20.00, 'transfers', 'To bob'),
]);
my $loan = statement('alice', bank_name => 'ANZ', account_name => 'Home Loan', account_type => 'Home Loan',
                     transactions => [
    srow('2025-02-15', 'payment', 2500, 'loan_interest', 'ANZ Home Loan', principal_amount => 2019.75,
         interest_amount => 480.25),
]);

# Manual rows: split three ways, an override share, a cash lunch in a trip.
my $split = manual_ok($rig, 'alice', date => '2025-01-20', description => 'Dinner for three', amount => 100.01,
                      transaction_type => 'debit', category => 'dining', merchant => 'Thai Palace',
                      splits => [{ participant_id => $uid{bob}, share_percent => 33.33 },
                                 { participant_id => $uid{carol}, share_percent => 33.33 }]);
my $over = manual_ok($rig, 'alice', date => '2025-02-10', description => 'Half mine', amount => 60.25,
                     transaction_type => 'debit', category => 'groceries', merchant => 'Aldi');
ok_json($rig->patch("/api/transactions/$over->{id}", { my_share_percent => 50 }, user => 'alice'), 'override');
my $lunch = manual_ok($rig, 'alice', date => '2025-03-10', description => 'Beach lunch', amount => 45.00,
                      transaction_type => 'debit', category => 'dining', merchant => 'Beach Bar',
                      payment_method => 'cash');
my $trip = ok_json($rig->post('/api/trips', { name => 'Bali, 2025' }, user => 'alice'), 'trip');
ok_json($rig->post("/api/trips/$trip->{id}/transactions", { transaction_ids => [$lunch->{id}] }, user => 'alice'),
        'lunch in the trip');
ok_json($rig->post("/api/transactions/$lunch->{id}/tags", { name => 'holiday fun' }, user => 'alice'), 'tag');
ok_json($rig->put('/api/budgets/groceries', { amount => 300 }, user => 'alice'), 'budget');
ok_json($rig->post('/api/rules', { name => 'Netflix', conditions => [{ field => 'merchant', operator => 'contains',
                                                                     value => 'netflix' }],
                                   actions => [{ type => 'set_category', category => 'subscriptions' }] },
                   user => 'alice'), 'rule');

# bob's rows: two split with alice, and his own.
my $bob_card = statement('bob', bank_name => 'Bob Bank', account_name => 'Bob Card', account_type => 'Credit Card',
                         transactions => [
    srow('2025-02-21', 'debit', 90.00, 'dining', 'Shared dinner'),
    srow('2025-03-03', 'refund', 30.00, 'dining', 'Shared dinner'),
    srow('2025-03-04', 'debit', 999.99, 'shopping', 'BOB-PRIVATE'),
]);
my $bob_rows = $rig->get("/api/transactions?statement_id=$bob_card->{id}&limit=50", user => 'bob')->{json}{items};
for my $r (grep { $_->{merchant} eq 'Shared dinner' } @$bob_rows) {
    ok_json($rig->post("/api/transactions/$r->{id}/splits", [{ participant_id => $uid{alice}, share_percent => 30 }],
                       user => 'bob'), "bob shares $r->{transaction_type} with alice");
}
ok_json($rig->post('/api/payments', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice},
                                      date => '2025-03-01', amount => 20 }, user => 'alice'), 'bob pays alice');
ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{carol},
                                      date => '2025-03-02', amount => 5.55, trip_id => $trip->{id} },
                   user => 'alice'), 'alice pays carol');
manual_ok($rig, 'carol', date => '2025-01-05', description => 'CAROL-PRIVATE', amount => 10,
          transaction_type => 'debit', category => 'dining');

# What alice sees through the API: every row (transfers too), by id.
my %api;
for (my $off = 0; ; $off += 500) {
    my $page = ok_json($rig->get("/api/transactions?exclude_categories=&limit=500&offset=$off", user => 'alice'),
                       'alice lists her rows');
    $api{ $_->{id} } = $_ for @{ $page->{items} };
    last if $off + 500 >= $page->{total};
}
cmp_ok(scalar(keys %api), '>', 700, 'alice sees her ' . scalar(keys %api) . ' rows');

# ---- refusals ------------------------------------------------------------------

error_is($rig->get('/api/export?format=xml', user => 'alice'), 400, 'invalid_field', 'format=xml', 'format');
error_is($rig->get('/api/export?format=', user => 'alice'), 400, 'invalid_field', 'format=', 'format');
error_is($rig->get('/api/export?format=JSON', user => 'alice'), 400, 'invalid_field', 'format=JSON', 'format');
my $default = $rig->get('/api/export', user => 'alice');
is($default->{status}, 200, 'no format: 200');
like($default->{headers}{'content-type'} // '', qr{^application/json}, 'no format: the JSON export');
error_is($rig->get('/api/export?format=csv', open => 1), 401, 'unauthenticated', 'no identity');
error_is($rig->post('/api/export?format=csv', {}, user => 'alice'), 405, 'method_not_allowed', 'POST');

# An export's answer: 200, its type, a file name, no caching.
sub export_of {
    my ($user, $format, $type) = @_;
    my $res = $rig->get("/api/export?format=$format", user => $user);
    is($res->{status}, 200, "$user: export $format") or diag(substr($res->{content}, 0, 500));
    like($res->{headers}{'content-type'} // '', qr{^\Q$type\E}, "$format: Content-Type $type");
    like($res->{headers}{'content-disposition'} // '',
         qr{^attachment; filename="ledger-export-\d{4}-\d\d-\d\d\.\Q$format\E"$}, "$format: a file name");
    is($res->{headers}{'cache-control'}, 'no-store', "$format: not cached");
    return $res->{content};
}

# ---- CSV -----------------------------------------------------------------------

# RFC 4180 fields and records.
sub csv_records {
    my ($text) = @_;
    my (@rows, @f, $cur);
    my $i = 0;
    my $n = length $text;
    $cur = '';
    while ($i < $n) {
        my $c = substr($text, $i, 1);
        if ($c eq '"') {
            my $j = $i + 1;
            while ($j < $n) {
                if (substr($text, $j, 1) eq '"') {
                    last unless substr($text, $j + 1, 1) eq '"';
                    $cur .= '"';
                    $j += 2;
                    next;
                }
                $cur .= substr($text, $j++, 1);
            }
            $i = $j + 1;
        } elsif ($c eq ',') {
            push @f, $cur; $cur = ''; $i++;
        } elsif ($c eq "\r" && substr($text, $i + 1, 1) eq "\n") {
            push @f, $cur; push @rows, [@f]; @f = (); $cur = ''; $i += 2;
        } else {
            $cur .= $c; $i++;
        }
    }
    return \@rows;
}

my $csv = export_of('alice', 'csv', 'text/csv');
cmp_ok(length $csv, '>', 65536, 'the CSV is longer than one of the library\'s pieces (' . length($csv) . ' bytes)');
my $records = csv_records($csv);
my $head = shift @$records;
is($head->[0], 'id', 'the CSV starts with its header');
my %col = map { $head->[$_] => $_ } 0 .. $#$head;
is(scalar(grep { @$_ != @$head } @$records), 0, 'every CSV line has as many fields as the header');
my %csv_ids;
$csv_ids{ $_->[ $col{id} ] }++ for @$records;
is_deeply([sort { $a <=> $b } keys %csv_ids], [sort { $a <=> $b } keys %api], 'the CSV holds every row alice sees');
is(scalar(grep { $_ != 1 } values %csv_ids), 0, 'each once');
unlike($csv, qr/BOB-PRIVATE|CAROL-PRIVATE/, "others' own rows never appear");
my $bad = 0;
for my $r (@$records) {
    my $a = $api{ $r->[ $col{id} ] } or next;
    my @want = ($a->{category} // '', $a->{merchant_normalized} // '', m2($a->{my_amount}), m2($a->{my_share_pct}),
                $a->{trip_id} // '');
    my @got = map { $r->[ $col{$_} ] } qw(category merchant_normalized my_amount my_share_pct trip_id);
    next if "@want" eq "@got";
    diag("row $a->{id}: want @want, got @got") if $bad++ < 5;
}
is($bad, 0, 'every CSV row has the effective category, merchant, trip and alice\'s share');
my ($mystery) = grep { $_->[ $col{merchant} ] =~ /Mystery/ } @$records;
is($mystery->[ $col{merchant} ], 'Mystery; shop, "quoted" =1+1', 'commas and quotes survive the CSV');
my ($dinner) = grep { $_->[ $col{id} ] == $split->{id} } @$records;
like($dinner->[ $col{splits} ], qr/33\.33:33\.33/, 'the split shows each share and amount');
my ($lunch_csv) = grep { $_->[ $col{id} ] == $lunch->{id} } @$records;
is($lunch_csv->[ $col{trip} ], 'Bali, 2025', 'the trip by name');
is($lunch_csv->[ $col{tags} ], 'holiday fun', 'the tags by name');

# ---- JSON ----------------------------------------------------------------------

my $doc = eval { JSON::PP->new->decode(export_of('alice', 'json', 'application/json')) };
ok($doc, 'the JSON export parses') or diag($@);
is($doc->{format}, 'ledger-export', 'it says what it is');
my %json_rows = map { $_->{id} => $_ } @{ $doc->{transactions} };
is(scalar @{ $doc->{transactions} }, scalar(keys %api), 'every row once');
$bad = 0;
for my $id (keys %api) {
    next if JSON::PP->new->canonical->encode($json_rows{$id} // {}) eq JSON::PP->new->canonical->encode($api{$id});
    diag("row $id differs") if $bad++ < 5;
}
is($bad, 0, 'each row exactly as GET /api/transactions shows it');
for my $part (qw(statements tags participants trips payments rules)) {
    my $listed = ok_json($rig->get("/api/$part", user => 'alice'), "alice lists $part");
    is_deeply($doc->{$part}, $listed->{items}, "$part: as GET /api/$part answers");
}
is_deeply($doc->{budgets}, [{ category => 'groceries', amount => 300 }], 'budgets: the standing amounts');
unlike(JSON::PP->new->encode($doc), qr/BOB-PRIVATE|CAROL-PRIVATE/, "no one else's rows");

# ---- the journal and hledger -----------------------------------------------------

my $journal = export_of('alice', 'journal', 'text/plain');
unlike($journal, qr/BOB-PRIVATE|CAROL-PRIVATE/, "the journal has no one else's rows");
# Every posting: four spaces, an account of single-spaced segments with
# no edge space, two spaces, an amount in cents with the currency.
my @postings = grep { /^    [^;]/ } split /\n/, $journal;
cmp_ok(scalar @postings, '>', 1400, scalar(@postings) . ' postings');
my @odd = grep { !/^    [^ :;]+(?: [^ :;]+)*(?::[^ :;]+(?: [^ :;]+)*)*  -?\d+\.\d\d AUD$/ } @postings;
is_deeply([@odd[0 .. ($#odd < 4 ? $#odd : 4)]], [], 'every account name clean, every amount exact with its currency');
my $hledger = Rig::find_program('hledger');
SKIP: {
    skip 'hledger is not installed (apt-get install hledger: contrib/deps test)', 6 unless $hledger;
    my $file = "$tmp/alice.journal";
    Rig::write_file($file, $journal);
    my $out = `$hledger -f $file check 2>&1`;
    is($?, 0, 'hledger check accepts the journal') or diag($out);

    # hledger bal ^expenses -M as CSV: "account","2025-01",...,"total"?
    my $bal = `$hledger -f $file bal ^expenses -M -O csv --layout=bare 2>&1`;
    is($?, 0, 'hledger bal ^expenses -M') or diag($bal);
    my $rows = csv_records(join("\r\n", split /\r?\n/, $bal) . "\r\n");
    my $mhead = shift @$rows;
    my %hl;   # month => category => cents text
    for my $r (@$rows) {
        my ($acct) = $r->[0];
        next unless $acct =~ /^expenses:(.+)$/;
        my $cat = $1;
        for my $i (2 .. $#$mhead) {
            my $v = $r->[$i];
            next if $v eq '' || $v eq '0';
            $v =~ s/[^\d.\-]//g;
            $hl{ month_of_head($mhead->[$i]) }{$cat} = sprintf('%.2f', $v) if month_of_head($mhead->[$i]);
        }
    }
    my $api = ok_json($rig->get('/api/analytics/monthly?basis=mine&from=2025-01&to=2025-03', user => 'alice'),
                      'analytics basis=mine');
    my %an;
    for my $m (@{ $api->{items} }) {
        for my $c (@{ $m->{categories} }) {
            $an{ $m->{month} }{ $c->{category} } = m2($c->{total}) if $c->{total} != 0;
        }
    }
    is_deeply(\%hl, \%an, 'hledger bal ^expenses -M equals analytics basis=mine, every month and category')
        or diag(explain({ hledger => \%hl, analytics => \%an }));
    ok(scalar(keys %{ $an{'2025-02'} // {} }) >= 4, 'several categories a month');

    # What each participant owes alice: receivable plus payable, against
    # GET /api/balances' net.
    my $owed = `$hledger -f $file bal ^assets:receivable ^liabilities:payable -O csv --layout=bare 2>&1`;
    my %net;
    for my $r (@{ csv_records(join("\r\n", split /\r?\n/, $owed) . "\r\n") }) {
        next unless $r->[0] =~ /^(?:assets:receivable|liabilities:payable):.*-(\d+)$/;
        (my $v = $r->[-1]) =~ s/[^\d.\-]//g;
        $net{$1} = sprintf('%.2f', ($net{$1} // 0) + $v);
    }
    my $balances = ok_json($rig->get('/api/balances', user => 'alice'), 'balances');
    my %want = map { $_->{participant_id} => m2($_->{net}) } grep { $_->{net} != 0 } @{ $balances->{items} };
    is_deeply(\%net, \%want, 'what each participant owes alice in the journal is her balance with them')
        or diag($owed);
}

# A month heading of hledger's: "2025-01" (or "Jan" with the year
# elsewhere in older layouts); undef for the commodity and total columns.
sub month_of_head {
    my ($h) = @_;
    return $1 if $h =~ /^(\d{4}-\d\d)$/;
    return "$1-$2" if $h =~ /^(\d{4})-(\d\d)-\d\d/;
    my %m = (Jan => '01', Feb => '02', Mar => '03', Apr => '04', May => '05', Jun => '06', Jul => '07',
             Aug => '08', Sep => '09', Oct => '10', Nov => '11', Dec => '12');
    return "2025-$m{$1}" if $h =~ /^(\w{3})/ && $m{$1};
    return undef;
}

# bob's export: his own three rows and alice's dinner he has a split of,
# nothing else of hers.
my $bob_csv = csv_records(export_of('bob', 'csv', 'text/csv'));
shift @$bob_csv;
is(scalar @$bob_csv, 4, "bob's export: his three rows and the dinner split with him");
like(join(',', map { @$_ } @$bob_csv), qr/Thai Palace/, 'the row shared with him');
unlike(join(',', map { @$_ } @$bob_csv), qr/Coles|Aldi|Beach/, "nothing of alice's he has no split of");

# HEAD gives the head alone.
my $h = $rig->request('HEAD', '/api/export?format=journal', user => 'alice');
is($h->{status}, 200, 'HEAD: 200');
is($h->{content} // '', '', 'HEAD: no body');

done_testing;
