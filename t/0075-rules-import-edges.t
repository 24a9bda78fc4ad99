#!/usr/bin/perl
# Rules, CSV import, budget and subscription edges no other test held (a
# mutation audit of rule_sql.c, rule.c, csv_import.c, budget.c and
# subscription.c broke each of these in the code and the suite stayed
# green):
# - ends_with holds when the value is the whole text (in another case);
# - a set_merchant rule run again over a row it already renamed changes
#   nothing: its run counts the match but no transaction;
# - CSV commit: an interest row is money out, so it is a duplicate of the
#   caller's existing interest row (API.md 9, duplicates);
# - CSV duplicates compare the description as written (bytes, as the
#   one-pass check of large files does): another case is a new row;
# - a line that duplicates two existing rows names the lower id, as the
#   one-pass check does;
# - a budget of 0.00 is a budget ("amount must be 0 or more");
# - a monthly charge seen three times is a subscription; a weekly one needs
#   four (the cadences' minimum counts).
#
# Users: alice rules, bob CSV import, carol subscriptions, dave budgets.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(ok_json m2 user_ids);
use Time::HiRes ();

my $rig = Rig->new;
my %uid = user_ids($rig);

sub manual {
    my ($user, %row) = @_;
    return ok_json($rig->post('/api/transactions', \%row, user => $user), "$user creates $row{description}")->{id};
}

# ---- rules: ends_with the whole text; a rerun that changes nothing ------------------
{
    my $hit = manual(alice => date => '2026-04-01', description => 'Blue Bottle', amount => 6.5,
                     transaction_type => 'debit');
    manual(alice => date => '2026-04-02', description => 'Bottle Shop', amount => 30, transaction_type => 'debit');
    my $rule = ok_json($rig->post('/api/rules', { name => 'Bottle', conditions => [
        { field => 'description', operator => 'ends_with', value => 'BLUE BOTTLE' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'Blue Bottle Coffee' } ] }, user => 'alice'),
        'the rule')->{id};
    my $pv = ok_json($rig->post("/api/rules/$rule/preview", undef, user => 'alice'), 'preview');
    is_deeply([ $pv->{matches}, [ map { $_->{transaction_id} } @{ $pv->{items} } ] ], [ 1, [ $hit ] ],
              'ends_with: a value that is the whole description (another case) matches that row alone');
    my $run = ok_json($rig->post("/api/rules/apply/$rule", undef, user => 'alice'), 'apply');
    is_deeply([ $run->{matches}, $run->{transactions} ], [ 1, 1 ], 'set_merchant: the first run changes its one row');
    $run = ok_json($rig->post("/api/rules/apply/$rule", undef, user => 'alice'), 'apply again');
    is_deeply([ $run->{matches}, $run->{transactions} ], [ 1, 0 ],
              'set_merchant run again: matches 1, transactions 0 (the row already has the merchant)');
}

# ---- a revert puts back the run owner's tags, not a participant's --------------------
# Tags are private: carol's rule run on her row shared with alice could
# neither see nor change alice's tags on it, so its revert must not put
# alice's tags back as they were at the run.
{
    $rig->post('/api/participants', { email => 'alice@example.org' }, user => 'carol');
    my $row = manual(carol => date => '2026-04-03', description => 'Shared dinner', amount => 80,
                     transaction_type => 'debit', splits => [ { participant_id => $uid{alice}, share_percent => 50 } ]);
    my $mine = ok_json($rig->post('/api/tags', { name => 'alice-early' }, user => 'alice'), 'tag')->{id};
    my $later = ok_json($rig->post('/api/tags', { name => 'alice-later' }, user => 'alice'), 'tag')->{id};
    my $ctag = ok_json($rig->post('/api/tags', { name => 'carol-dinners' }, user => 'carol'), 'tag')->{id};
    ok_json($rig->post("/api/transactions/$row/tags", { tag_id => $mine }, user => 'alice'), 'alice tags it');
    my $rule = ok_json($rig->post('/api/rules', { name => 'Dinners', conditions => [
        { field => 'description', operator => 'contains', value => 'dinner' } ],
        actions => [ { type => 'add_tag', tag_id => $ctag } ] }, user => 'carol'), 'carol\'s rule')->{id};
    my $run = ok_json($rig->post("/api/rules/apply/$rule", undef, user => 'carol'), 'carol applies it');
    $rig->del("/api/transactions/$row/tags/$mine", user => 'alice');
    ok_json($rig->post("/api/transactions/$row/tags", { tag_id => $later }, user => 'alice'), 'alice retags');
    is($rig->del("/api/rules/apply/$run->{run_id}", user => 'carol')->{status}, 200, 'carol reverts her run');
    my $tags = sub { join ',', sort map { $_->{name} } @{ $rig->get("/api/transactions/$row", user => $_[0])->{json}{tags} // [] } };
    is($tags->('carol'), '', "carol's tag from the run is gone");
    is($tags->('alice'), 'alice-later', "alice's own tags are as she left them, not as they were at the run");
}

# ---- CSV import: duplicates ------------------------------------------------------------
sub commit {
    my ($rows, %o) = @_;
    return $rig->post('/api/import/csv/commit', { rows => $rows, %o }, user => 'bob');
}
{
    manual(bob => date => '2025-03-31', description => 'Interest charged', amount => 3.21,
           transaction_type => 'interest');
    my $res = commit([ { date => '2025-03-31', description => 'Interest charged', amount => 3.21,
                         transaction_type => 'interest' } ]);
    is($res->{status}, 201, 'commit an interest line') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 0, 1 ],
              'duplicates: an interest line is money out, a duplicate of the existing interest row');

    manual(bob => date => '2025-03-02', description => 'Coffee Cart', amount => 4.5, transaction_type => 'debit');
    $res = commit([ { date => '2025-03-02', description => 'COFFEE CART', amount => 4.5,
                      transaction_type => 'debit' } ]);
    is($res->{status}, 201, 'commit the line in capitals') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 1, 0 ],
              'duplicates: the description compares as written, so another case is a new row');

    my $first = manual(bob => date => '2025-03-05', description => 'Twin Row', amount => 7, transaction_type => 'debit');
    my $second = manual(bob => date => '2025-03-05', description => 'Twin Row', amount => 7, transaction_type => 'debit');
    ok($first < $second, 'two identical rows');
    $res = $rig->post('/api/import/csv/preview', { csv => "Date,Description,Amount\n2025-03-05,Twin Row,-7.00\n",
        mapping => { date => 'Date', description => 'Description', amount => 'Amount' } }, user => 'bob');
    is($res->{status}, 200, 'preview the twin line') or diag($res->{content});
    is($res->{json}{rows}[0]{duplicate_of}, $first, 'duplicate_of names the lower id of two matching rows');
}

# ---- rules an audit of the engine broke -------------------------------------------------
# A pattern that backtracks without end on a row is bounded: the rule is a
# 409 alone and passed over by apply-all (it held the service 0.14 s a row,
# other users' writes failing busy); the other rules run.
{
    my $stmt = ok_json($rig->post('/api/statements', { bank_name => 'Regex Bank', account_type => 'Everyday Account',
        period_start => '2026-06-01', period_end => '2026-06-30',
        transactions => [ (map { { date => '2026-06-02', description => ('a' x 40) . '!', amount => 1,
                                   transaction_type => 'debit' } } 1 .. 3),
                          { date => '2026-06-03', description => 'Zumba membership', amount => 20,
                            transaction_type => 'debit' } ] }, user => 'erin'), 'erin imports a statement');
    my $re = ok_json($rig->post('/api/rules', { name => 'greedy', conditions => [
        { field => 'description', operator => 'matches', value => '^(a|aa)+$' } ],
        actions => [ { type => 'set_category', category => 'other' } ] }, user => 'erin'), 'a backtracking rule')->{id};
    my $cat = ok_json($rig->post('/api/rules', { name => 'zumba', conditions => [
        { field => 'description', operator => 'contains', value => 'zumba' } ],
        actions => [ { type => 'set_category', category => 'fitness' } ] }, user => 'erin'), 'a rule for zumba')->{id};
    my $tag = ok_json($rig->post('/api/tags', { name => 'classes' }, user => 'erin'), 'a tag')->{id};
    ok_json($rig->post('/api/rules', { name => 'membership', conditions => [
        { field => 'description', operator => 'contains', value => 'membership' } ],
        actions => [ { type => 'add_tag', tag_id => $tag } ] }, user => 'erin'), 'a second rule for the same row');
    for my $how (["/api/rules/$re/preview", 'its preview'], ["/api/rules/apply/$re", 'applying it alone']) {
        my $res = $rig->post($how->[0], {}, user => 'erin');
        is_deeply([ $res->{status}, ($res->{json} // {})->{error}{code} ], [ 409, 'conflict' ],
                  "$how->[1]: 409, the pattern needs too much backtracking")
            or diag($res->{content});
    }
    my $res = $rig->post('/api/rules/apply', {}, user => 'erin');
    is($res->{status}, 200, 'apply-all answers') or diag($res->{content});
    my $all = $res->{json} // {};
    is_deeply([ map { $_->{rule_id} } @{ $all->{skipped} // [] } ], [ $re ], 'passing the backtracking rule over');
    like($all->{skipped}[0]{reason} // '', qr/backtracking/, 'saying why');
    is_deeply([ sort map { $_->{rule_name} } @{ $all->{runs} // [] } ], [ 'membership', 'zumba' ],
              'the other two rules ran');
    # Two rules changed one row: it is one row matched and changed.
    is_deeply([ $all->{matches}, $all->{transactions} ], [ 1, 1 ],
              'apply-all counts the row once, not once per rule');
    my ($row) = grep { $_->{description} eq 'Zumba membership' }
        @{ $rig->get("/api/transactions?statement_id=$stmt->{id}", user => 'erin')->{json}{items} // [] };
    is_deeply([ $row->{category}, [ map { $_->{name} } @{ $row->{tags} // [] } ] ], [ 'fitness', ['classes'] ],
              'and both changed it');
}

# Under the limit on every row, but over many rows: one rule's matching is
# bounded in all too (500 rows of 18 a's held the service 5 s).
{
    ok_json($rig->post('/api/statements', { bank_name => 'Regex Bank 2', account_type => 'Everyday Account',
        period_start => '2026-07-01', period_end => '2026-07-31',
        transactions => [ map { { date => '2026-07-02', description => ('a' x 18) . "!$_", amount => 1,
                                  transaction_type => 'debit' } } 1 .. 400 ] }, user => 'dave'),
        'dave imports 400 rows a pattern backtracks on');
    my $slow = ok_json($rig->post('/api/rules', { name => 'slow', conditions => [
        { field => 'description', operator => 'matches', value => '^(a+)+$' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'X' } ] }, user => 'dave'), 'the rule')->{id};
    my $res = $rig->post("/api/rules/$slow/preview", {}, user => 'dave');
    is_deeply([ $res->{status}, ($res->{json} // {})->{error}{code} ], [ 409, 'conflict' ],
              'its preview is 409: too much backtracking over the rows in all') or diag($res->{content});
    is($rig->patch("/api/rules/$slow", { enabled => JSON::PP::false }, user => 'dave')->{status}, 200,
       '(disabled, out of the way of the next test)');
}

# One request's matching is bounded in all, not per rule: nine rules each
# just under the bound of one held an apply-all 3.8 s (a third audit).
# Twenty-four rules of ~0.3 s each (some 7 s): past two seconds the rest
# are passed over, saying why; a rule without a pattern still runs.
{
    ok_json($rig->post('/api/statements', { bank_name => 'Regex Bank 3', account_type => 'Everyday Account',
        period_start => '2026-07-01', period_end => '2026-07-31',
        transactions => [ map { { date => '2026-07-03', description => 'k' . ('a' x 14) . "!$_", amount => 1,
                                  transaction_type => 'debit' } } 1 .. 500 ] }, user => 'bob'),
        'bob imports 500 rows a pattern backtracks on a little');
    my @slow = map { ok_json($rig->post('/api/rules', { name => "slowish $_", conditions => [
        { field => 'description', operator => 'matches', value => '^k(a+)+$' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'X' } ] }, user => 'bob'), "slowish rule $_")->{id}
    } 1 .. 24;
    my $plain = ok_json($rig->post('/api/rules', { name => 'plain', conditions => [
        { field => 'description', operator => 'contains', value => '!300' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'Last' } ] }, user => 'bob'), 'a plain rule')->{id};
    my $t0 = Time::HiRes::time();
    my $res = $rig->post('/api/rules/apply', {}, user => 'bob');
    diag(sprintf 'apply-all of twenty-four slowish rules: %.2f s', Time::HiRes::time() - $t0);
    is($res->{status}, 200, 'apply-all answers') or diag($res->{content});
    my @skipped = map { $_->{rule_id} } @{ ($res->{json} // {})->{skipped} // [] };
    ok(@skipped >= 1, 'the rules past the two seconds are passed over') or diag($res->{content});
    # The last rule is passed over, and those passed over are in id order.
    # Not always a run of the last ones: on a loaded machine one rule alone
    # may take the half second a rule has, and be passed over before the
    # two seconds are spent (seen once in CI, with other work running).
    is_deeply([ $skipped[-1], join(',', @skipped) eq join(',', sort { $a <=> $b } @skipped) ? 1 : 0 ],
              [ $slow[23], 1 ], 'the last one among them, in id order: the budget is spent')
        or diag("skipped @skipped of @slow");
    ok(!grep({ ($_->{reason} // '') !~ /longer than one request/ } @{ ($res->{json} // {})->{skipped} // [] }),
       'saying why');
    my ($ran) = grep { $_->{rule_id} == $plain } @{ ($res->{json} // {})->{runs} // [] };
    is_deeply([ ($ran // {})->{matches}, ($ran // {})->{transactions} ], [ 1, 1 ],
              'the plain rule still ran');
    # The next request has a half second of its own.
    my $quick = ok_json($rig->post('/api/rules', { name => 'quick pattern', conditions => [
        { field => 'description', operator => 'matches', value => '^k' } ],
        actions => [ { type => 'set_merchant', merchant_normalized => 'K' } ] }, user => 'bob'), 'a quick pattern')->{id};
    $res = $rig->post("/api/rules/$quick/preview", {}, user => 'bob');
    is($res->{status}, 200, 'the next request matches patterns again: the budget is per request')
        or diag($res->{content});
    $rig->patch("/api/rules/$quick", { enabled => JSON::PP::false }, user => 'bob');
    $rig->patch("/api/rules/$_", { enabled => JSON::PP::false }, user => 'bob') for @slow;
}

# A rule whose trip the caller no longer takes part in is passed over by
# apply-all, as one whose trip was deleted is, not a 403 stopping them all.
{
    ok_json($rig->post('/api/participants', { email => 'erin@example.org' }, user => 'dave'), 'dave adds erin');
    my $trip = ok_json($rig->post('/api/trips', { name => 'Daves trip' }, user => 'dave'), 'dave makes a trip')->{id};
    my $shared = ok_json($rig->post('/api/transactions', { date => '2026-06-10', amount => 100, description => 'Cabin',
        trip_id => $trip, splits => [ { participant_id => $uid{erin}, share_percent => 50 } ] }, user => 'dave'),
        "dave's row in it, shared with erin")->{id};
    my $rule = ok_json($rig->post('/api/rules', { name => 'to daves trip', conditions => [
        { field => 'description', operator => 'contains', value => 'cabin' } ],
        actions => [ { type => 'set_trip', trip_id => $trip } ] }, user => 'erin'), 'erin: a rule into his trip')->{id};
    is($rig->del("/api/transactions/$shared/splits", user => 'dave')->{status}, 204,
       'dave unshares the row: erin takes no part in the trip');
    manual(erin => date => '2026-06-11', description => 'Zumba drop-in', amount => 12, transaction_type => 'debit');
    my $res = $rig->post('/api/rules/apply', {}, user => 'erin');
    is($res->{status}, 200, 'apply-all answers') or diag($res->{content});
    my ($skip) = grep { $_->{rule_id} == $rule } @{ ($res->{json} // {})->{skipped} // [] };
    like(($skip // {})->{reason} // '', qr/not one you take part in/, 'the trip rule is passed over, saying why');
    ok(grep({ $_->{rule_name} eq 'zumba' } @{ ($res->{json} // {})->{runs} // [] }), 'and the zumba rule still ran');
    is($rig->post("/api/rules/apply/$rule", {}, user => 'erin')->{status}, 409, 'applied alone it is 409');
}

# A set_category the row already has (from its bank) changes nothing: no
# override pinned, no change counted, as the preview shows.
{
    my $stmt = ok_json($rig->post('/api/statements', { bank_name => 'CBA', account_type => 'Everyday Account',
        period_start => '2026-05-01', period_end => '2026-05-31',
        transactions => [ { date => '2026-05-01', description => 'ALDI 1', merchant => 'Aldi', amount => 30,
                            transaction_type => 'debit', category => 'groceries' } ] }, user => 'carol'), 'carol: ALDI');
    my $rule = ok_json($rig->post('/api/rules', { name => 'aldi', conditions => [
        { field => 'merchant', operator => 'equals', value => 'aldi' } ],
        actions => [ { type => 'set_category', category => 'Groceries' },
                     { type => 'set_merchant', merchant_normalized => 'Aldi' } ] }, user => 'carol'), 'the rule')->{id};
    my $res = $rig->post("/api/rules/apply/$rule", {}, user => 'carol');
    is_deeply([ $res->{status}, ($res->{json} // {})->{matches}, ($res->{json} // {})->{transactions} ], [ 200, 1, 0 ],
              'it matches the row and changes nothing') or diag($res->{content});
    my ($row) = @{ $rig->get("/api/transactions?statement_id=$stmt->{id}", user => 'carol')->{json}{items} // [] };
    is_deeply([ $row->{overrides}{category}, $row->{overrides}{merchant_normalized} ], [ undef, undef ],
              'no override is pinned on it');

    # A manual_only rule's preview by conditions would show rows it never touches.
    my $quick = ok_json($rig->post('/api/rules', { name => 'quick', manual_only => JSON::PP::true, conditions => [],
        actions => [ { type => 'set_category', category => 'gifts' } ] }, user => 'carol'), 'a manual_only rule')->{id};
    is($rig->post("/api/rules/$quick/preview", {}, user => 'carol')->{status}, 409,
       'its preview is 409, as applying it by conditions is');

    # between [high, low] would match nothing, silently.
    for my $v ([ [100, 1], 'amounts' ], [ ['2026-05-31', '2026-05-01'], 'dates' ]) {
        my $field = $v->[0][0] =~ /-/ ? 'date' : 'amount';
        my $res = $rig->post('/api/rules', { name => 'rev', conditions => [
            { field => $field, operator => 'between', value => $v->[0] } ],
            actions => [ { type => 'set_category', category => 'travel' } ] }, user => 'carol');
        is_deeply([ $res->{status}, ($res->{json} // {})->{error}{field} ], [ 400, 'conditions[0]' ],
                  "between with its $v->[1] the wrong way round: 400") or diag($res->{content});
    }
    is($rig->post('/api/rules', { name => 'one day', conditions => [
        { field => 'date', operator => 'between', value => [ '2026-05-01', '2026-05-01' ] } ],
        actions => [ { type => 'set_category', category => 'travel' } ] }, user => 'carol')->{status}, 201,
       'between one value and itself is a range');
}

# Reverting a run leaves alone the splits of a row it matched and did not
# change (a mutation audit dropped "changed" from the restore and no test
# saw bob's split go).
{
    my $tag = ok_json($rig->post('/api/tags', { name => 'keepsplit' }, user => 'dave'), 'dave: a tag')->{id};
    my $row = manual(dave => date => '2026-09-01', description => 'Splitkeep dinner', amount => 80,
                     splits => [ { participant_id => $uid{erin}, share_percent => 25 } ]);
    ok_json($rig->post("/api/transactions/$row/tags", { tag_id => $tag }, user => 'dave'), 'the row has the tag');
    my $rule = ok_json($rig->post('/api/rules', { name => 'tag it', conditions => [
        { field => 'description', operator => 'contains', value => 'splitkeep' } ],
        actions => [ { type => 'add_tag', tag_id => $tag } ] }, user => 'dave'), 'a rule adding the tag it has')->{id};
    my $run = ok_json($rig->post("/api/rules/apply/$rule", {}, user => 'dave'), 'applied');
    is_deeply([ $run->{matches}, $run->{transactions} ], [ 1, 0 ], 'it matches the row and changes nothing');
    is($rig->del("/api/rules/apply/$run->{id}", user => 'dave')->{status}, 200, 'the run reverted');
    my $after = $rig->get("/api/transactions/$row", user => 'dave')->{json} // {};
    is_deeply([ map { [ $_->{participant_id}, sprintf('%.2f', $_->{share_percent}) ] } @{ $after->{splits} // [] } ],
              [ sort { $a->[0] <=> $b->[0] } ([ $uid{erin}, '25.00' ], [ $uid{dave}, '75.00' ]) ],
              "the row's split is as it was");
}

# set_category "refund" changes only rows not already in the merchant's
# usual category: a row already there is matched, not changed, and the
# run's revert leaves its later edits alone (an audit: it was counted
# changed, and the revert put its payment method back).
{
    my @rows = map { manual(dave => date => "2026-10-0$_", description => "Refundcafe $_", amount => 4 + $_,
                            merchant => 'Refundcafe', category => 'Dining') } 1 .. 2;
    my $rule = ok_json($rig->post('/api/rules', { name => 'cafe refund', conditions => [
        { field => 'merchant', operator => 'equals', value => 'Refundcafe' } ],
        actions => [ { type => 'set_category', category => 'Refund' } ] }, user => 'dave'), 'a refund rule')->{id};
    my $run = ok_json($rig->post("/api/rules/apply/$rule", {}, user => 'dave'), 'applied');
    is_deeply([ $run->{matches}, $run->{transactions} ], [ 2, 0 ],
              'both rows already show dining, the usual category: matched, none changed');
    is($rig->get("/api/transactions/$rows[0]", user => 'dave')->{json}{overrides}{category}, undef,
       'no override pins the category');
    is($rig->patch("/api/transactions/$rows[0]", { payment_method => 'cash' }, user => 'dave')->{status}, 200,
       'the row is paid in cash, after the run');
    is($rig->del("/api/rules/apply/$run->{id}", user => 'dave')->{status}, 200, 'the run reverted');
    is($rig->get("/api/transactions/$rows[0]", user => 'dave')->{json}{payment_method}, 'cash',
       'the later edit stays');
}

done_testing();
