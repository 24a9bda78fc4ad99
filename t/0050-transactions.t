#!/usr/bin/perl
# /api/transactions through nginx: create (manual rows, category folding,
# refunds, splits), read one, patch (overrides and direct fields), delete,
# access (owner, split participant, stranger), and the list: every filter,
# the sort orders, offset and keyset pages, and scoping.
#
# Each user holds the data of one topic so that list tests can assert exact
# sets: alice creates, splits and patches; bob is a split participant with
# rows of his own; carol is the stranger to alice's row s1 (she shares in
# a few others); dave holds the data set for filters and sorting; erin holds
# the seven rows that are paged.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_id m2);

my $rig = Rig->new;

# ---- helpers ----------------------------------------------------------------

# Money and percentages come back as JSON numbers with two decimals; compare
# them as two-decimal text so 75 and 75.00 read the same in a failure.
sub cents { int(sprintf('%.0f', $_[0] * 100)) }

# Percent-encodes a query value (q=>=20, search text with spaces).
sub enc { Rig::uri_escape($_[0]) }

my %uid;
$uid{$_} = $rig->get('/api/me', user => $_)->{json}{id} for @Rig::USERS;
ok(!grep({ !$_ } values %uid), 'every test user has an id');

# Splits may only name the owner's participants: here everyone has added
# everyone else (by the email claim the rig gives each user).
for my $u (@Rig::USERS) {
    participant_ok($rig, $u, $_) for grep { $_ ne $u } @Rig::USERS;
}

# Creates a manual row; every body gets a date, an amount and a description
# unless the test gives its own.
sub create {
    my ($user, %f) = @_;
    my $body = { date => '2026-01-15', amount => 10, description => 'something', %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    is($res->{status}, 201, "$user creates '$body->{description}'")
        or diag($res->{content});
    return $res->{json} // {};
}

sub get_row {
    my ($user, $id) = @_;
    return $rig->get("/api/transactions/$id", user => $user)->{json};
}

sub list {
    my ($user, $query) = @_;
    return $rig->get('/api/transactions' . (defined $query && length $query ? "?$query" : ''),
                     user => $user);
}

# Every row of the caller, transfers included: the figure that must not move
# when a write is refused.
sub count_all {
    my ($user) = @_;
    return list($user, 'exclude_categories=&limit=1')->{json}{total};
}

# Names for ids, so a failing set or order reads "d3 d10", not numbers.
my %name_of;
sub names { [map { $name_of{$_} // "id$_" } @_] }

# The list's ids in the order given, checking the answer is a 200.
sub list_ids {
    my ($user, $query, $what) = @_;
    my $res = list($user, $query);
    is($res->{status}, 200, "$what: 200") or diag($res->{content});
    return [map { $_->{id} } @{ $res->{json}{items} // [] }], $res->{json};
}

# The list answers exactly this set of rows, and total counts them.
sub set_is {
    my ($user, $query, $expect, $what) = @_;
    my ($ids, $doc) = list_ids($user, join('&', grep { length } $query,
                                           $query =~ /limit=/ ? () : 'limit=500'), $what);
    is_deeply([sort @{ names(@$ids) }], [sort @$expect], "$what: exactly " . join(' ', @$expect));
    is($doc->{total}, scalar @$expect, "$what: total " . scalar @$expect);
}

# The list answers exactly these rows in this order.
sub order_is {
    my ($user, $query, $expect, $what) = @_;
    my ($ids) = list_ids($user, join('&', grep { length } $query, 'limit=500'), $what);
    is_deeply(names(@$ids), $expect, "$what: " . join(' ', @$expect));
}

# A POST that must be refused with a 400 naming $field, writing nothing.
sub post_rejected {
    my ($body, $field, $what, %o) = @_;
    my $user = $o{user} // 'alice';
    my $before = count_all($user);
    my $res = $rig->post('/api/transactions', $body, user => $user);
    error_is($res, $o{status} // 400, $o{code} // 'invalid_field', $what, $field);
    is(count_all($user), $before, "$what: nothing was written");
    return $res;
}

# A PATCH that must be refused, leaving the row exactly as it was (every
# row patched here is alice's, so alice reads it back).
sub patch_rejected {
    my ($user, $id, $body, $status, $code, $what, $field) = @_;
    my $before = get_row('alice', $id);
    my $res = ref $body
        ? $rig->patch("/api/transactions/$id", $body, user => $user)
        : $rig->request('PATCH', "/api/transactions/$id", user => $user, body => $body,
                        type => 'application/json');
    error_is($res, $status, $code, $what, $field);
    is_deeply(get_row('alice', $id), $before, "$what: the row is unchanged");
    return $res;
}

# ==== POST: a manual row and its defaults =====================================

my $res = $rig->post('/api/transactions',
                     { date => '2026-01-10', amount => 12.5, description => 'Lunch at the corner',
                       merchant => 'Corner Deli', category => 'Dining' }, user => 'alice');
is($res->{status}, 201, 'POST /api/transactions creates a manual row');
my $row = $res->{json};
ok($row->{id} > 0, 'with an id');
is($row->{statement_id}, undef, 'statement_id is null on a manual row');
is($row->{owner_id}, $uid{alice}, 'owner_id is the caller');
is($row->{bank_name}, 'Manual', 'bank_name is Manual');
is($row->{transaction_type}, 'debit', 'transaction_type defaults to debit');
is($row->{currency}, 'AUD', 'currency defaults to the home currency AUD');
is($row->{category}, 'dining', '"Dining" is stored folded as dining');
is_deeply([@$row{qw(date description merchant)}],
          ['2026-01-10', 'Lunch at the corner', 'Corner Deli'], 'date, description, merchant');
is(m2($row->{amount}), '12.50', 'amount');
is_deeply([@$row{qw(amount_aud exchange_rate_to_aud payment_method trip_id
                    principal_amount interest_amount)}],
          [undef, undef, undef, undef, undef, undef], 'the optional fields are null');
ok(JSON::PP::is_bool($row->{reconciled}) && !$row->{reconciled}, 'reconciled is false');
is_deeply($row->{overrides},
          { category => undef, merchant_normalized => undef, my_share_percent => undef,
            trip_id => undef }, 'no overrides');
is_deeply([$row->{tags}, $row->{splits}], [[], []], 'no tags, no splits');
is(m2($row->{my_share_pct}), '100.00', 'the owner of an unsplit row has 100%');
is(m2($row->{my_amount}), '12.50', 'and my_amount is the amount');
like($row->{created_at} // '', qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'created_at is RFC 3339 UTC');
ok(exists $row->{suggestion_run} && !defined $row->{suggestion_run},
   'suggestion_run null: no suggestion was applied (t/0098)');
delete $row->{suggestion_run};
$res = $rig->get("/api/transactions/$row->{id}", user => 'alice');
is($res->{status}, 200, 'GET /api/transactions/{id}');
is_deeply($res->{json}, $row, 'answers the row as created');
my $lunch = $row;

# Category folding (rule C).
is(create('alice', description => 'Haircut', category => 'Personal Care')->{category},
   'personal_care', '"Personal Care" folds to personal_care');
is(create('alice', description => 'Card payment', category => 'payment')->{category},
   'transfers', '"payment" becomes transfers');
is(create('alice', description => 'Groceries, shouted', category => '  GROCERIES ')->{category},
   'groceries', 'case and surrounding spaces fold away');
# Names are kept whole up to their 100 bytes: two long names that share
# their first 63 bytes are two categories (they were cut into one).
{
    my $r = create('alice', description => 'Long category', category => 'Long ' . ('x' x 95));
    is($r->{category}, 'long_' . ('x' x 95), 'a 100-byte category is kept whole');
    is($rig->del("/api/transactions/$r->{id}", user => 'alice')->{status}, 204, 'the row is deleted again');
}

# A refund takes the merchant's most used category for its owner.  Bob's own
# history at the same merchant must not count.
create('alice', description => 'Flat white', merchant => 'Cafe', category => 'dining');
create('alice', description => 'Croissant', merchant => 'Cafe', category => 'Dining');
create('alice', description => 'Milk', merchant => 'Cafe', category => 'groceries');
my @bob_own;
push @bob_own, create('bob', description => "Bob's cafe trip $_", merchant => 'Cafe',
                      category => 'travel')->{id} for 1 .. 3;
is(create('alice', description => 'Cafe refund', merchant => 'Cafe', category => 'refund',
          transaction_type => 'refund')->{category},
   'dining', "a refund at Cafe takes alice's usual Cafe category, dining");
is(create('alice', description => 'Odd refund', merchant => 'Never Seen Pty Ltd',
          category => 'Refund')->{category},
   'other', 'a refund at a merchant with no history is other');
# Rows without a merchant share no merchant: a refund without one has no
# history to follow.  (alice has merchant-less rows categorised above.)
is(create('alice', description => 'Refund, merchant unknown', category => 'refund')->{category},
   'other', 'a refund with no merchant is other, not the category of unrelated merchant-less rows');

# The other optional fields are kept as given.
$row = create('alice', description => 'Hotel in Boston', merchant => 'Boston Inn', amount => 100,
              currency => 'USD', amount_aud => 150, exchange_rate_to_aud => 1.5,
              transaction_type => 'debit', category => 'accommodation');
is_deeply([@$row{qw(currency exchange_rate_to_aud)}], ['USD', 1.5], 'currency and exchange rate');
is_deeply([map { m2($_) } @$row{qw(amount amount_aud my_share_pct my_amount)}],
          ['100.00', '150.00', '100.00', '150.00'],
          'my_amount of an unsplit row uses amount_aud when present');
# Currency codes are taken in any case and kept in upper case (the
# contract's pattern is [A-Za-z]{3}).
is(create('alice', description => 'Lower', amount => 1, currency => 'usd', amount_aud => 1.5)->{currency},
   'USD', 'currency usd is kept as USD');
is(create('alice', description => 'Mixed', amount => 1, currency => 'Eur', amount_aud => 1.6)->{currency},
   'EUR', 'and Eur as EUR');
is(m2(create('alice', description => 'Same', amount => 12, currency => 'AUD', amount_aud => 12)->{amount_aud}),
   '12.00', 'an AUD row may state its amount_aud when it is the amount');
# A rate without amount_aud: the home amount is amount x rate (as a PATCH
# of the amount and an OFX import derive it), not the foreign amount
# counted as home money.
$res = $rig->post('/api/transactions', { date => '2026-01-10', description => 'Rate only', amount => 100,
                                         currency => 'USD', exchange_rate_to_aud => 1.5 }, user => 'alice');
is_deeply([ $res->{status}, map { m2($_) } @{ $res->{json} // {} }{qw(amount amount_aud my_amount)} ],
          [ 201, '100.00', '150.00', '150.00' ], 'USD 100.00 at 1.5 and no amount_aud: amount_aud 150.00');
$res = $rig->post('/api/transactions', { date => '2026-01-10', description => 'Rate, half cent', amount => 0.03,
                                         currency => 'USD', exchange_rate_to_aud => 1.5 }, user => 'alice');
is(m2($res->{json}{amount_aud}), '0.05', 'USD 0.03 at 1.5 = 0.045: half up, 0.05');
$res = $rig->post('/api/transactions', { date => '2026-01-10', description => 'Stated', amount => 100,
                                         currency => 'USD', exchange_rate_to_aud => 1.5, amount_aud => 151.2 },
                  user => 'alice');
is(m2($res->{json}{amount_aud}), '151.20', 'a stated amount_aud stays as stated beside a rate');
post_rejected({ date => '2026-01-10', description => 'Too much', amount => 10000000000000, currency => 'USD',
                exchange_rate_to_aud => 1000 }, 'exchange_rate_to_aud', 'an amount at a rate past the limit');
# A new amount takes a new home-currency amount: at the row's rate, or
# without one at the rate its two amounts implied; with neither, a 400.
$res = $rig->patch("/api/transactions/$row->{id}", { amount => 200 }, user => 'alice');
is_deeply([map { m2($_) } @{ $res->{json} // {} }{qw(amount amount_aud my_amount)}], ['200.00', '300.00', '300.00'],
          'PATCH amount 200 at the rate 1.5: amount_aud 300.00');
my $norate = create('alice', description => 'Dinner in Bali', amount => 100, currency => 'IDR', amount_aud => 0.07);
$res = $rig->patch("/api/transactions/$norate->{id}", { amount => 250 }, user => 'alice');
is(m2($res->{json}{amount_aud}), '0.18', 'without a rate: 0.07 x 250/100 = 0.175, half up 0.18');
my $zero = create('alice', description => 'Free in Bali', amount => 0, currency => 'IDR', amount_aud => 0.01);
$res = $rig->patch("/api/transactions/$zero->{id}", { amount => 5 }, user => 'alice');
error_is($res, 400, 'invalid_field', 'a row of 0 with a home amount and no rate: no rate to follow', 'amount');
is(m2(get_row('alice', $zero->{id})->{amount}), '0.00', 'and the row is unchanged');
# A home amount stated apart from the rate (a fee folded in) stays as
# stated when the row is saved with the amount it has: it was re-derived
# from the rate, 20.00 becoming 15.00.
my $fee = create('alice', description => 'Card in USD', amount => 10, currency => 'USD', amount_aud => 20,
                 exchange_rate_to_aud => 1.5);
$res = $rig->patch("/api/transactions/$fee->{id}", { amount => 10, description => 'Card in USD, again' },
                   user => 'alice');
is_deeply([ $res->{status}, map { m2($_) } @{ $res->{json} // {} }{qw(amount amount_aud my_amount)} ],
          [ 200, '10.00', '20.00', '20.00' ], 'PATCH with the amount it has: amount_aud stays 20.00');

$res = $rig->post('/api/transactions', { date => '2026-01-15', amount => 10000000000000,
                                         description => 'The biggest' }, user => 'alice');
is($res->{status}, 201, 'an amount of exactly 10^13 is accepted');
is($rig->del("/api/transactions/$res->{json}{id}", user => 'alice')->{status}, 204,
   '(and removed again)');
is(create('alice', description => 'Free sample', amount => 0)->{amount}, 0, 'an amount of 0 is accepted');

# ==== POST: validation, each refused with nothing written ====================

my %base = (date => '2026-01-20', amount => 5, description => 'valid');
# alice's tag is made first: with the lower id it is linked first.
my $alice_tag = $rig->post('/api/tags', { name => 'Receipts', color => '#00aa00' },
                           user => 'alice')->{json};
my $bob_tag = $rig->post('/api/tags', { name => 'BobTag' }, user => 'bob')->{json};
ok($alice_tag->{id} && $bob_tag->{id} && $alice_tag->{id} < $bob_tag->{id}, 'tags for the tag_ids cases');

$res = post_rejected({ %base, payment_method => 'bitcoin' }, 'payment_method',
                     'payment_method bitcoin');
like($res->{json}{error}{message} // '', qr/card, cash, bank_transfer, other, credits/,
     'the message lists the allowed payment methods');
post_rejected({ %base, amount => 1.234 }, 'amount', 'an amount with 3 decimals');
post_rejected({ %base, amount => -5 }, 'amount', 'a negative amount');
post_rejected({ %base, amount => '12.00' }, 'amount', 'an amount given as a string');
post_rejected({ %base, amount => 1e14 }, 'amount', 'an amount of 10^14');
post_rejected({ %base, amount => undef }, 'amount', 'a null amount');
post_rejected({ %base, amount_aud => -1 }, 'amount_aud', 'a negative amount_aud');
my %nodate = %base; delete $nodate{date};
post_rejected(\%nodate, 'date', 'a missing date');
post_rejected({ %base, date => '2026-02-30' }, 'date', 'date 2026-02-30');
post_rejected({ %base, date => '2026/01/01' }, 'date', 'date 2026/01/01');
my %nodesc = %base; delete $nodesc{description};
post_rejected(\%nodesc, 'description', 'a missing description');
post_rejected({ %base, description => 42 }, 'description', 'a description that is a number');
post_rejected({ %base, transaction_type => 'gift' }, 'transaction_type', 'transaction_type gift');
post_rejected({ %base, currency => 'US' }, 'currency', 'a currency of two letters');
post_rejected({ %base, currency => 'U$D' }, 'currency', 'a currency with a sign in it');
post_rejected({ %base, currency => 'USDX' }, 'currency', 'a currency of four letters');
post_rejected({ %base, currency => 840 }, 'currency', 'a currency given as a number');
# A row in the home currency is its own home amount.
post_rejected({ %base, amount_aud => 13 }, 'amount_aud', 'a home-currency row with another amount_aud');
post_rejected({ %base, currency => 'AUD', amount_aud => 12.01 }, 'amount_aud',
              'an AUD row with an amount_aud a cent off');
post_rejected({ %base, exchange_rate_to_aud => '1.5' }, 'exchange_rate_to_aud',
              'exchange_rate_to_aud as a string');
# Another user's tag is there and not the caller's: 403 naming the field,
# as a trip_id of someone else's trip.
post_rejected({ %base, tag_ids => [$bob_tag->{id}] }, 'tag_ids', "tag_ids naming bob's tag",
              status => 403, code => 'forbidden');
# The row is inserted before its tags are linked: the refusal must undo it,
# and the link to alice's own tag (the lower id) made before the bad one.
post_rejected({ %base, tag_ids => [$alice_tag->{id}, $bob_tag->{id}] }, 'tag_ids',
              "tag_ids with alice's tag, then bob's", status => 403, code => 'forbidden');
post_rejected({ %base, tag_ids => [$bob_tag->{id}, $alice_tag->{id}] }, 'tag_ids',
              "tag_ids with bob's tag, then alice's", status => 403, code => 'forbidden');
post_rejected({ %base, tag_ids => [999999] }, 'tag_ids', 'tag_ids naming no tag');
is(list('alice', "tag_ids=$alice_tag->{id}")->{json}{total}, 0, 'no row carries the tag');
post_rejected({ %base, tag_ids => 'Receipts' }, 'tag_ids', 'tag_ids not an array');
post_rejected({ %base, trip_id => 999999 }, 'trip_id', 'a trip that does not exist');
{
    my $before = count_all('alice');
    error_is($rig->request('POST', '/api/transactions', user => 'alice', type => 'application/json',
                           body => '{"date": "2026-01-20", "amount": 5, "description": "x"'),
             400, 'invalid_json', 'malformed JSON');
    error_is($rig->request('POST', '/api/transactions', user => 'alice', type => 'application/json',
                           body => '[{"date": "2026-01-20", "amount": 5, "description": "x"}]'),
             400, 'invalid_json', 'a body that is not an object');
    error_is($rig->request('POST', '/api/transactions', user => 'alice', type => 'application/json',
                           body => '{"date": "2026-01-20", "amount": 1e14, "description": "x"}'),
             400, 'invalid_field', 'an amount written 1e14', 'amount');
    error_is($rig->request('POST', '/api/transactions', user => 'alice', type => 'application/json',
                           body => '{"date": "2026-01-20", "amount": 10000000000000.01, "description": "x"}'),
             400, 'invalid_field', 'an amount just over 10^13', 'amount');
    is(count_all('alice'), $before, 'and none of those wrote anything');
}

# Money past int64 cents is refused, not wrapped: 99999999999999999 is
# 9999999999999999900 cents, past INT64_MAX (9223372036854775807): refused,
# whichever its sign, and nothing is written.
{
    my $total = sub { $rig->get('/api/transactions?exclude_categories=&limit=1', user => 'alice')->{json}{total} };
    my $before = $total->();
    ok(defined $before, 'alice\'s list has a total');
    for my $a ('99999999999999999', '-99999999999999999', '92233720368547758.08') {
        my $body = '{"date": "2024-09-01", "description": "too big", "amount": ' . $a . '}';
        error_is($rig->request('POST', '/api/transactions', user => 'alice', body => $body,
                               type => 'application/json'),
                 400, 'invalid_field', "POST /api/transactions amount $a (past int64 cents)", 'amount');
    }
    is($total->(), $before, 'no row was written by any of them');
    is($rig->get('/api/transactions?search=too%20big&exclude_categories=', user => 'alice')->{json}{total}, 0,
       'no "too big" row exists');
}

# ==== POST: payment methods ===================================================

for my $pm (qw(card cash bank_transfer other credits)) {
    is(create('alice', description => "Paid by $pm", payment_method => $pm)->{payment_method},
       $pm, "payment_method $pm is accepted");
}
$row = create('alice', description => 'Paid somehow', payment_method => undef);
ok(exists $row->{payment_method} && !defined $row->{payment_method}, 'payment_method null is accepted');

# Tags given on create come back inline.
$row = create('alice', description => 'Tagged receipt', tag_ids => [$alice_tag->{id}]);
is_deeply($row->{tags}, [{ id => $alice_tag->{id}, name => 'Receipts', color => '#00aa00' }],
          'tag_ids on POST link the tags, shown inline');

# ==== POST: splits (rule A) ===================================================

# A split on alice's row: the remainder is written for the OWNER.
my %shared_bob;   # alice's rows bob takes part in, for the scope checks
my $s1 = create('alice', description => 'Pizza night', merchant => 'Pizza Place', amount => 40,
                category => 'dining',
                splits => [{ participant_id => $uid{bob}, share_percent => 25 }]);
$shared_bob{ $s1->{id} } = 1;
is_deeply([map { [$_->{participant_id}, m2($_->{share_percent}), m2($_->{amount}), $_->{settled} ? 1 : 0] }
           @{ $s1->{splits} }],
          [[$uid{alice}, '75.00', '30.00', 0], [$uid{bob}, '25.00', '10.00', 0]],
          'bob 25% of 40.00 leaves alice (the owner) a 75% row of 30.00');
ok(!grep({ !exists $_->{name} || !JSON::PP::is_bool($_->{settled}) } @{ $s1->{splits} }),
   'split rows carry name and a boolean settled');
is_deeply([m2($s1->{my_share_pct}), m2($s1->{my_amount})], ['75.00', '30.00'],
          "the owner's my_share_pct and my_amount on a split row");

# 10.00 in three: the cents are apportioned by largest remainder and sum to
# the amount exactly; the owner's 33.34% takes the odd cent.
my $s2 = create('alice', description => 'Three-way taxi', amount => 10,
                splits => [{ participant_id => $uid{bob}, share_percent => 33.33 },
                           { participant_id => $uid{carol}, share_percent => 33.33 }]);
$shared_bob{ $s2->{id} } = 1;
my %sp = map { $_->{participant_id} => $_ } @{ $s2->{splits} };
is_deeply([map { [m2($sp{ $uid{$_} }{share_percent}), m2($sp{ $uid{$_} }{amount})] } qw(alice bob carol)],
          [['33.34', '3.34'], ['33.33', '3.33'], ['33.33', '3.33']],
          '10.00 split 33.33/33.33: the owner gets 33.34% and 3.34');
my $sum = 0;
$sum += cents($_->{share_percent}) for @{ $s2->{splits} };
is($sum, 10000, 'the shares total exactly 100');
$sum = 0;
$sum += cents($_->{amount}) for @{ $s2->{splits} };
is($sum, 1000, 'the split amounts sum exactly to 10.00');

my $s3 = create('alice', description => 'One cent', amount => 0.01,
                splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$shared_bob{ $s3->{id} } = 1;
%sp = map { $_->{participant_id} => $_ } @{ $s3->{splits} };
is_deeply([m2($sp{ $uid{alice} }{amount}), m2($sp{ $uid{bob} }{amount})], ['0.01', '0.00'],
          '0.01 split 50/50: the tied cent goes to the owner');
is(m2($s3->{my_amount}), '0.01', "and is the owner's my_amount");

# The tie goes to the owner even when a participant has the lower id:
# carol's cent split with alice stays carol's.
my $s7 = create('carol', description => "Carol's cent", amount => 0.01,
                splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);
%sp = map { $_->{participant_id} => $_ } @{ $s7->{splits} };
ok($uid{alice} < $uid{carol}, 'alice has the lower id');
is_deeply([m2($sp{ $uid{carol} }{amount}), m2($sp{ $uid{alice} }{amount})], ['0.01', '0.00'],
          'a tied cent goes to the owner before a lower participant id');
is(m2(get_row('alice', $s7->{id})->{my_amount}), '0.00', "and alice's my_amount is 0.00");

# Two cents in three: the owner's larger remainder takes one, then the tie
# between bob and carol goes to the lower participant id.
my $s4 = create('alice', description => 'Two cents', amount => 0.02,
                splits => [{ participant_id => $uid{carol}, share_percent => 33.33 },
                           { participant_id => $uid{bob}, share_percent => 33.33 }]);
$shared_bob{ $s4->{id} } = 1;
%sp = map { $_->{participant_id} => $_ } @{ $s4->{splits} };
my ($low, $high) = sort { $uid{$a} <=> $uid{$b} } qw(bob carol);
is_deeply([map { m2($sp{ $uid{$_} }{amount}) } 'alice', $low, $high], ['0.01', '0.01', '0.00'],
          '0.02 in three: the owner, then the lowest participant id');

# The owner may be named when the shares total exactly 100.
my $s5 = create('alice', description => 'Named owner', amount => 50,
                splits => [{ participant_id => $uid{alice}, share_percent => 60 },
                           { participant_id => $uid{bob}, share_percent => 40 }]);
$shared_bob{ $s5->{id} } = 1;
%sp = map { $_->{participant_id} => $_ } @{ $s5->{splits} };
is_deeply([map { [m2($sp{ $uid{$_} }{share_percent}), m2($sp{ $uid{$_} }{amount})] } qw(alice bob)],
          [['60.00', '30.00'], ['40.00', '20.00']], 'a named owner keeps the share given');
is(scalar @{ $s5->{splits} }, 2, 'and no extra remainder row is made');

# A split of a foreign-currency row is apportioned in the home currency.
my $s6 = create('alice', description => 'Split in dollars', amount => 100, currency => 'USD',
                amount_aud => 150,
                splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$shared_bob{ $s6->{id} } = 1;
is_deeply([map { m2($_->{amount}) } @{ $s6->{splits} }], ['75.00', '75.00'],
          'split amounts come from amount_aud');
is(m2($s6->{my_amount}), '75.00', "the owner's my_amount of a split foreign row");

# Refusals: each a 400, and no row (nor split) written.
my @bob25 = ({ participant_id => $uid{bob}, share_percent => 25 });
post_rejected({ %base, splits => { participant_id => $uid{bob}, share_percent => 25 } }, 'splits',
              'splits not an array');
post_rejected({ %base, splits => 'bob' }, 'splits', 'splits a string');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => 60 },
                                  { participant_id => $uid{carol}, share_percent => 50 }] },
              undef, 'splits totalling 110');
post_rejected({ %base, splits => [{ participant_id => $uid{alice}, share_percent => 50 },
                                  { participant_id => $uid{bob}, share_percent => 25 }] },
              undef, 'the owner named with a total of 75');
post_rejected({ %base, splits => [{ participant_id => $uid{alice}, share_percent => 100 }] },
              'splits', 'the owner alone at 100 (a split with nobody)');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => 0 }] },
              undef, 'a share of 0');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => -10 }] },
              undef, 'a negative share');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => 20 },
                                  { participant_id => $uid{bob}, share_percent => 30 }] },
              undef, 'a repeated participant');
post_rejected({ %base, splits => [{ participant_id => 999999, share_percent => 25 }] },
              undef, 'an unknown participant 999999');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => 33.333 }] },
              undef, 'a share with 3 decimals');
post_rejected({ %base, splits => [{ participant_id => $uid{bob}, share_percent => '25' }] },
              undef, 'a share given as a string');

# ==== my_share_pct and my_amount as the participant sees them ================

$row = get_row('bob', $s1->{id});
is_deeply([m2($row->{my_share_pct}), m2($row->{my_amount}), $row->{owner_id}],
          ['25.00', '10.00', $uid{alice}], "bob's own share of alice's row, by id");
my ($in_list) = grep { $_->{id} == $s1->{id} } @{ list('bob', 'limit=500')->{json}{items} };
ok($in_list, "the row shared with bob is in bob's list");
is_deeply($in_list, $row, "and reads there as it does by id, bob's share included");
is_deeply([m2(get_row('bob', $s6->{id})->{my_amount}), m2(get_row('carol', $s2->{id})->{my_share_pct}),
           m2(get_row('carol', $s2->{id})->{my_amount})],
          ['75.00', '33.33', '3.33'], "participants' my_amount uses amount_aud and their apportioned cents");

# ==== notes: the owner's words about a row =====================================

my $noted = create('alice', description => 'Hardware store', amount => 12, notes => 'hooks for the hall');
is($noted->{notes}, 'hooks for the hall', 'a manual row keeps the notes it is created with');
is($s1->{notes}, undef, 'a row created without notes has none');
is($rig->patch("/api/transactions/$noted->{id}", { notes => 'and screws' }, user => 'alice')->{json}{notes},
   'and screws', 'the owner changes them');
is($rig->patch("/api/transactions/$noted->{id}", { notes => undef }, user => 'alice')->{json}{notes},
   undef, 'and clears them with null');
my $shared_before = get_row('alice', $s1->{id});
error_is($rig->patch("/api/transactions/$s1->{id}", { notes => 'mine now' }, user => 'bob'),
         403, 'forbidden', "a participant cannot write the owner's notes");
is_deeply(get_row('alice', $s1->{id}), $shared_before, 'and the shared row is unchanged');
error_is($rig->patch("/api/transactions/$noted->{id}", { notes => 'n' x 1001 }, user => 'alice'),
         400, 'invalid_field', 'notes of 1001 bytes', 'notes');
post_rejected({ %base, notes => 42 }, 'notes', 'notes a number');

# ==== access =================================================================

# carol has nothing to do with s1.
my $s1_before = get_row('alice', $s1->{id});
error_is($rig->get("/api/transactions/$s1->{id}", user => 'carol'), 403, 'forbidden',
         "a stranger cannot GET alice's row");
error_is($rig->patch("/api/transactions/$s1->{id}", { category => 'travel' }, user => 'carol'),
         403, 'forbidden', "a stranger cannot PATCH alice's row");
error_is($rig->del("/api/transactions/$s1->{id}", user => 'carol'), 403, 'forbidden',
         "a stranger cannot DELETE alice's row");
is_deeply(get_row('alice', $s1->{id}), $s1_before, 'and the row is unchanged');
error_is($rig->get('/api/transactions/999999', user => 'alice'), 404, 'not_found', 'GET a missing id');
error_is($rig->patch('/api/transactions/999999', { category => 'x' }, user => 'alice'), 404,
         'not_found', 'PATCH a missing id');
error_is($rig->del('/api/transactions/999999', user => 'alice'), 404, 'not_found', 'DELETE a missing id');

# bob takes part in s1: he reads it and sets overrides, no more.
is($rig->get("/api/transactions/$s1->{id}", user => 'bob')->{status}, 200, 'the participant can GET');
$res = $rig->patch("/api/transactions/$s1->{id}", { category => 'Entertainment' }, user => 'bob');
is($res->{status}, 200, 'the participant can PATCH an override');
is_deeply([$res->{json}{category}, $res->{json}{overrides}{category}],
          ['entertainment', 'entertainment'], 'and the override is in effect');
is($rig->patch("/api/transactions/$s1->{id}", { category => undef }, user => 'bob')->{json}{category},
   'dining', 'the participant clears the override: the base is back');
# A refund override resolves against the OWNER's history at the merchant
# (s1 itself, dining), not the participant's (two gifts at Pizza Place).
push @bob_own, create('bob', description => "Bob's pizza $_", merchant => 'Pizza Place',
                      category => 'gifts')->{id} for 1 .. 2;
is($rig->patch("/api/transactions/$s1->{id}", { category => 'refund' }, user => 'bob')->{json}{category},
   'dining', "a participant's refund override follows the owner's usual category");
$rig->patch("/api/transactions/$s1->{id}", { category => undef }, user => 'bob');

patch_rejected('bob', $s1->{id}, { date => '2026-01-01' }, 403, 'forbidden',
               'the participant cannot change the date');
patch_rejected('bob', $s1->{id}, { amount => 1 }, 403, 'forbidden',
               'the participant cannot change the amount');
patch_rejected('bob', $s1->{id}, { description => 'mine now' }, 403, 'forbidden',
               'the participant cannot change the description');
# The type says which way the money went: a participant turning the
# owner's debit into a refund would turn their own debt around.
patch_rejected('bob', $s1->{id}, { transaction_type => 'refund' }, 403, 'forbidden',
               'the participant cannot change the transaction_type', 'transaction_type');
patch_rejected('bob', $s1->{id}, { category => 'travel', amount => 1 }, 403, 'forbidden',
               'a refused patch applies none of its fields');
error_is($rig->del("/api/transactions/$s1->{id}", user => 'bob'), 403, 'forbidden',
         'the participant cannot DELETE');
is($rig->get("/api/transactions/$s1->{id}", user => 'alice')->{status}, 200, 'the row is still there');

# ==== PATCH ==================================================================

my $p = create('alice', date => '2026-01-12', amount => 20, description => 'Gadget',
               merchant => 'Acme Store', category => 'shopping');
my $pid = $p->{id};
sub patch_ok {
    my ($body, $what) = @_;
    my $r = $rig->patch("/api/transactions/$pid", $body, user => 'alice');
    is($r->{status}, 200, $what) or diag($r->{content});
    return $r->{json} // {};
}

# Category override: the effective value changes, the base is kept.
$row = patch_ok({ category => 'Health' }, 'override the category');
is_deeply([$row->{category}, $row->{overrides}{category}], ['health', 'health'],
          'effective category and overrides.category are the folded override');
is(get_row('alice', $pid)->{category}, 'health', 'as read back');
$row = patch_ok({ category => undef }, 'clear the category override');
is_deeply([$row->{category}, $row->{overrides}{category}], ['shopping', undef],
          'the base category is back');
is(patch_ok({ category => 'Personal Care' }, 'override with a variant')->{category}, 'personal_care',
   'overrides are folded too');
patch_ok({ category => undef }, 'and clear it');

# Merchant override.
$row = patch_ok({ merchant_normalized => 'ACME' }, 'override merchant_normalized');
is_deeply([@$row{qw(merchant merchant_normalized)}, $row->{overrides}{merchant_normalized}],
          ['Acme Store', 'ACME', 'ACME'], 'merchant kept, merchant_normalized overridden');
$row = patch_ok({ merchant_normalized => undef }, 'clear the merchant override');
is($row->{overrides}{merchant_normalized}, undef, 'overrides.merchant_normalized cleared');

# Share override: 0..100.
$row = patch_ok({ my_share_percent => 40 }, 'override my_share_percent');
is_deeply([map { m2($_) } $row->{my_share_pct}, $row->{my_amount}, $row->{overrides}{my_share_percent}],
          ['40.00', '8.00', '40.00'], 'my_share_pct 40 of 20.00 is 8.00');
is_deeply([map { m2($_) } @{ patch_ok({ my_share_percent => 0 }, 'a share of 0') }{qw(my_share_pct my_amount)}],
          ['0.00', '0.00'], 'a share of 0 is allowed');
is(m2(patch_ok({ my_share_percent => 100 }, 'a share of 100')->{my_share_pct}), '100.00', '100 is allowed');
patch_rejected('alice', $pid, { my_share_percent => 101 }, 400, 'invalid_field', 'my_share_percent 101',
               'my_share_percent');
patch_rejected('alice', $pid, { my_share_percent => -1 }, 400, 'invalid_field', 'my_share_percent -1',
               'my_share_percent');
patch_rejected('alice', $pid, { my_share_percent => 12.345 }, 400, 'invalid_field',
               'my_share_percent with 3 decimals', 'my_share_percent');
$row = patch_ok({ my_share_percent => undef }, 'clear the share override');
is_deeply([m2($row->{my_share_pct}), $row->{overrides}{my_share_percent}], ['100.00', undef],
          'back to 100 for the owner');

# Direct fields.
is(patch_ok({ transaction_type => 'credit' }, 'change transaction_type')->{transaction_type}, 'credit',
   'transaction_type is now credit');
patch_rejected('alice', $pid, { transaction_type => 'gift' }, 400, 'invalid_field',
               'transaction_type gift', 'transaction_type');
patch_rejected('alice', $pid, { transaction_type => undef }, 400, 'invalid_field',
               'transaction_type null', 'transaction_type');
is(patch_ok({ payment_method => 'credits' }, 'payment_method credits')->{payment_method}, 'credits',
   'credits is accepted on PATCH');
$res = patch_rejected('alice', $pid, { payment_method => 'bitcoin' }, 400, 'invalid_field',
                      'payment_method bitcoin on PATCH', 'payment_method');
like($res->{json}{error}{message} // '', qr/card, cash, bank_transfer, other, credits/,
     'the PATCH message lists the allowed payment methods');
is(patch_ok({ payment_method => undef }, 'payment_method null')->{payment_method}, undef,
   'payment_method cleared');

# The owner changes a manual row's own date, amount and description.
$row = patch_ok({ date => '2026-01-13', amount => 21.5, description => 'Gadget (repaired)' },
                'the owner changes date, amount, description');
is_deeply([@$row{qw(date description)}, m2($row->{amount}), m2($row->{my_amount})],
          ['2026-01-13', 'Gadget (repaired)', '21.50', '21.50'], 'all three changed');
is_deeply([@{ get_row('alice', $pid) }{qw(date description)}], ['2026-01-13', 'Gadget (repaired)'],
          'as read back');
patch_rejected('alice', $pid, { date => '2026-02-30' }, 400, 'invalid_field', 'PATCH date 2026-02-30', 'date');
patch_rejected('alice', $pid, { date => undef }, 400, 'invalid_field', 'PATCH date null', 'date');
patch_rejected('alice', $pid, { amount => 1.234 }, 400, 'invalid_field', 'PATCH amount 1.234', 'amount');
patch_rejected('alice', $pid, { amount => -1 }, 400, 'invalid_field', 'PATCH a negative amount', 'amount');

# Unknown fields are ignored; wrong types are 400 naming the field.
$row = patch_ok({ frobnicate => 1, category => 'home' }, 'an unknown field is ignored');
is($row->{category}, 'home', 'and the known field applied');
patch_ok({ category => undef }, 'clear it again');
is_deeply(patch_ok({}, 'an empty patch'), get_row('alice', $pid), 'changes nothing');
patch_rejected('alice', $pid, { category => 5 }, 400, 'invalid_field', 'category a number', 'category');
patch_rejected('alice', $pid, { merchant_normalized => ['x'] }, 400, 'invalid_field',
               'merchant_normalized an array', 'merchant_normalized');
patch_rejected('alice', $pid, { my_share_percent => '50' }, 400, 'invalid_field',
               'my_share_percent a string', 'my_share_percent');
patch_rejected('alice', $pid, { trip_id => 'x' }, 400, 'invalid_field', 'trip_id a string', 'trip_id');
patch_rejected('alice', $pid, { trip_id => 999999 }, 400, 'invalid_field', 'trip_id of no trip', 'trip_id');
patch_rejected('alice', $pid, { amount => '21.50' }, 400, 'invalid_field', 'amount a string', 'amount');
patch_rejected('alice', $pid, { description => 7 }, 400, 'invalid_field', 'description a number',
               'description');
patch_rejected('alice', $pid, { transaction_type => 3 }, 400, 'invalid_field', 'transaction_type a number',
               'transaction_type');
patch_rejected('alice', $pid, '[{"category": "home"}]', 400, 'invalid_json', 'a PATCH body that is an array');
patch_rejected('alice', $pid, '"home"', 400, 'invalid_json', 'a PATCH body that is a string');
patch_rejected('alice', $pid, '{"category": ', 400, 'invalid_json', 'a malformed PATCH body');

# ==== DELETE =================================================================

my $gone = create('alice', description => 'Mistake');
my $before = count_all('alice');
$res = $rig->del("/api/transactions/$gone->{id}", user => 'alice');
is($res->{status}, 204, 'the owner deletes a manual row');
is($res->{content} // '', '', 'with no body');
error_is($rig->get("/api/transactions/$gone->{id}", user => 'alice'), 404, 'not_found',
         'the deleted row is gone');
error_is($rig->del("/api/transactions/$gone->{id}", user => 'alice'), 404, 'not_found', 'deleted twice');
is(count_all('alice'), $before - 1, 'the list has one row fewer');
# A split row deleted by its owner leaves the participant's list too.
is($rig->del("/api/transactions/$s3->{id}", user => 'alice')->{status}, 204, 'the owner deletes a split row');
delete $shared_bob{ $s3->{id} };
error_is($rig->get("/api/transactions/$s3->{id}", user => 'bob'), 404, 'not_found',
         'the participant finds it gone');
# The newest row deleted, the next row created must not inherit its tags or
# splits (SQLite may hand out the same id again).
$gone = create('alice', description => 'Newest, tagged and split', tag_ids => [$alice_tag->{id}],
               splits => [{ participant_id => $uid{bob}, share_percent => 10 }]);
is($rig->del("/api/transactions/$gone->{id}", user => 'alice')->{status}, 204, 'delete the newest row');
$row = create('alice', description => 'Fresh row');
is_deeply([$row->{tags}, $row->{splits}, m2($row->{my_share_pct})], [[], [], '100.00'],
          'the next row has no tags or splits of the deleted one');
is($rig->del("/api/transactions/$row->{id}", user => 'alice')->{status}, 204, '(and goes again)');

# ==== scope ==================================================================

push @bob_own, create('bob', description => 'Coffee with bob', merchant => 'Bean Bar',
                      date => '2026-02-02', amount => 6, category => 'dining')->{id};
my %bob_expect = map { $_ => 1 } @bob_own, keys %shared_bob;
my ($bob_ids, $bob_doc) = list_ids('bob', 'exclude_categories=&limit=500', "bob's list");
is($bob_doc->{total}, scalar keys %bob_expect, "bob's total counts his own and the shared rows");
is_deeply([sort { $a <=> $b } @$bob_ids], [sort { $a <=> $b } keys %bob_expect],
          "bob's list is exactly his own rows and alice's rows split with him");
ok(!grep({ $_ == $lunch->{id} } @$bob_ids), "alice's unshared row is not in bob's list");
error_is($rig->get("/api/transactions/$lunch->{id}", user => 'bob'), 403, 'forbidden',
         "nor can bob read it by id");
my ($alice_ids) = list_ids('alice', 'exclude_categories=&limit=500', "alice's list");
ok(!grep({ my $id = $_; grep { $_ == $id } @bob_own } @$alice_ids), "alice's list holds none of bob's rows");
my @shared_rows = grep { $shared_bob{ $_->{id} } } @{ list('bob', 'exclude_categories=&limit=500')->{json}{items} };
ok(!grep({ $_->{owner_id} != $uid{alice} } @shared_rows), 'the shared rows show alice as the owner');

# Bob's pages merge his own rows with shared ones: a keyset walk still sees
# each row once.
{
    my (@seen, $cursor, $pages);
    do {
        my $r = list('bob', 'exclude_categories=&limit=2' . (defined $cursor ? "&cursor=$cursor" : ''));
        push @seen, map { $_->{id} } @{ $r->{json}{items} };
        $cursor = $r->{json}{next_cursor};
    } while (defined $cursor && ++$pages < 50);
    is_deeply(\@seen, $bob_ids, "keyset pages over bob's own and shared rows: each once, in order");
}

# ==== list filters (dave) =====================================================

my $t1 = $rig->post('/api/tags', { name => 'T1' }, user => 'dave')->{json}{id};
my $t2 = $rig->post('/api/tags', { name => 'T2' }, user => 'dave')->{json}{id};
my %D;
for my $d (
    [d1  => '2026-02-01', 5,     'Morning coffee',      'Bean Bar',   'Dining',    'debit',   tag_ids => [$t1]],
    [d2  => '2026-02-03', 12.5,  'Weekly shop',         'FreshMart',  'groceries', 'debit'],
    [d3  => '2026-02-05', 20,    'Train fare',          'Metro Rail', 'transport', 'debit',   tag_ids => [$t1, $t2]],
    [d4  => '2026-02-07', 45,    'Dinner with friends', 'Bean Bar',   'dining',    'debit',
     splits => [{ participant_id => $uid{carol}, share_percent => 50 }]],
    [d5  => '2026-02-10', 100,   'Card repayment',      'Big Bank',   'payment',   'payment'],
    [d6  => '2026-02-12', 15,    'Shoes returned',      'Shoe Hub',   undef,       'refund'],
    [d7  => '2026-02-15', 20.01, 'Coffee beans 1kg',    'Bean Bar',   'groceries', 'debit'],
    [d8  => '2026-02-20', 4.99,  'ATM fee',             undef,        'fees',      'fee'],
    [d9  => '2026-02-28', 60,    'Flight_deposit 100%', 'AirCo',      'travel',    'debit'],
    [d10 => '2026-02-05', 20,    'Bus pass',            'Metro Rail', 'transport', 'debit'],
) {
    my ($name, $date, $amount, $desc, $merchant, $cat, $type, %extra) = @$d;
    my %f = (date => $date, amount => $amount, description => $desc, transaction_type => $type, %extra);
    $f{merchant} = $merchant if defined $merchant;
    $f{category} = $cat if defined $cat;
    $D{$name} = create('dave', %f)->{id};
    $name_of{ $D{$name} } = $name;
}
is(get_row('dave', $D{d5})->{category}, 'transfers', 'd5 is a transfer');
is(get_row('dave', $D{d6})->{category}, undef, 'd6 is uncategorised');
my @all = map { "d$_" } 1 .. 10;
my @visible = grep { $_ ne 'd5' } @all;   # transfers hidden by default

set_is('dave', '', \@visible, 'no filter: transfers hidden by default');
set_is('dave', 'exclude_categories=', \@all, 'exclude_categories= (empty) hides nothing');
set_is('dave', 'categories[]=transfers', ['d5'], 'asking for transfers shows them');
set_is('dave', 'categories=transfers&exclude_categories=transfers', ['d5'],
       'a category asked for is removed from the hidden list');
set_is('dave', 'categories[]=transfers&categories[]=fees', [qw(d5 d8)], 'transfers and fees');

# Dates, inclusive at both ends.
set_is('dave', 'date_from=2026-02-05&date_to=2026-02-12', [qw(d3 d4 d6 d10)], 'date_from..date_to inclusive');
set_is('dave', 'date_from=2026-02-05&date_to=2026-02-12&exclude_categories=', [qw(d3 d4 d5 d6 d10)],
       'the same range with transfers');
set_is('dave', 'date_from=2026-02-15', [qw(d7 d8 d9)], 'date_from alone');
set_is('dave', 'date_to=2026-02-03', [qw(d1 d2)], 'date_to alone');

# Categories, both array forms, folded.
set_is('dave', 'categories[]=dining&categories[]=groceries', [qw(d1 d2 d4 d7)], 'categories[] twice');
set_is('dave', 'categories=dining&categories=groceries', [qw(d1 d2 d4 d7)], 'categories without []');
set_is('dave', 'categories=dining', [qw(d1 d4)], 'categories=dining');
set_is('dave', 'categories=Dining', [qw(d1 d4)], 'a category filter is folded like the data');
# A value that folds to no category is ignored, like an empty one.
set_is('dave', 'categories=%20', \@visible, 'categories of only a space is ignored');
set_is('dave', 'categories=--&categories=dining', [qw(d1 d4)], 'categories -- beside dining: dining');

# Exclusions: explicit ones replace the default; no category is never hidden.
set_is('dave', 'exclude_categories[]=dining&exclude_categories[]=groceries', [qw(d3 d5 d6 d8 d9 d10)],
       'exclude_categories[] twice (the uncategorised d6 stays)');
set_is('dave', 'exclude_categories=transport', [qw(d1 d2 d4 d5 d6 d7 d8 d9)],
       'exclude_categories=transport');
set_is('dave', 'exclude_categories=dining&categories=dining', [qw(d1 d4)],
       'a category asked for and excluded is shown');

set_is('dave', 'bank_names[]=Manual', \@visible, 'bank_names[]=Manual');
set_is('dave', 'bank_names=Manual&exclude_categories=', \@all, 'bank_names=Manual with transfers');
set_is('dave', 'bank_names[]=Westpac', [], 'a bank with no rows');

set_is('dave', "tag_ids[]=$t1", [qw(d1 d3)], 'tag_ids[]=T1');
set_is('dave', "tag_ids=$t2", [qw(d3)], 'tag_ids=T2');
set_is('dave', "tag_ids[]=$t1&tag_ids[]=$t2", [qw(d1 d3)], 'tag_ids T1 or T2');

set_is('dave', 'transaction_types[]=fee', [qw(d8)], 'transaction_types[]=fee');
set_is('dave', 'transaction_types[]=refund&transaction_types[]=fee', [qw(d6 d8)], 'refund or fee');
set_is('dave', 'transaction_types=payment', [], 'payment rows are transfers here, hidden');
set_is('dave', 'transaction_types=payment&exclude_categories=', [qw(d5)], 'shown when nothing is excluded');

# Search: case-insensitive substring of description, merchant, and the
# effective merchant_normalized.
set_is('dave', 'search=bean', [qw(d1 d4 d7)], 'search bean (merchant or description)');
set_is('dave', 'search=COFFEE', [qw(d1 d7)], 'search is case-insensitive');
set_is('dave', 'search=' . enc('green grocer'), [], 'no row is called Green Grocer yet');
is($rig->patch("/api/transactions/$D{d2}", { merchant_normalized => 'Green Grocer' }, user => 'dave')->{status},
   200, 'dave overrides the merchant of d2');
set_is('dave', 'search=' . enc('green grocer'), [qw(d2)], 'search finds the merchant_normalized override');
set_is('dave', 'search=freshmart', [qw(d2)], 'and still the raw merchant');
set_is('dave', 'search=_', [qw(d9)], 'an underscore is a character, not a wildcard');
set_is('dave', 'search=' . enc('%'), [qw(d9)], 'a percent sign is a character, not a wildcard');
set_is('dave', 'search=' . enc("' OR 1=1 --"), [], 'SQL-looking search text matches nothing');
set_is('dave', 'search=bob', [], "another user's rows are not searched");
# Case beyond ASCII: LIKE alone folds only A-Z.  (The row is deleted
# again: the amount filters below count dave's rows.)
$res = $rig->request('POST', '/api/transactions', user => 'dave', type => 'application/json',
                     body => '{"date":"2026-03-01","amount":1,"description":"Caf\u00e9 Z\u00fcrich'
                             . ' \u0218OSEA PH\u1ede \u0490\u0420\u0410\u041d\u0422",'
                             . '"merchant":"\u00c9PICERIE \u0391\u0398\u0397\u039d\u0391 \u03aa"}');
is($res->{status}, 201, 'a row with accented, Greek and upper-case text') or diag($res->{content});
my $uni = $res->{json}{id};
for my $q (["CAF\xc3\x89", 'CAFE with an acute finds Cafe with one'],
           ["z\xc3\xbcRICH", 'zueRICH finds Zuerich'],
           ["\xc3\xa9picerie", 'epicerie finds EPICERIE, accents and all'],
           ["\xce\xb1\xce\xb8\xce\xb7\xce\xbd", 'Greek lower case finds Greek upper case'],
           ["caf\xc3\xa9 z", 'a term with a space'],
           ["\xc8\x99osea", 'Romanian lower case finds upper case'],
           ["ph\xe1\xbb\x9f", 'Vietnamese lower case finds upper case'],
           ["\xd2\x91\xd1\x80\xd0\xb0\xd0\xbd\xd1\x82", 'Ukrainian lower case finds upper case'],
           ["\xcf\x8a", 'Greek iota with dialytika, lower case, finds upper case']) {
    my $found = $rig->get('/api/transactions?search=' . enc($q->[0]), user => 'dave')->{json}{items} // [];
    is_deeply([map $_->{id}, @$found], [$uni], "search: $q->[1]");
}
my $mer = $rig->get('/api/merchants?search=' . enc("\xc3\xa9picerie"), user => 'dave')->{json};
is($mer->{total}, 1, 'merchants search: lower case finds the upper-case merchant');
is($rig->get('/api/transactions?search=' . enc("CAF\xc3\x88"), user => 'dave')->{json}{total}, 0,
   'but E-grave is not E-acute');
is($rig->del("/api/transactions/$uni", user => 'dave')->{status}, 204, 'the row is deleted again');

set_is('dave', 'amount_min=20', [qw(d3 d4 d7 d9 d10)], 'amount_min inclusive');
set_is('dave', 'amount_max=5', [qw(d1 d8)], 'amount_max inclusive');
set_is('dave', 'amount_min=12.50&amount_max=20', [qw(d2 d3 d6 d10)], 'amount range');

set_is('dave', 'has_split=split', [qw(d4)], 'has_split=split');
set_is('dave', 'has_split=unsplit', [grep { $_ ne 'd4' } @visible], 'has_split=unsplit');
set_is('dave', 'has_split=all', \@visible, 'has_split=all');

# The query bar.
set_is('dave', 'q=' . enc('>20'), [qw(d4 d7 d9)], 'q >20');
set_is('dave', 'q=' . enc('>=20'), [qw(d3 d4 d7 d9 d10)], 'q >=20');
set_is('dave', 'q=' . enc('<5'), [qw(d8)], 'q <5');
set_is('dave', 'q=' . enc('<=5'), [qw(d1 d8)], 'q <=5');
set_is('dave', 'q=10-20', [qw(d2 d3 d6 d10)], 'q 10-20');
set_is('dave', 'q=' . enc('bean coffee'), [qw(d1 d7)], 'q words: all must match');
set_is('dave', 'q=' . enc('bean >10'), [qw(d4 d7)], 'q a word and a bound');
set_is('dave', 'q=' . enc('metro pass'), [qw(d10)], 'q words over description and merchant');

# Combinations.
set_is('dave', 'categories=dining&date_from=2026-02-05', [qw(d4)], 'category and date');
set_is('dave', 'search=bean&has_split=unsplit', [qw(d1 d7)], 'search and has_split');
set_is('dave', "tag_ids=$t1&amount_min=10", [qw(d3)], 'tag and amount');
set_is('dave', 'transaction_types=debit&amount_max=20&date_from=2026-02-03', [qw(d2 d3 d10)],
       'type, amount and date');

# carol takes part in d4 only.
$row = get_row('carol', $D{d4});
is_deeply([m2($row->{my_share_pct}), m2($row->{my_amount})], ['50.00', '22.50'], "carol's half of d4");

# Invalid parameters: 400 naming the parameter.
for my $bad (['date_from=2026-13-01', 'date_from'], ['date_to=yesterday', 'date_to'],
             ['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=ten', 'limit'],
             ['offset=-1', 'offset'], ['sort=bogus', 'sort'], ['order=up', 'order'],
             ['has_split=maybe', 'has_split'], ['amount_min=1.234', 'amount_min'],
             ['amount_max=lots', 'amount_max'], ['transaction_types=gift', 'transaction_types'],
             ['tag_ids=abc', 'tag_ids'], ['cursor=zz', 'cursor'], ['cursor=abc', 'cursor']) {
    error_is(list('dave', $bad->[0]), 400, 'invalid_field', "list with $bad->[0]", $bad->[1]);
}
# A whole number past the largest amount is refused for its size, not its
# decimals (it has none).
$res = list('dave', 'amount_max=99999999999999');
error_is($res, 400, 'invalid_field', 'amount_max past the largest amount', 'amount_max');
like($res->{json}{error}{message} // '', qr/at most 10000000000000/, 'the message names the largest amount');

# ==== sorting (dave) ===========================================================

order_is('dave', '', [qw(d9 d8 d7 d6 d4 d10 d3 d2 d1)], 'default: date desc, ties by id desc');
order_is('dave', 'sort=date&order=asc', [qw(d1 d2 d3 d10 d4 d6 d7 d8 d9)], 'date asc, ties by id asc');
order_is('dave', 'sort=amount', [qw(d9 d4 d7 d10 d3 d6 d2 d1 d8)], 'amount desc');
order_is('dave', 'sort=amount&order=asc', [qw(d8 d1 d2 d6 d3 d10 d7 d4 d9)], 'amount asc');
order_is('dave', 'sort=created_at&order=asc', [qw(d1 d2 d3 d4 d6 d7 d8 d9 d10)],
         'created_at asc (rows made in one second tie, broken by id)');
order_is('dave', 'sort=created_at', [qw(d10 d9 d8 d7 d6 d4 d3 d2 d1)], 'created_at desc');
order_is('dave', 'sort=merchant&order=asc&transaction_types=debit', [qw(d9 d1 d4 d7 d2 d3 d10)],
         'merchant asc, by the effective merchant (d2 is Green Grocer)');
order_is('dave', 'sort=merchant&transaction_types=debit', [qw(d10 d3 d2 d7 d4 d1 d9)], 'merchant desc');

# ==== pagination (erin) ========================================================

my %E;
for my $e ([e1 => '2026-03-04', 7, 'Kiosk A'], [e2 => '2026-03-02', 3, 'Kiosk B'],
           [e3 => '2026-03-05', 9, 'Kiosk C'], [e4 => '2026-03-02', 3, 'Kiosk A'],
           [e5 => '2026-03-01', 11, 'Kiosk B'], [e6 => '2026-03-04', 1, 'Kiosk C'],
           [e7 => '2026-03-03', 7, 'Kiosk A']) {
    my ($name, $date, $amount, $merchant) = @$e;
    $E{$name} = create('erin', date => $date, amount => $amount, merchant => $merchant,
                       description => "Snack $name", category => 'dining')->{id};
    $name_of{ $E{$name} } = $name;
}
my @by_date = qw(e3 e6 e1 e7 e4 e2 e5);
order_is('erin', '', \@by_date, "erin's rows by date desc");

# limit and offset.
my ($ids, $doc) = list_ids('erin', 'limit=3', 'limit=3');
is_deeply(names(@$ids), [@by_date[0 .. 2]], 'the first page of 3');
is_deeply([@$doc{qw(total limit offset)}], [7, 3, 0], 'total 7, limit 3, offset 0');
ok(defined $doc->{next_cursor}, 'a next_cursor while rows remain');
($ids, $doc) = list_ids('erin', 'limit=3&offset=3', 'offset=3');
is_deeply(names(@$ids), [@by_date[3 .. 5]], 'the second page of 3');
is_deeply([@$doc{qw(total offset)}], [7, 3], 'total 7, offset 3');
($ids, $doc) = list_ids('erin', 'limit=3&offset=6', 'offset=6');
is_deeply(names(@$ids), [$by_date[6]], 'the last page holds one row');
is($doc->{next_cursor}, undef, 'and next_cursor is null');
($ids, $doc) = list_ids('erin', 'limit=3&offset=7', 'offset=7');
is_deeply([scalar @$ids, $doc->{total}], [0, 7], 'past the end: no rows, total still 7');
($ids, $doc) = list_ids('erin', '', 'no limit');
is_deeply([@$doc{qw(limit offset)}, $doc->{next_cursor}], [50, 0, undef], 'limit defaults to 50, offset to 0');

# Keyset: follow next_cursor two rows at a time.
sub walk {
    my ($user, $query, $expect, $what) = @_;
    my (@seen, @sizes, $cursor, $bad_total);
    for my $page (1 .. 10) {
        my $r = list($user, "$query&limit=2" . (defined $cursor ? "&cursor=$cursor" : ''));
        unless ($r->{status} == 200) {
            fail("$what: page $page") or diag($r->{content});
            return;
        }
        push @seen, map { $_->{id} } @{ $r->{json}{items} };
        push @sizes, scalar @{ $r->{json}{items} };
        $bad_total++ if $r->{json}{total} != @$expect;
        $cursor = $r->{json}{next_cursor};
        last unless defined $cursor;
    }
    is_deeply(names(@seen), $expect, "$what: every row once, in order");
    is_deeply(\@sizes, [(2) x int(@$expect / 2), (@$expect % 2 ? 1 : ())], "$what: pages of 2");
    is($cursor, undef, "$what: next_cursor is null on the last page");
    ok(!$bad_total, "$what: total is the whole list on every page");
}
walk('erin', 'sort=date', \@by_date, 'keyset by date desc');
walk('erin', 'sort=date&order=asc', [reverse @by_date], 'keyset by date asc');
walk('erin', 'sort=amount&order=asc', [qw(e6 e2 e4 e1 e7 e3 e5)], 'keyset by amount asc');
walk('erin', 'sort=amount', [qw(e5 e3 e7 e1 e4 e2 e6)], 'keyset by amount desc');
walk('erin', 'sort=merchant&order=asc', [qw(e1 e4 e7 e2 e5 e3 e6)], 'keyset by merchant asc');
walk('erin', 'sort=created_at', [qw(e7 e6 e5 e4 e3 e2 e1)], 'keyset by created_at desc');
walk('erin', 'date_from=2026-03-02&date_to=2026-03-04', [qw(e6 e1 e7 e4 e2)], 'keyset with a date filter');

# dave's rows, transfers and the merchant-less d8 included: the keyset pages
# of every sort give exactly the rows of one full page, in its order.
for my $sort ('sort=date', 'sort=date&order=asc', 'sort=amount', 'sort=amount&order=asc',
              'sort=created_at', 'sort=merchant', 'sort=merchant&order=asc') {
    my ($full) = list_ids('dave', "$sort&exclude_categories=&limit=500", "dave $sort");
    walk('dave', "$sort&exclude_categories=", names(@$full), "dave's keyset pages, $sort");
}

# A cursor is for the order it came from.
my $cursor = list('erin', 'sort=date&limit=2')->{json}{next_cursor};
ok(defined $cursor, 'a cursor from sort=date');
error_is(list('erin', "sort=amount&limit=2&cursor=$cursor"), 400, 'invalid_field',
         'that cursor with sort=amount', 'cursor');
error_is(list('erin', "sort=date&order=asc&limit=2&cursor=$cursor"), 400, 'invalid_field',
         'that cursor with order=asc', 'cursor');
is(list('erin', "sort=date&limit=2&cursor=$cursor")->{status}, 200, 'and is fine with sort=date');
# Left out, sort and order are the cursor's: following next_cursor alone
# pages on as the first page was sorted (it was a 400).
{
    my $first = list('erin', 'sort=amount&order=asc&limit=2');
    my $second = list('erin', "limit=2&cursor=$first->{json}{next_cursor}");
    is($second->{status}, 200, 'a cursor with no sort or order beside it') or diag($second->{content});
    is_deeply(names(map { $_->{id} } @{ $second->{json}{items} // [] }), [qw(e4 e1)],
              'pages on by amount ascending, as its first page');
    is(list('erin', "order=asc&limit=2&cursor=$first->{json}{next_cursor}")->{status}, 200,
       'with its order alone too');
}
# A cursor whose key is not of its sort's type is not one this list gave.
# (Each with the sort and order it names, which it would match.)
for my $forged (['amount|asc|6|abc', 'sort=amount&order=asc'], ['amount|asc|6|', 'sort=amount&order=asc'],
                ['date|desc|6|2026-13-40', 'sort=date'], ['date|desc|x|2026-01-01', 'sort=date'],
                ['colour|desc|6|red', ''], ['date|sideways|6|2026-01-01', 'sort=date'],
                ['amount|asc|6|18446744073709551617', 'sort=amount&order=asc'],
                ['created_at|desc|6|garbage', 'sort=created_at'],
                ['created_at|asc|6|2026-11-26 10:27:55', 'sort=created_at&order=asc'],
                ['created_at|asc|6|2026-02-30T10:00:00Z', 'sort=created_at&order=asc']) {
    (my $hex = unpack('H*', $forged->[0])) =~ tr/A-F/a-f/;
    error_is(list('erin', "$forged->[1]&limit=2&cursor=$hex"), 400, 'invalid_field',
             "a forged cursor '$forged->[0]'", 'cursor');
}

# The last month a date can be in: its total counts its rows (the end of
# December 9999 was once computed as the year 10000, before every date).
{
    my %far;
    for my $d ('9999-12-15', '9999-12-31') {
        my $r = $rig->post('/api/transactions', { date => $d, amount => 1, description => "far $d",
                                                  category => 'dining' }, user => 'carol');
        is($r->{status}, 201, "a row on $d") or diag($r->{content});
        $far{ $r->{json}{id} } = 1;
    }
    for my $q ('date_from=9999-12-01', 'date_from=9999-12-01&categories=dining',
               'date_from=9999-12-10&date_to=9999-12-31', 'date_from=9999-11-30') {
        my ($ids, $doc) = list_ids('carol', "$q&limit=500", $q);
        is_deeply([sort grep { $far{$_} } @$ids], [sort keys %far], "$q: both rows");
        is($doc->{total}, scalar @$ids, "$q: total counts them");
    }
    # And the reports reach that month (its end is no year of four digits;
    # they answered "must be a month YYYY-MM").
    my $m = $rig->get('/api/analytics/monthly?from=9999-11&to=9999-12', user => 'carol');
    is_deeply([ $m->{status}, map { [ $_->{month}, m2($_->{total}) ] } @{ $m->{json}{items} // [] } ],
              [ 200, [ '9999-11', '0.00' ], [ '9999-12', '2.00' ] ], 'monthly analytics to December 9999')
        or diag($m->{content});
    is(m2($rig->get('/api/analytics/monthly/9999-12/dining', user => 'carol')->{json}{total}), '2.00',
       'its dining drill-down');
    is($rig->put('/api/budgets/dining', { amount => 5 }, user => 'carol')->{status}, 200, 'a dining budget');
    my ($b) = @{ $rig->get('/api/budgets?month=9999-12', user => 'carol')->{json}{items} // [] };
    is_deeply([ m2($b->{spent}), m2($b->{remaining}) ], [ '2.00', '3.00' ], 'and its budget in December 9999');
    $rig->del('/api/budgets/dining', user => 'carol');
}

# "Manual" names the manual rows only: no statement may take the name, and
# one that has it from before is matched by no bank_names[] filter, alone
# or beside other names.
{
    my $res = $rig->post('/api/statements', { bank_name => 'Manual', account_type => 'Visa Credit Card',
                                              period_start => '2026-05-01', period_end => '2026-05-31' },
                         user => 'carol');
    error_is($res, 400, 'invalid_field', 'a statement of the bank "Manual"', 'bank_name');
    $res = $rig->post('/api/statements', { bank_name => 'CBA', account_type => 'Visa Credit Card',
                                           period_start => '2026-05-01', period_end => '2026-05-31',
                                           transactions => [{ date => '2026-05-02', description => 'cba row',
                                                              amount => 3, transaction_type => 'debit' }] },
                      user => 'carol');
    is($res->{status}, 201, 'a statement of CBA') or diag($res->{content});
    my $carol = $uid{carol};
    my $old = $rig->sql("INSERT INTO statements (owner_id, bank_name, statement_type) VALUES ($carol, 'Manual', 'other');"
                        . " INSERT INTO transactions (statement_id, owner_id, date, description, transaction_type, amount)"
                        . " VALUES (last_insert_rowid(), $carol, '2026-05-03', 'old manual bank', 'debit', 4);"
                        . " SELECT last_insert_rowid();");
    my ($manual_ids) = list_ids('carol', 'bank_names=Manual&limit=500', 'bank_names=Manual');
    my ($cba_ids, $cba) = list_ids('carol', 'bank_names=CBA&limit=500', 'bank_names=CBA');
    is_deeply([map { $_->{description} } @{ $cba->{items} }], ['cba row'], 'CBA: its one row');
    my ($both_ids, $both) = list_ids('carol', 'bank_names=Manual&bank_names=CBA&limit=500', 'both');
    is_deeply([sort { $a <=> $b } @$both_ids], [sort { $a <=> $b } @$manual_ids, @$cba_ids],
              'Manual and CBA together: the rows of each, no more');
    ok(!grep({ $_ == $old } @$manual_ids, @$both_ids), 'the old statement named Manual in neither');
    is($both->{total}, scalar @$both_ids, 'and total counts them');
}

# ---- the share override is the owner's: a participant cannot set it ---------------
{
    my $row = manual_id($rig, alice => date => '2026-08-03', amount => 100, description => 'Shared share',
                              splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    my $res = $rig->patch("/api/transactions/$row", { my_share_percent => 100 }, user => 'bob');
    is($res->{status}, 403, 'bob setting my_share_percent on alice\'s row: 403');
    is($res->{json}{error}{field}, 'my_share_percent', 'naming my_share_percent');
    is($rig->patch("/api/transactions/$row", { my_share_percent => undef }, user => 'bob')->{status}, 403,
       'clearing it too');
    my $mine = sub { sprintf '%.2f', $rig->get("/api/transactions/$row", user => $_[0])->{json}{my_amount} };
    is($mine->('alice'), '50.00', 'alice\'s share of her row is still her split row\'s');
    is($mine->('bob'), '50.00', 'and bob\'s his');
    is($rig->patch("/api/transactions/$row", { category => 'dining' }, user => 'bob')->{status}, 200,
       'other overrides stay open to him');
    is($rig->patch("/api/transactions/$row", { my_share_percent => 60 }, user => 'alice')->{status}, 200,
       'alice may set it');
    is($mine->('alice'), '60.00', 'and it is her share');
}

# ---- the query bar's range is the same either way round -----------------------------
# (The word "range" keeps the query to these five rows of carol's.)
{
    manual_id($rig, carol => date => '2026-08-01', amount => $_, description => "Range $_") for 5, 10, 15, 20, 25;
    for my $q ('10-20', '20-10') {
        my $list = $rig->get('/api/transactions?q=' . enc("range $q") . '&exclude_categories=', user => 'carol')->{json};
        is_deeply([sort { $a <=> $b } map { $_->{amount} } @{ $list->{items} }], [10, 15, 20],
                  "q=$q is amounts 10 to 20 inclusive");
    }
}

# ---- an id, once given out, is never given to another row (schema 0023) --------------
# The newest row deleted: SQLite would give its id to the next row anybody
# makes.  A retried DELETE or a kept id must not name someone else's row.
{
    my $gone = manual_id($rig, dave => date => '2026-06-01', amount => 1, description => 'Newest, then gone');
    is($rig->del("/api/transactions/$gone", user => 'dave')->{status}, 204, 'dave deletes his newest row');
    my $next = manual_id($rig, alice => date => '2026-06-01', amount => 2, description => 'After the gone one');
    cmp_ok($next, '>', $gone, "alice's next row takes a new id, not dave's deleted one");
    is($rig->del("/api/transactions/$gone", user => 'dave')->{status}, 404, "dave's retried DELETE is a 404");

    my $s = ok_json($rig->post('/api/statements', { bank_name => 'Gone Bank', account_type => 'Visa',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [ { date => '2026-06-02', description => 'gone row', amount => 5, transaction_type => 'debit' } ] },
        user => 'alice'), 'statement')->{id};
    my ($srow) = map { $_->{id} } @{ $rig->get("/api/transactions?statement_id=$s", user => 'alice')->{json}{items} // [] };
    is($rig->del("/api/statements/$s", user => 'alice')->{status}, 204, 'alice deletes her newest statement');
    my $s2 = ok_json($rig->post('/api/statements', { bank_name => 'Next Bank', account_type => 'Visa',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [ { date => '2026-06-03', description => 'next row', amount => 6, transaction_type => 'debit' } ] },
        user => 'carol'), 'statement')->{id};
    cmp_ok($s2, '>', $s, "carol's statement takes a new id, not alice's deleted one");
    my ($srow2) = map { $_->{id} } @{ $rig->get("/api/transactions?statement_id=$s2", user => 'carol')->{json}{items} // [] };
    cmp_ok($srow2, '>', $srow, 'and so does its row');

    my $p = ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob},
        date => '2026-06-04', amount => 3 }, user => 'alice'), 'payment')->{id};
    is($rig->del("/api/payments/$p", user => 'alice')->{status}, 204, 'alice deletes her newest payment');
    my $p2 = ok_json($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{carol},
        date => '2026-06-04', amount => 4 }, user => 'alice'), 'payment')->{id};
    cmp_ok($p2, '>', $p, 'the next payment takes a new id');

    my $last = manual_id($rig, dave => date => '2026-06-05', amount => 1, description => 'Newest before a file');
    $rig->del("/api/transactions/$last", user => 'dave');
    my $ids = ok_json($rig->post('/api/import/csv/commit', { rows => [
        { date => '2026-06-06', description => 'file row 1', amount => 1 },
        { date => '2026-06-07', description => 'file row 2', amount => 2 } ] }, user => 'erin'), 'csv')->{transaction_ids};
    is_deeply($ids, [ $last + 1, $last + 2 ], "a file's rows take the ids after the deleted newest, in order");
}

done_testing();
