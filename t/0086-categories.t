#!/usr/bin/perl
# Categories through nginx: GET /api/categories (the built-in and the
# caller's own names, each with the count of rows any list shows under its
# effective category) and a refund's category (Business rule C: the
# merchant's most used category among the owner's visible rows, by the
# effective merchant); "uncategorised", the reports' name for no category,
# refused as a category and selecting the rows with none.  Folding itself
# is t/0003-category.c's.
#
# Who is who: dave's rows move between counts and make a refund's history
# by merchant; erin's reconciled rows are hidden from counts and history,
# and her rows of 2024-10 have no category; carol has nothing.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use Rig;
use CommonChecks qw(error_is ok_json manual_ok m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

# ---- helpers ------------------------------------------------------------------
# A manual row of $user (a debit of 10.00 on 2024-03-01 unless told).
sub mk { my ($user, %f) = @_; manual_ok($rig, $user, date => '2024-03-01', amount => 10, description => 'row', %f) }
sub bulk { my ($user, $body) = @_; $rig->post('/api/transactions/bulk', $body, user => $user) }
# GET /api/categories of $user: ({category => item}, the whole answer).
sub usage {
    my ($user) = @_;
    my $json = $rig->get('/api/categories', user => $user)->{json};
    return +{ map { $_->{category} => $_ } @{ $json->{items} // [] } }, $json;
}
# The usage_count of one category (0 when it is not listed).
sub usage_of {
    my ($user, $cat) = @_;
    my ($by) = usage($user);
    return $by->{$cat} ? $by->{$cat}{usage_count} : 0;
}

# ==== usage by effective category (dave) =========================================
# dave's rows only; an override moves a row between counts; custom names
# are listed, not built in.
my @d = (mk('dave', description => 'd groceries 1', category => 'groceries'),
         mk('dave', description => 'd groceries 2', category => 'Groceries'),
         mk('dave', description => 'd dining', category => 'dining'),
         mk('dave', description => 'd kids', category => 'Kids Stuff'));
my ($cat, $cjson) = usage('dave');
is_deeply([map { $cat->{$_}{usage_count} } qw(groceries dining kids_stuff shopping)], [2, 1, 1, 0],
          'usage counts by category');
ok($cat->{kids_stuff} && JSON::PP::is_bool($cat->{kids_stuff}{builtin}) && !$cat->{kids_stuff}{builtin},
   '"Kids Stuff" is listed as kids_stuff, builtin false');
ok(JSON::PP::is_bool($cat->{groceries}{builtin}) && $cat->{groceries}{builtin}, 'groceries is built in');
is($cjson->{total}, 27, 'the 26 built-ins and one custom category');
ok(!$cat->{'Kids Stuff'} && !$cat->{Groceries}, 'no unfolded names');
bulk('dave', { action => 'categorize', ids => [$d[0]{id}], category => 'Dining' });
($cat) = usage('dave');
is_deeply([map { $cat->{$_}{usage_count} } qw(groceries dining)], [1, 2],
          'an override moves a row from groceries to dining');
bulk('dave', { action => 'categorize', ids => [$d[2]{id}], category => 'kids stuff' });
($cat) = usage('dave');
is_deeply([map { $cat->{$_}{usage_count} } qw(groceries dining kids_stuff)], [1, 1, 2],
          'and from dining to the custom category');
bulk('dave', { action => 'categorize', ids => [$d[0]{id}, $d[2]{id}], category => undef });
($cat) = usage('dave');
is_deeply([map { $cat->{$_}{usage_count} } qw(groceries dining kids_stuff)], [2, 1, 1],
          'clearing the overrides restores the base counts');
my ($acat) = usage('carol');
ok(!$acat->{kids_stuff}, "dave's custom category is not in carol's list");
is($acat->{groceries}{usage_count}, 0, "and dave's rows do not count for carol");

# ==== hidden reconciled rows, and a refund's history (erin, dave) ===============
# Erin: one visible Aldi row (groceries, cash: never reconciled) and two
# Aldi rows of gifts, each reconciled with a statement row of another
# merchant name (Aldi Store), so hidden.
manual_ok($rig, 'erin', date => '2026-04-01', amount => 12, description => 'Aldi cash', merchant => 'Aldi',
          category => 'groceries', payment_method => 'cash');
my @hidden = map { manual_ok($rig, 'erin', date => $_->[0], amount => $_->[1], description => "Aldi $_->[1]",
                             merchant => 'Aldi', category => 'gifts', payment_method => 'card')->{id} }
             ['2026-04-10', 30], ['2026-04-20', 50];
ok_json($rig->post('/api/statements', { bank_name => 'Erin Bank', account_type => 'Visa',
    period_start => '2026-04-01', period_end => '2026-04-30',
    transactions => [ { date => '2026-04-10', description => 'ALDI STORE 30', merchant => 'Aldi Store',
                        amount => 30, transaction_type => 'debit' },
                      { date => '2026-04-20', description => 'ALDI STORE 50', merchant => 'Aldi Store',
                        amount => 50, transaction_type => 'debit' } ] }, user => 'erin'), 'erin statement');
my $pending = ok_json($rig->get('/api/reconcile', user => 'erin'), 'reconcile list')->{pending} // [];
my @matches;
for my $m (@hidden) {
    my ($p) = grep { $_->{transaction}{id} == $m } @$pending;
    my @c = map { $_->{id} } @{ $p->{candidates} // [] };
    is(scalar @c, 1, "manual row $m has one candidate");
    push @matches, { manual_id => $m, statement_transaction_id => $c[0] };
}
ok_json($rig->post('/api/reconcile', { matches => \@matches }, user => 'erin'), 'erin reconciles both');
is($rig->get("/api/transactions/$hidden[0]", user => 'erin')->{status}, 404, 'a reconciled manual row is hidden');

# ---- usage counts ---------------------------------------------------------------------
my $shown = $rig->get('/api/transactions?categories[]=gifts', user => 'erin')->{json}{total};
is($shown, 2, 'the list shows two gifts rows (the statement rows, which took the manual category)');
is(usage_of('erin', 'gifts'), $shown,
   'GET /api/categories: usage_count counts the rows the list shows, not the hidden reconciled ones');
is(usage_of('erin', 'groceries'), 1, 'groceries: the one visible cash row');

# ---- a refund follows the visible rows' habits -----------------------------------------
my $refund = manual_ok($rig, 'erin', date => '2026-04-25', amount => 5, description => 'Aldi refund',
                       merchant => 'Aldi', transaction_type => 'refund', category => 'refund');
is($refund->{category}, 'groceries',
   "rule C: a refund takes the merchant's most used category among rows not hidden (groceries, not the reconciled gifts)");

# ---- the history is by effective merchant ---------------------------------------------
# Dave's history at Target is under raw bank names he normalised to Target.
{
    my @raw = map { manual_ok($rig, 'dave', date => '2026-03-0' . $_, amount => 10 + $_, description => "TGT $_",
                              merchant => "TARGET STORE $_", category => 'shopping')->{id} } 1 .. 2;
    ok_json($rig->post('/api/transactions/bulk', { action => 'normalize', ids => \@raw, merchant_normalized => 'Target' },
                       user => 'dave'), 'dave normalises both to Target');
    my $r = manual_ok($rig, 'dave', date => '2026-03-09', amount => 4, description => 'Target refund',
                      merchant => 'Target', transaction_type => 'refund', category => 'refund');
    is($r->{category}, 'shopping',
       "rule C: a refund at Target takes the category of the rows whose effective merchant is Target");
}

# ==== "uncategorised": the reports' name for no category (erin) =====================
# A row written as "uncategorised" would be one with no category in the
# reports but a category of its own in the list's filters: refused on every
# path a user names a category on, and a bank's "Uncategorised" is none.
{
    my $made = $rig->post('/api/transactions', { description => 'no category yet', date => '2024-10-03', amount => 12 },
                          user => 'erin');
    is($made->{status}, 201, "erin creates manual row 'no category yet'") or diag($made->{content});
    my $row = $made->{json} // {};
    for my $c ('Uncategorised', 'uncategorized', ' UNCATEGORISED ') {
        error_is($rig->post('/api/transactions', { date => '2024-10-03', amount => 1, description => 'x',
                                                   category => $c }, user => 'erin'),
                 400, 'invalid_field', "POST a row with category '$c'", 'category');
    }
    error_is($rig->patch("/api/transactions/$row->{id}", { category => 'Uncategorised' }, user => 'erin'),
             400, 'invalid_field', 'PATCH category uncategorised', 'category');
    error_is($rig->post('/api/transactions/bulk', { action => 'categorize', ids => [$row->{id}],
                                                    category => 'uncategorised' }, user => 'erin'),
             400, 'invalid_field', 'bulk categorize as uncategorised', 'category');
    error_is($rig->post('/api/rules', { name => 'u', conditions => [ { field => 'amount', operator => 'gt', value => 0 } ],
                                        actions => [ { type => 'set_category', category => 'Uncategorized' } ] },
                        user => 'erin'),
             400, 'invalid_field', 'a rule setting uncategorised', 'actions[0].category');
    is($rig->get("/api/transactions/$row->{id}", user => 'erin')->{json}{category}, undef,
       'the row still has no category');
    is($rig->patch("/api/transactions/$row->{id}", { category => 'Uncategorised spend' }, user => 'erin')->{status},
       200, 'a name that only starts so is a category like any other');
    my $st = $rig->post('/api/statements', { bank_name => 'Uncat Bank', account_type => 'Visa Credit Card',
        period_start => '2024-01-01', period_end => '2024-12-31', transactions => [
        { date => '2024-10-04', description => 'bank said uncategorised', amount => 5,
          transaction_type => 'debit', category => 'UNCATEGORISED' } ] }, user => 'erin');
    is($st->{status}, 201, "erin creates statement 'Uncat Bank'") or diag($st->{content});
    my ($srow) = @{ $rig->get("/api/transactions?statement_id=$st->{json}{id}&exclude_categories=", user => 'erin')
                        ->{json}{items} // [] };
    is($srow->{category}, undef, "a statement row the bank called Uncategorised has none");
    my $res = $rig->post('/api/import/csv/commit', { rows => [ { date => '2024-10-05', description => 'csv uncategorised',
                                                                  amount => 6, category => 'Uncategorized' } ] },
                         user => 'erin');
    is($res->{status}, 201, 'a CSV row with the category Uncategorized is imported') or diag($res->{content});
    my $csv_row = $rig->get('/api/transactions?search=csv%20uncategorised&exclude_categories=', user => 'erin')->{json}{items}[0] // {};
    is_deeply([ $csv_row->{description}, $csv_row->{category} ], [ 'csv uncategorised', undef ], 'with no category');
    # A budget for the spend with no category is still one (the reports' name).
    is($rig->put('/api/budgets/Uncategorised', { amount => 40 }, user => 'erin')->{status}, 200,
       'a budget for uncategorised spend');
    my $m = $rig->get('/api/analytics/monthly?from=2024-10&to=2024-10', user => 'erin')->{json}{items}[0] // {};
    my ($line) = grep { $_->{category} eq 'uncategorised' } @{ $m->{categories} // [] };
    is_deeply([ m2($line->{total}), m2($line->{budget}) ], [ '11.00', '40.00' ],
              'October: 5 + 6 with no category (the 12 is uncategorised_spend now), against its budget of 40');
    # The name selects the rows with none wherever a category is named:
    # the list's filter (its total from the summary too) and rule conditions.
    my $all = $rig->get('/api/transactions?exclude_categories=&limit=500', user => 'erin')->{json}{items} // [];
    my @none = sort { $a <=> $b } map { $_->{id} } grep { !defined $_->{category} } @$all;
    ok(@none >= 2, 'erin has rows with no category');
    for my $q ('categories=uncategorised', 'categories[]=Uncategorized',
               'categories[]=uncategorised&categories[]=uncategorised_spend') {
        my $doc = $rig->get("/api/transactions?$q&exclude_categories=&limit=500", user => 'erin')->{json} // {};
        my @want = @none;
        push @want, $row->{id} if $q =~ /spend/;
        is_deeply([ sort { $a <=> $b } map { $_->{id} } @{ $doc->{items} // [] } ], [ sort { $a <=> $b } @want ],
                  "$q lists the rows with no category") or diag(explain($doc));
        is($doc->{total}, scalar @want, '  and counts them');
    }
    my $month = $rig->get('/api/transactions?categories=uncategorised&date_from=2024-10-01&date_to=2024-10-31',
                          user => 'erin')->{json} // {};
    is($month->{total}, 2, 'within one month too (counted from its rows): the statement and CSV rows');
    is($rig->get('/api/transactions?exclude_categories=uncategorised&limit=1', user => 'erin')->{json}{total},
       scalar @$all, 'exclude_categories never hides a row with no category (behaviour rule 1)');
    my $rule = $rig->post('/api/rules', { name => 'none', conditions => [
        { field => 'category', operator => 'equals', value => 'Uncategorised' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'Someone' } ] }, user => 'erin');
    is($rule->{status}, 201, 'a rule on the rows with no category') or diag($rule->{content});
    my $pv = $rig->post("/api/rules/$rule->{json}{id}/preview", {}, user => 'erin')->{json} // {};
    is_deeply([ sort { $a <=> $b } map { $_->{transaction_id} } @{ $pv->{items} // [] } ], \@none,
              'matches exactly them');
}

done_testing();
