#!/usr/bin/perl
# The CSV corpus of real bank exports (t/data/bank/csv, issue 30): every
# file previewed and committed through the HTTP route as a user would, with
# its bank's preset from contrib/csv-presets or a mapping built from its
# sidecar's csv section; every stored row (date, signed amount in cents,
# description) compared with the sidecar; a second commit adds nothing
# (200, no import); a file the sidecar says is refused is a 4xx naming the
# problem, with nothing written.
use strict;
use warnings;
use Test::More;
use Encode ();
use JSON::PP ();
use Rig;

my $rig = Rig->new;
my $dir = Rig::srcdir() . '/t/data/bank/csv';
my $presets = Rig::srcdir() . '/contrib/csv-presets';

# The files a preset is made for (its "corpus" list).
my %preset_of;
for my $f (glob("$presets/*.json")) {
    my $p = JSON::PP->new->decode(Rig::slurp($f));
    $preset_of{$_} = $p for @{ $p->{corpus} // [] };
}

# How each file writes its amounts (the sidecar says it in words).
my %AMOUNT = (
    'autosync-paypal-alternate.csv' => { amount => 'Amount' },
    'autosync-paypal.csv' => { amount => 'Net' },
    'autosync-venmo.csv' => { amount => 'Amount (total)' },
    'beancount-import-bank.csv' => { amount => 'Amount' },
    'beancount-import-creditcard.csv' => { amount => 'Amount' },
    'beancount-import-venmo.csv' => { amount => 'Amount (total)' },
    'csv2ofx-capitalone.csv' => { debit => 'Debit', credit => 'Credit' },
    'csv2ofx-creditunion.csv' => { amount => 'Amount' },
    'csv2ofx-gls.csv' => { amount => 'Betrag' },
    'csv2ofx-ingesp.csv' => { amount => 'amount' },
    'csv2ofx-n26-fr.csv' => { amount => 'Amount (EUR)' },
    'csv2ofx-outbank.csv' => { amount => 'Amount' },
    'csv2ofx-payoneer.csv' => { debit => 'Debit Amount', credit => 'Credit Amount' },
    'csv2ofx-pcmastercard.csv' => { amount => 'Amount', negate => JSON::PP::true },
    'csv2ofx-schwab-checking.csv' => { debit => 'Withdrawal', credit => 'Deposit' },
    'csv2ofx-stripe-all.csv' => { amount => 'amount' },
    'csv2ofx-ubs-ch-fr.csv' => { debit => "D\xc3\xa9bit", credit => "Cr\xc3\xa9dit" },
    'nl-asn.csv' => { amount => 10 },
    'nl-ing-balances.csv' => { amount => 'Boeksaldo' },
    'own-hu-otp-style.csv' => { amount => "\xc3\x96sszeg",
                                direction => "Terhel\xc3\xa9s vagy j\xc3\xb3v\xc3\xa1\xc3\xadr\xc3\xa1s (T/J)" },
    'own-jo-bidi.csv' => { amount => 'Amount' },
    'reds-dcu-checking.csv' => { amount => 'AMOUNT' },
    'reds-schwab-checking.csv' => { debit => 'Withdrawal', credit => 'Deposit' },
);

sub mapping_of {
    my ($name, $c) = @_;
    my $fmt = $c->{date_format} // '';
    $fmt =~ s/[ T](?:HH|\().*$//;
    my %m = (
        date => $c->{date_column},
        description => $c->{description_columns},
        has_header => $c->{header_row} ? JSON::PP::true : JSON::PP::false,
        delimiter => $c->{delimiter},
        decimal => $c->{decimal},
        skip_lines => $c->{lines_before_header} // 0,
        %{ $AMOUNT{$name} // {} },
    );
    $m{date_format} = $fmt if $fmt ne '';
    delete $m{description} unless @{ $m{description} };
    return \%m;
}

# "-12.50" as cents, exactly (undef when it has a third decimal that is not 0).
sub cents {
    my ($s) = @_;
    my ($neg, $int, $frac) = $s =~ /^(-?)(\d+)(?:\.(\d+))?$/ or return undef;
    $frac //= '';
    return undef if length $frac > 2 && substr($frac, 2) =~ /[1-9]/;
    $frac = substr($frac . '00', 0, 2);
    my $v = $int * 100 + $frac;
    return $neg ? -$v : $v;
}
sub signed_cents {
    my ($t) = @_;
    my $v = sprintf('%.0f', $t->{amount} * 100);
    return $t->{transaction_type} =~ /^(?:debit|fee|interest)$/ ? -$v : $v + 0;
}
sub total {
    my ($user) = @_;
    return $rig->get('/api/transactions?exclude_categories=&limit=1', user => $user)->{json}{total};
}

my @files = sort map { s{.*/}{}r } glob("$dir/*.csv");
ok(@files >= 25, scalar(@files) . ' CSV files in the corpus');
my ($exact, $refused) = (0, 0);
my $users = 0;
for my $name (@files) {
    my $side = JSON::PP->new->decode(Rig::slurp("$dir/$name.expect.json"));
    my $bytes = Rig::slurp("$dir/$name");
    # A JSON body holds text: a file in another charset is decoded as its
    # sidecar says, as a client reading it with that encoding would.
    my $enc = $side->{csv}{encoding} // 'utf-8';
    my $text = $enc eq 'utf-8' ? $bytes : Encode::encode('UTF-8', Encode::decode($enc, $bytes));
    my $preset = $preset_of{$name};
    my $mapping = $preset ? $preset->{mapping} : mapping_of($name, $side->{csv});
    my $user = (qw(alice bob carol dave erin))[$users++ % 5];
    my $before = total($user);
    my $res = $rig->post('/api/import/csv/preview', { csv => $text, mapping => $mapping }, user => $user);
    if ($side->{expect} eq 'refuse') {
        ok($res->{status} >= 400 && $res->{status} < 500, "$name: refused ($side->{why})")
            or diag($res->{content});
        # Where: the file's line, or the mapping's key when no column of
        # the file can be what the key asks for.
        my $e = $res->{json}{error} // {};
        ok(($e->{message} // '') =~ /^line \d+: / || ($e->{field} // '') =~ /^mapping\.\w+$/,
           "$name: the refusal names the line or the mapping's key")
            or diag($res->{content});
        is(total($user), $before, "$name: nothing written");
        $refused++;
        next;
    }
    is($res->{status}, 200, "$name: previews") or do { diag($res->{content}); next };
    if ($enc ne 'utf-8') {
        # The file's own bytes, sent as text/csv with its encoding named,
        # read as the client's decoding of it was.
        my $q = 'mapping=' . Rig::uri_escape(JSON::PP->new->canonical->encode($mapping))
                . "&encoding=$enc";
        my $raw = $rig->request('POST', "/api/import/csv/preview?$q", user => $user,
                                body => $bytes, type => 'text/csv');
        is_deeply([ map { [ @$_{qw(line date description amount)} ] } @{ $raw->{json}{rows} // [] } ],
                  [ map { [ @$_{qw(line date description amount)} ] } @{ $res->{json}{rows} } ],
                  "$name: its bytes as text/csv with encoding=$enc read the same")
            or diag($raw->{content});
    }
    my @good = grep { !@{ $_->{errors} } } @{ $res->{json}{rows} };
    my @bad = grep { @{ $_->{errors} } } @{ $res->{json}{rows} };
    my @want = map {
        my $t = $_->{text_columns};
        [ $_->{date}, cents($_->{amount}),
          $t ? join(' - ', grep { $_ ne '' } @$t) : $_->{name} ]
    } @{ $side->{statements}[0]{rows} };
    # A row the sidecar gives no name (no mapped text) must still say
    # something: whatever the importer fell back to, as long as it is not
    # empty.
    my $c = $rig->post('/api/import/csv/commit', { rows => \@good }, user => $user);
    is($c->{status}, 201, "$name: commits") or do { diag($c->{content}); next };
    my @got = map {
        my $t = $rig->get("/api/transactions/$_", user => $user)->{json};
        [ $t->{date}, signed_cents($t), $t->{description} ]
    } @{ $c->{json}{transaction_ids} };
    for my $i (0 .. $#want) {
        $want[$i][2] = $got[$i][2] if !defined $want[$i][2] && $i < @got && ($got[$i][2] // '') ne '';
    }
    my $same = is_deeply(\@got, \@want, "$name: every row as the sidecar has it ("
                         . scalar(@want) . ')');
    $same or diag(join "\n", "got:", map({ "  @$_" } @got), "want:", map({ "  @$_" } @want),
                  map { "  error line $_->{line}: @{ $_->{errors} }" } @bad);
    $exact++ if $same;
    my $n = total($user);
    my $again = $rig->post('/api/import/csv/commit', { rows => \@good }, user => $user);
    is($again->{status}, 200, "$name: a second commit answers 200");
    is_deeply([ @{ $again->{json} }{qw(imported import_id)} ], [ 0, undef ],
              "$name: and imports nothing");
    is(total($user), $n, "$name: and writes nothing");
    # The users are shared: their rows go, so the next file starts clean.
    $rig->request('DELETE', "/api/transactions/$_", user => $user) for @{ $c->{json}{transaction_ids} };
}
note("$exact of " . (@files - $refused) . " files import exactly; $refused refused");


done_testing;
