#!/usr/bin/perl
# /api/statements from JSON: create with rows (owner, folded categories,
# itemised loan repayments), statement type and repayment frequency
# normalisation, the balance assertion per type, owner-only read and
# delete, and bad input (up to 100,000 rows).
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok m2);

my $rig = Rig->new;
my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;


sub statement {
    my ($user, %f) = @_;
    my $body = { bank_name => 'Test Bank', account_type => 'Everyday Account',
                 period_start => '2026-01-01', period_end => '2026-01-31', transactions => [], %f };
    return $rig->post('/api/statements', $body, user => $user);
}

sub row { my ($type, $amount, %f) = @_; { date => '2026-01-10', description => "$type $amount",
    transaction_type => $type, amount => $amount, %f } }

sub statement_count { $rig->get('/api/statements', user => $_[0])->{json}{total} }
sub row_count { $rig->get('/api/transactions?exclude_categories=&limit=1', user => $_[0])->{json}{total} }

# ---- create ---------------------------------------------------------------------
my $res = statement('alice', bank_name => 'CBA', account_name => 'Visa ..1234',
    account_type => 'Visa Credit Card', due_date => '2026-02-20', amount_due => 150.5,
    opening_balance => 100, closing_balance => 150.5,
    transactions => [ row('debit', 60.5, category => 'Dining', merchant => 'Cafe'),
                      row('payment', 10, category => 'payment') ]);
is($res->{status}, 201, 'create a statement with rows');
my $s = $res->{json};
is($s->{statement_type}, 'credit_card', 'statement_type from "Visa Credit Card"');
is($s->{account_type}, 'Visa Credit Card', 'the raw account_type is kept');
is($s->{transaction_count}, 2, 'transaction_count');
is(m2($s->{amount_due}), '150.50', 'amount_due');
is($s->{due_date}, '2026-02-20', 'due_date');
is($s->{bank_name}, 'CBA', 'bank_name');
my $rows = $rig->get("/api/transactions?statement_id=$s->{id}", user => 'alice')->{json}{items};
is(scalar @$rows, 2, 'the rows are listed under the statement (transfers shown in one statement)');
my %by = map { $_->{transaction_type} => $_ } @$rows;
is($by{debit}{owner_id}, $uid{alice}, "rows get the statement's owner");
is($by{debit}{category}, 'dining', 'categories are folded');
is($by{payment}{category}, 'transfers', 'payment becomes transfers');
is($by{debit}{bank_name}, 'CBA', "rows carry the statement's bank");
is($by{debit}{statement_id}, $s->{id}, 'statement_id');

# ---- a refund takes its merchant's usual category, the statement's rows included ----
# carol has no rows at Edge Bistro before this statement; its refund comes
# first, its two dining rows after: the refund is dining all the same
# (resolved row by row it was "other"), and a refund at a merchant with no
# category anywhere is other.
{
    my $res = statement('carol', period_start => '2026-03-01', period_end => '2026-03-31', transactions => [
        row('refund', 5, date => '2026-03-05', description => 'REFUND BISTRO', merchant => 'Edge Bistro', category => 'Refund'),
        row('debit', 50, date => '2026-03-06', description => 'BISTRO 1', merchant => 'Edge Bistro', category => 'Dining'),
        row('debit', 40, date => '2026-03-07', description => 'BISTRO 2', merchant => 'Edge Bistro', category => 'dining'),
        row('refund', 3, date => '2026-03-08', description => 'REFUND NOWHERE', merchant => 'Nowhere Shop', category => 'refund') ]);
    is($res->{status}, 201, "carol's statement with refunds before their purchases") or diag($res->{content});
    my %by = map { $_->{description} => $_ }
        @{ $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'carol')->{json}{items} // [] };
    is_deeply([ map { $by{$_}{category} } 'REFUND BISTRO', 'BISTRO 1', 'REFUND NOWHERE' ],
              [ 'dining', 'dining', 'other' ],
              "the refund listed first takes Edge Bistro's dining; one at a merchant with no category, other");
    my $m = $rig->get('/api/analytics/monthly?from=2026-03&to=2026-03', user => 'carol')->{json}{items}[0] // {};
    is_deeply({ map { $_->{category} => m2($_->{total}) } @{ $m->{categories} // [] } },
              { dining => '85.00', other => '-3.00' },
              'spend: dining 50 + 40 - 5 refunded, other -3 (the summary follows the category set last)');
}

# ---- statement type and repayment frequency (rule C) ------------------------------
my %types = ('Home Loan' => 'loan', 'Home Loan Offset' => 'offset', 'Everyday Account' => 'transaction',
             'Bonus Saver' => 'savings', 'Online Savings' => 'savings', 'Share Trading' => 'investment',
             'Mastercard' => 'credit_card', 'Mortgage' => 'loan', 'Cheque Account' => 'transaction',
             'Visa Debit' => 'transaction', 'Mastercard Debit' => 'transaction',
             'American Express Platinum' => 'credit_card', 'Amex' => 'credit_card',
             'Diners Club' => 'credit_card',
             'Something Else' => 'other');
for my $text (sort keys %types) {
    my $r = statement('dave', account_type => $text);
    is($r->{json}{statement_type}, $types{$text}, "\"$text\" is $types{$text}");
}
is(statement('dave', account_type => ('Account ' x 16) . 'Home Loan Offset')->{json}{statement_type},
   'offset', 'the words count wherever they are in a long account_type (here past byte 127)');
is(statement('dave', account_type => ('ÉÉÉÉ ' x 15) . 'VISA')->{json}{statement_type},
   'credit_card', '... also after non-ASCII text, in capitals');
is(statement('dave', account_type => 'whatever', statement_type => 'Credit Card')->{json}{statement_type},
   'credit_card', 'an explicit statement_type is folded');
error_is(statement('dave', statement_type => 'cheque'), 400, 'invalid_field', 'an unknown statement_type',
         'statement_type');
for my $f (['Fortnightly', 'fortnightly'], ['fortnight', 'fortnightly'], ['MONTHLY', 'monthly'], ['bi-weekly', 'fortnightly'],
           ['Annually', 'yearly'], ['quarterly', 'quarterly'], ['Weekly', 'weekly']) {
    is(statement('dave', account_type => 'Home Loan', account_name => "Loan $f->[0]",
                 repayment_frequency => $f->[0])->{json}{repayment_frequency},
       $f->[1], "repayment_frequency \"$f->[0]\" is $f->[1]");
}
error_is(statement('dave', repayment_frequency => 'sometimes'), 400, 'invalid_field',
         'an unknown repayment frequency', 'repayment_frequency');

# Loan fields and an itemised repayment.
$res = statement('alice', account_type => 'Home Loan', interest_rate => 6.19, scheduled_repayment => 2500,
    repayment_frequency => 'Monthly', redraw_available => 12000.5, loan_term_months => 360,
    opening_balance => 500000, closing_balance => 498000,
    transactions => [ row('payment', 2500, principal_amount => 2000, interest_amount => 500),
                      row('interest', 500) ]);
is($res->{status}, 201, 'a loan statement');
my $loan = $res->{json};
is_deeply([map { m2($loan->{$_}) } qw(interest_rate scheduled_repayment redraw_available)],
          ['6.19', '2500.00', '12000.50'], 'loan fields');
is($loan->{loan_term_months}, 360, 'loan_term_months');
my ($repay) = grep { $_->{transaction_type} eq 'payment' }
    @{ $rig->get("/api/transactions?statement_id=$loan->{id}", user => 'alice')->{json}{items} };
is_deeply([m2($repay->{principal_amount}), m2($repay->{interest_amount})], ['2000.00', '500.00'],
          'principal_amount and interest_amount are kept');

# ---- the balance assertion (rule E), per type ------------------------------------
# credit_card and loan: closing = opening + out - in
# transaction, savings, offset: closing = opening - out + in
my @cases = (
    [ 'credit_card', 100, [ ['debit', 50], ['fee', 5], ['refund', 20], ['payment', 30] ], 105 ],
    [ 'loan', 1000, [ ['interest', 10], ['payment', 100] ], 910 ],
    [ 'transaction', 1000, [ ['debit', 200], ['credit', 50], ['fee', 1.5] ], 848.5 ],
    [ 'savings', 500, [ ['credit', 100], ['debit', 25.25] ], 574.75 ],
    [ 'offset', 2000, [ ['debit', 300], ['credit', 1000] ], 2700 ],
);
for my $c (@cases) {
    my ($type, $open, $moves, $close) = @$c;
    my @tx = map { row(@$_) } @$moves;
    my $ok = statement('carol', statement_type => $type, opening_balance => $open,
                       closing_balance => $close, transactions => \@tx)->{json};
    is($ok->{balance_ok}, JSON::PP::true, "$type: a statement that reconciles is balance_ok");
    is(m2($ok->{balance_difference}), '0.00', "$type: difference 0");
    my $bad = statement('carol', statement_type => $type, opening_balance => $open,
                        closing_balance => $close + 1.01, transactions => \@tx)->{json};
    is($bad->{balance_ok}, JSON::PP::false, "$type: one that does not is flagged");
    is(m2($bad->{balance_difference}), '-1.01', "$type: opening + movement - closing");
}
# The sign of the movement matters: a transaction account with the credit
# card's rule would not reconcile.
is(statement('carol', statement_type => 'transaction', opening_balance => 100, closing_balance => 150,
             transactions => [ row('debit', 50) ])->{json}{balance_ok}, JSON::PP::false,
   'spending lowers a transaction account (it does not raise it)');
for my $type (qw(investment other)) {
    my $r = statement('carol', statement_type => $type, opening_balance => 1, closing_balance => 2)->{json};
    ok(!defined $r->{balance_ok} && !defined $r->{balance_difference}, "$type statements are not asserted");
}
my $nobal = statement('carol', statement_type => 'transaction', opening_balance => 1)->{json};
ok(!defined $nobal->{balance_ok}, 'a missing balance gives balance_ok null');
# A purchase in another currency moves the balance by its home amount.
is(statement('carol', statement_type => 'credit_card', opening_balance => 0, closing_balance => 150,
             transactions => [ row('debit', 100, currency => 'USD', amount_aud => 150,
                                   exchange_rate_to_aud => 1.5) ])->{json}{balance_ok},
   JSON::PP::true, 'a USD 100.00 purchase at 1.5 moves the card by 150.00');
# With a rate and no amount_aud the home amount is worked out; a row in
# the home currency is its own home amount; a currency in lower case is
# kept in upper.
$res = statement('carol', statement_type => 'credit_card', opening_balance => 0, closing_balance => 150,
                 transactions => [ row('debit', 100, currency => 'usd', exchange_rate_to_aud => 1.5,
                                       description => 'by its rate') ]);
is($res->{json}{balance_ok}, JSON::PP::true, 'a USD 100.00 purchase at 1.5 without amount_aud moves the card by 150.00');
{
    my ($r) = @{ $rig->get("/api/transactions?statement_id=" . ($res->{json}{id} // 0), user => 'carol')->{json}{items} // [] };
    is_deeply([ $r->{currency}, sprintf('%.2f', $r->{amount_aud} // -1) ], [ 'USD', '150.00' ],
              'the row: USD, amount_aud 150.00');
}
error_is(statement('carol', transactions => [ row('debit', 5), row('debit', 100, amount_aud => 150) ]),
         400, 'invalid_field', 'a home-currency row with another amount_aud', 'transactions[1].amount_aud');
# The same statement posted twice (a client repeating an upload after a 502
# or 504 it could not tell apart from a failure) is not imported twice; one
# that differs in a field or a row is another statement.
{
    my %same = (bank_name => 'Repeat Bank', account_name => 'Everyday 1234', period_start => '2025-07-01',
                period_end => '2025-07-31', opening_balance => 100, closing_balance => 80,
                transactions => [ row('debit', 10), row('debit', 10), row('fee', 0.5), row('credit', 0.5) ]);
    my $first = statement('erin', %same);
    is($first->{status}, 201, 'a statement') or diag($first->{content});
    my ($sc_e, $rc_e) = (statement_count('erin'), row_count('erin'));
    my $again = statement('erin', %same);
    error_is($again, 409, 'conflict', 'the same statement again');
    like(($again->{json} // {})->{error}{message} // '', qr/statement $first->{json}{id}\b/, 'naming the one it repeats');
    is_deeply([ statement_count('erin'), row_count('erin') ], [ $sc_e, $rc_e ], 'and nothing was written');
    my @made = ($first->{json}{id});
    for my $other ([ 'one row of another text', transactions => [ row('debit', 10), row('fee', 0.5), row('credit', 0.5),
                                                  row('debit', 10, description => 'debit 10 again') ] ],
                   [ 'one row fewer', transactions => [ row('debit', 10), row('fee', 0.5), row('credit', 0.5) ] ],
                   [ 'another balance', closing_balance => 79 ]) {
        my ($what, %diff) = @$other;
        my $res = statement('erin', %same, %diff);
        is($res->{status}, 201, "$what: another statement");
        push @made, $res->{json}{id} // ();
    }
    $rig->del("/api/statements/$_", user => 'erin') for @made;
}

# Cents, not floats: 0.1 + 0.2 is exactly 0.3.
is(statement('carol', statement_type => 'credit_card', opening_balance => 0, closing_balance => 0.3,
             transactions => [ row('debit', 0.1), row('debit', 0.2) ])->{json}{balance_ok},
   JSON::PP::true, '0.10 + 0.20 reconciles with 0.30 exactly');

# The list carries the figures.
my $list = $rig->get('/api/statements', user => 'alice')->{json};
is($list->{total}, 2, "alice's statements");
ok(!grep({ !exists $_->{balance_ok} || !exists $_->{transaction_count} } @{ $list->{items} }),
   'every item has balance_ok and transaction_count');
is($rig->get('/api/statements', user => 'erin')->{json}{total}, 0, 'erin has none');

# A card statement's money in, in another currency, moves the balance by
# its home amount, as its money out does.
{
    my $res = statement('dave', bank_name => 'Fx Card', account_type => 'Visa Credit Card',
                        period_start => '2019-04-01', period_end => '2019-04-30',
                        opening_balance => 0, closing_balance => 120,
                        transactions => [ { date => '2019-04-02', description => 'buy', amount => 100,
                                            transaction_type => 'debit', currency => 'USD', amount_aud => 150 },
                                          { date => '2019-04-03', description => 'back', amount => 20,
                                            transaction_type => 'refund', currency => 'USD', amount_aud => 30 } ]);
    is($res->{status}, 201, "dave creates statement 'Fx Card'") or diag($res->{content});
    my $s = $res->{json} // {};
    is_deeply([ $s->{balance_ok}, m2($s->{balance_difference} // 0) ], [ JSON::PP::true, '0.00' ],
              '0 + 150.00 - 30.00 is the closing 120.00');
}

# ---- access (Authentication 4) ---------------------------------------------------
error_is($rig->get("/api/statements/$s->{id}", user => 'bob'), 403, 'forbidden', "another user's statement");
error_is($rig->get('/api/statements/999999', user => 'alice'), 404, 'not_found', 'a missing statement');
is($rig->get("/api/statements/$s->{id}", user => 'alice')->{json}{id}, $s->{id}, 'the owner reads it');
error_is($rig->del("/api/statements/$s->{id}", user => 'bob'), 403, 'forbidden', "another user cannot delete it");
is($rig->get("/api/statements/$s->{id}", user => 'alice')->{json}{transaction_count}, 2, 'still there');

# ---- bad input: 400 and nothing written --------------------------------------------
my ($sc, $rc) = (statement_count('alice'), row_count('alice'));
error_is(statement('alice', bank_name => undef), 400, 'invalid_field', 'no bank_name', 'bank_name');
error_is(statement('alice', account_type => 7), 400, 'invalid_field', 'account_type of the wrong type', 'account_type');
error_is(statement('alice', period_start => '2026-02-30'), 400, 'invalid_field', 'a bad date', 'period_start');
error_is(statement('alice', period_start => '2026-02-01', period_end => '2026-01-01'), 400, 'invalid_field',
         'period_end before period_start', 'period_end');
error_is(statement('alice', opening_balance => 1.005), 400, 'invalid_field', 'three decimals', 'opening_balance');
error_is(statement('alice', interest_rate => 'high'), 400, 'invalid_field', 'a rate of the wrong type', 'interest_rate');
error_is(statement('alice', loan_term_months => 12.5), 400, 'invalid_field', 'a fractional term', 'loan_term_months');
error_is(statement('alice', transactions => { a => 1 }), 400, 'invalid_field', 'transactions not an array',
         'transactions');
# The rows are part of a statement (API.md lists transactions with no
# "?"): one without them says so with [].
error_is(statement('alice', transactions => undef), 400, 'invalid_field', 'transactions null', 'transactions');
error_is($rig->post('/api/statements', { bank_name => 'Test Bank', account_type => 'Everyday Account',
                                         period_start => '2026-01-01', period_end => '2026-01-31' }, user => 'alice'),
         400, 'invalid_field', 'no transactions at all', 'transactions');
error_is(statement('alice', transactions => [ row('debit', 1), row('debit', -5) ]), 400, 'invalid_field',
         'a negative amount in the second row', 'transactions[1].amount');
error_is(statement('alice', transactions => [ row('gift', 1) ]), 400, 'invalid_field', 'an unknown type',
         'transactions[0].transaction_type');
error_is(statement('alice', transactions => [ { date => '2026-01-01', amount => 1, transaction_type => 'debit' } ]),
         400, 'invalid_field', 'a row without a description', 'transactions[0].description');
error_is(statement('alice', transactions => [ 5 ]), 400, 'invalid_field', 'a row that is not an object',
         'transactions[0]');
error_is($rig->request('POST', '/api/statements', user => 'alice', body => '[1,2', type => 'application/json'),
         400, 'invalid_json', 'malformed JSON');
# Itemising: principal and interest together, on a loan, parts of the amount.
my %loan = (account_type => 'Home Loan');
error_is(statement('alice', %loan, transactions => [ row('payment', 500, principal_amount => 450, interest_amount => 9000) ]),
         400, 'invalid_field', 'interest larger than the repayment', 'transactions[0].interest_amount');
error_is(statement('alice', %loan, transactions => [ row('payment', 500, principal_amount => 450, interest_amount => 51) ]),
         400, 'invalid_field', 'principal and interest together past the amount', 'transactions[0].interest_amount');
error_is(statement('alice', %loan, transactions => [ row('payment', 500, principal_amount => 501, interest_amount => 0) ]),
         400, 'invalid_field', 'principal past the amount', 'transactions[0].interest_amount');
error_is(statement('alice', %loan, transactions => [ row('payment', 500, interest_amount => 50) ]),
         400, 'invalid_field', 'interest without principal', 'transactions[0].principal_amount');
for my $f (qw(scheduled_repayment redraw_available)) {
    error_is(statement('alice', %loan, $f => -1), 400, 'invalid_field', "a negative $f", $f);
}
# A fee, interest or refund row counts its whole amount its own way: not
# itemised (the fees report counted 2,000 + 500 where the monthly said 500).
for my $type (qw(fee interest refund)) {
    error_is(statement('alice', %loan, transactions => [ row($type, 2000, principal_amount => 1500, interest_amount => 500) ]),
             400, 'invalid_field', "an itemised $type row", 'transactions[0].transaction_type');
}
# The parts are in the row's currency and counted as home money: only a
# home-currency repayment is itemised (a JPY one counted yen as dollars).
error_is(statement('alice', %loan, transactions => [ row('payment', 200000, currency => 'JPY', amount_aud => 2000,
                                                         principal_amount => 150000, interest_amount => 50000) ]),
         400, 'invalid_field', 'an itemised foreign-currency repayment', 'transactions[0].principal_amount');
error_is(statement('alice', %loan, transactions => [ row('payment', 100, currency => 'JPY',
                                                         principal_amount => 60, interest_amount => 40) ]),
         400, 'invalid_field', 'one with no home amount given either', 'transactions[0].principal_amount');
{
    my $res = statement('alice', %loan, bank_name => 'Itemised Bank',
                        transactions => [ row('payment', 2000, principal_amount => 1500, interest_amount => 500) ]);
    is($res->{status}, 201, 'an itemised repayment') or diag($res->{content});
    my ($r) = @{ $rig->get("/api/transactions?statement_id=$res->{json}{id}", user => 'alice')->{json}{items} // [] };
    for my $type (qw(fee interest refund)) {
        error_is($rig->patch("/api/transactions/$r->{id}", { transaction_type => $type }, user => 'alice'),
                 400, 'invalid_field', "PATCH it to $type", 'transaction_type');
    }
    is($rig->patch("/api/transactions/$r->{id}", { transaction_type => 'credit' }, user => 'alice')->{status}, 200,
       'to credit it may go');
    is($rig->del("/api/statements/$res->{json}{id}", user => 'alice')->{status}, 204, '(and the statement goes)');
}
# A lender's repayment is a payment, and the bank's "Payment" is
# transfers (rule C), which spend leaves out: its itemised interest still
# counts (rule D), under loan_interest, in every report alike: in spend,
# and not in the fees report alone.
{
    my $res = statement('dave', %loan, bank_name => 'Lender', period_start => '2019-07-01',
                        period_end => '2019-07-31',
                        transactions => [ { %{ row('payment', 2000, principal_amount => 1500, interest_amount => 500,
                                                   category => 'Payment') }, date => '2019-07-15' } ]);
    is($res->{status}, 201, 'dave: an itemised repayment the bank calls Payment') or diag($res->{content});
    my ($r) = @{ $rig->get("/api/transactions?statement_id=$res->{json}{id}&exclude_categories=", user => 'dave')
                     ->{json}{items} // [] };
    is($r->{category}, 'transfers', 'its category is transfers');
    my $trip = $rig->post('/api/trips', { name => 'Loan trip' }, user => 'dave')->{json}{id};
    is($rig->patch("/api/transactions/$r->{id}", { trip_id => $trip }, user => 'dave')->{status}, 200,
       '(in a trip, for the trip report)');
    $rig->put('/api/budgets/loan_interest', { amount => 600 }, user => 'dave');
    my $check = sub {
        my ($how) = @_;
        for my $basis (qw(gross mine)) {
            my $m = $rig->get("/api/analytics/monthly?from=2019-07&to=2019-07&basis=$basis", user => 'dave')->{json};
            is_deeply([ map { [ $_->{category}, m2($_->{total}) ] } @{ $m->{items}[0]{categories} // [] } ],
                      [ [ 'loan_interest', '500.00' ] ], "$how, monthly ($basis): 500.00 under loan_interest");
        }
        my $d = $rig->get('/api/analytics/monthly/2019-07/loan_interest', user => 'dave')->{json};
        is_deeply([ m2($d->{total}), [ map { $_->{id} } @{ $d->{transactions} // [] } ] ], [ '500.00', [ $r->{id} ] ],
                  "$how, the drill-down: the row, at 500.00");
        my ($b) = grep { $_->{category} eq 'loan_interest' }
            @{ $rig->get('/api/budgets?month=2019-07', user => 'dave')->{json}{items} // [] };
        is(m2($b->{spent}), '500.00', "$how, the budget: 500.00 spent");
        my $t = $rig->get("/api/trips/$trip/analytics", user => 'dave')->{json};
        is_deeply([ m2($t->{total}), [ map { [ $_->{category}, m2($_->{total}) ] } @{ $t->{by_category} // [] } ] ],
                  [ '500.00', [ [ 'loan_interest', '500.00' ] ] ], "$how, the trip: 500.00 under loan_interest");
        my $f = $rig->get('/api/analytics/fees?from=2019-07&to=2019-07', user => 'dave')->{json};
        is(m2($f->{total_interest}), '500.00', "$how, the fees report: the same 500.00 of interest");
    };
    $check->('as imported');
    is($rig->patch("/api/transactions/$r->{id}", { category => 'income' }, user => 'dave')->{status}, 200,
       'overridden to income, another category spend leaves out');
    $check->('as income');
    is($rig->patch("/api/transactions/$r->{id}", { category => 'Home' }, user => 'dave')->{status}, 200,
       'overridden to home');
    my $m = $rig->get('/api/analytics/monthly?from=2019-07&to=2019-07', user => 'dave')->{json};
    is_deeply([ map { [ $_->{category}, m2($_->{total}) ] } grep { $_->{total} != 0 } @{ $m->{items}[0]{categories} // [] } ],
              [ [ 'home', '500.00' ] ], 'then its interest is spend on home');
}
error_is(statement('alice', %loan, transactions => [ row('payment', 500, principal_amount => 450) ]),
         400, 'invalid_field', 'principal without interest', 'transactions[0].interest_amount');
error_is(statement('alice', account_type => 'Visa Credit Card',
                   transactions => [ row('debit', 1000, principal_amount => 999, interest_amount => 1) ]),
         400, 'invalid_field', 'an itemised row on a card', 'transactions[0].principal_amount');
is(statement('alice', %loan, transactions => [ row('payment', 500, principal_amount => 450, interest_amount => 50),
                                                row('payment', 10, principal_amount => 0, interest_amount => 10) ])->{status},
   201, 'a repayment of exactly principal plus interest, and one all interest, are taken');
$sc++;
$rc += 2;
is(statement_count('alice'), $sc, 'no statement was written by any of them');
is(row_count('alice'), $rc, 'and no row');
error_is($rig->request('POST', '/api/statements', open => 1, json => {}), 401, 'unauthenticated', 'no identity');

# A statement takes up to 100,000 rows: exactly that many is not too many,
# one more is.  Rows of nothing: the count is accepted, then the first row
# is refused (so nothing is stored and the test stays quick).
{
    my $before = statement_count('bob') // 0;
    my $body = '{"bank_name":"Max","account_type":"Visa","period_start":"2025-01-01",'
             . '"period_end":"2025-01-31","transactions":[' . join(',', ('{}') x 100000) . ']}';
    my $r = $rig->request('POST', '/api/statements', user => 'bob', body => $body, type => 'application/json');
    is($r->{status}, 400, '100000 rows of nothing: 400');
    like($r->{json}{error}{field} // '', qr/^transactions\[0\]/, '... for its first row, not the count')
        or diag($r->{content});
    $body =~ s/\]\}$/,{}]}/;
    $r = $rig->request('POST', '/api/statements', user => 'bob', body => $body, type => 'application/json');
    is_deeply([$r->{status}, $r->{json}{error}{field}], [400, 'transactions'], '100001 rows: too many');
    is(statement_count('bob') // 0, $before, 'bob has no new statement');
}

# ---- figures past 64 bits ------------------------------------------------------------------
# Each row at the largest amount taken (10^13, in cents 10^15): some
# thousands of them add up past 2^63 cents.  Rows that would take one
# month's summary cell past it are a 400 with nothing written, not a 500;
# a balance assertion past it is worked out exactly, not wrapped to a
# wrong sign.
{
    my $big = 10000000000000;
    my $before = statement_count('erin');
    my $res = statement('erin', transactions => [ map { row('debit', $big, description => "big $_") } 1 .. 9300 ]);
    is($res->{status}, 400, 'rows summing past 2^63 cents: 400') or diag(substr($res->{content}, 0, 300));
    is(statement_count('erin'), $before, 'and no statement was made');
    $res = statement('erin', account_type => 'Visa Credit Card', opening_balance => $big, closing_balance => -$big,
                     transactions => [ map { row('debit', $big, description => "big $_") } 1 .. 9223 ]);
    is($res->{status}, 201, 'rows just under it: made') or diag(substr($res->{content}, 0, 300));
    # opening 10^13 + 9,223 * 10^13 of purchases - closing (-10^13)
    is($res->{json}{balance_ok}, JSON::PP::false, 'an assertion past 2^63 cents is made');
    like($res->{content}, qr/"balance_difference":92250000000000000\.00[,}]/,
         'and off by exactly 9,225 * 10^13');
    $rig->del("/api/statements/$res->{json}{id}", user => 'erin') if $res->{json}{id};
}

# ---- delete ---------------------------------------------------------------------------
my $t = statement('alice', transactions => [ row('debit', 5, category => 'x') ])->{json};
my ($row) = @{ $rig->get("/api/transactions?statement_id=$t->{id}", user => 'alice')->{json}{items} };
my $tag = $rig->post('/api/tags', { name => 'gone-with-it' }, user => 'alice')->{json};
$rig->post("/api/transactions/$row->{id}/tags", { tag_id => $tag->{id} }, user => 'alice');
participant_ok($rig, 'alice', 'bob');
$rig->post("/api/transactions/$row->{id}/splits", [ { participant_id => $uid{bob}, share_percent => 50 } ],
           user => 'alice');
is($rig->del("/api/statements/$t->{id}", user => 'alice')->{status}, 204, 'the owner deletes a statement');
error_is($rig->get("/api/statements/$t->{id}", user => 'alice'), 404, 'not_found', 'it is gone');
error_is($rig->get("/api/transactions/$row->{id}", user => 'alice'), 404, 'not_found', 'and its rows');
is(scalar(grep { $_->{id} == $row->{id} } @{ $rig->get('/api/transactions', user => 'bob')->{json}{items} }), 0,
   "and the split on its row (bob no longer sees it)");
is((grep { $_->{id} == $tag->{id} } @{ $rig->get('/api/tags', user => 'alice')->{json}{items} })[0]{usage_count},
   0, 'and its tag links');

done_testing();
