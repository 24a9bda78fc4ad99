#!/usr/bin/perl
# Category suggestions through nginx (README "Category suggestions"):
# GET /api/suggestions lists the caller's rows without a category with a
# suggestion each (merchant memory with its counts, the words, the
# built-in prior), never moved by another user's rows; POST
# /api/suggestions/apply applies a chosen set all or nothing, never over a
# category, as a run DELETE /api/rules/apply/{run_id} reverts; a statement
# import applies the suggestions that pass the user's threshold as a run;
# a rule run wins over a suggestion; the CSV preview carries suggestions
# when the file gives no category; after every kind of write ledger-admin
# check finds the counts equal to a recount.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json manual_id user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);
my $admin = $ENV{LEDGER_ADMIN} // 'fcgi/ledger-admin';

sub mk { my ($user, %f) = @_; manual_id($rig, $user, date => '2026-03-01', amount => 5, %f) }
sub suggestions {
    my ($user, $q) = @_;
    my $json = ok_json($rig->get('/api/suggestions' . ($q // ''), user => $user), 'suggestions');
    return +{ map { $_->{transaction_id} => $_ } @{ $json->{items} } }, $json;
}
sub category_of {
    my ($user, $id) = @_;
    return ok_json($rig->get("/api/transactions/$id", user => $user), 'row')->{category};
}
sub recounted {
    my ($what) = @_;
    my $out = `$admin check --db '${\ $rig->db_path }' 2>&1`;
    is($?, 0, "$what: ledger-admin check finds the counts equal to a recount") or diag($out);
}

# ==== a user with no history: the built-in prior ================================
my $s1 = mk('carol', description => 'STARBUCKS 0423 SYDNEY');
my ($by) = suggestions('carol');
is($by->{$s1}{suggestion}{category}, 'dining', 'no history: the built-in prior says dining');
is($by->{$s1}{suggestion}{source}, 'builtin', 'from the built-in prior');
cmp_ok($by->{$s1}{suggestion}{confidence}, '<=', 0.3, 'with low confidence');
like($by->{$s1}{suggestion}{reason}, qr/starbucks usually means dining/, 'and a readable reason');

# ==== merchant memory and the words (alice); bob's rows never count ================
mk('bob', description => "BLUE BOTTLE COFFEE $_", merchant => 'Blue Bottle Coffee', category => 'groceries')
    for 1 .. 20;
mk('alice', description => "SQ *BLUE BOTTLE COFFEE $_", merchant => 'Blue Bottle Coffee',
   category => $_ <= 12 ? 'dining' : 'groceries') for 1 .. 14;
mk('alice', description => 'SEVEN SEEDS COFFEE ROASTERS', category => 'dining');
mk('alice', description => 'WOOLWORTHS METRO 1234', merchant => 'Woolworths', category => 'groceries');
recounted('after manual rows');
# alice's next rows stay uncategorised to be listed and applied by hand:
# a manual row takes the suggestions past its owner's threshold (t/0098).
ok_json($rig->put('/api/suggestions/settings', { threshold => 1.01 }, user => 'alice'), 'never automatically');
my $m = mk('alice', description => 'SQ *BLUE BOTTLE COFFEE 99', merchant => 'Blue Bottle Coffee');
my $w = mk('alice', description => 'MARKET LANE COFFEE ROASTERS', merchant => 'Market Lane');
my $none = mk('alice', description => 'XYZZY 42');
my $json;
($by, $json) = suggestions('alice');
is($json->{total}, 3, 'the three uncategorised rows are listed');
is_deeply($by->{$m}{suggestion}, { category => 'dining', source => 'merchant', confidence => 0.8,
          reason => '12 of your 14 rows at Blue Bottle Coffee are dining' },
          'merchant memory, with its counts; bob\'s 20 groceries rows do not count');
is($by->{$w}{suggestion}{category}, 'dining', 'a new merchant: its words say dining');
is($by->{$w}{suggestion}{source}, 'words', 'by the words');
like($by->{$w}{suggestion}{reason}, qr/^words: .*coffee/, 'naming them');
is($by->{$none}{suggestion}, undef, 'nothing known: no suggestion (null)');
my ($page) = (suggestions('alice', '?limit=1'))[1];
is(scalar @{ $page->{items} }, 1, 'paged like the other lists');
is($page->{next_cursor}, '1', 'with a next cursor');
error_is($rig->get('/api/suggestions?limit=0', user => 'alice'), 400, 'invalid_field', 'limit 0', 'limit');

# ==== applying: all or nothing, never over a category ===============================
my $cat = mk('alice', description => 'HAS ONE', category => 'fees');
my $bobs = mk('bob', description => 'BOB ROW');
my $h = $rig->sql('SELECT COUNT(*) FROM rule_runs');
error_is($rig->post('/api/suggestions/apply', { items => [ { transaction_id => $m }, { transaction_id => $cat } ] },
                    user => 'alice'), 409, 'conflict', 'a row with a category', 'items');
error_is($rig->post('/api/suggestions/apply', { items => [ { transaction_id => $m }, { transaction_id => $bobs } ] },
                    user => 'alice'), 403, 'forbidden', 'another user\'s row', 'items');
error_is($rig->post('/api/suggestions/apply', { items => [ { transaction_id => $none } ] }, user => 'alice'),
         409, 'conflict', 'a row without a suggestion and no category', 'items');
error_is($rig->post('/api/suggestions/apply', { items => [] }, user => 'alice'), 400, 'invalid_field', 'no items', 'items');
error_is($rig->post('/api/suggestions/apply', { items => [ { transaction_id => 'x' } ] }, user => 'alice'),
         400, 'invalid_field', 'a malformed item', 'items');
is($rig->sql('SELECT COUNT(*) FROM rule_runs'), $h, 'no refused apply recorded a run');
is(category_of('alice', $m), undef, 'nor wrote a category');
my $run = ok_json($rig->post('/api/suggestions/apply',
    { items => [ { transaction_id => $m }, { transaction_id => $none, category => 'Gifts' } ] },
    user => 'alice'), 'apply');
ok($run->{suggestions}, 'the run is marked as suggestions');
is($run->{transactions}, 2, 'it changed two rows');
is(category_of('alice', $m), 'dining', 'the suggestion went on');
is(category_of('alice', $none), 'gifts', 'the category the client sent back, folded');
recounted('after applying');
my $runs = ok_json($rig->get('/api/rules/runs', user => 'alice'), 'runs');
ok((grep { $_->{id} == $run->{id} && $_->{suggestions} } @{ $runs->{items} }), 'listed with the rule runs');
ok_json($rig->del("/api/rules/apply/$run->{id}", user => 'alice'), 'revert');
is(category_of('alice', $m), undef, 'reverted like a rule run: no category again');
is(category_of('alice', $none), undef, 'both rows');
recounted('after the revert');

# ==== rules win ================================================================
my $rule = ok_json($rig->post('/api/rules', { name => 'bb', conditions => [
    { field => 'merchant', operator => 'equals', value => 'Blue Bottle Coffee' } ],
    actions => [ { type => 'set_category', category => 'entertainment' } ] }, user => 'alice'), 'rule')->{id};
ok_json($rig->post('/api/suggestions/apply', { items => [ { transaction_id => $m } ] }, user => 'alice'), 'apply');
ok_json($rig->post("/api/rules/apply/$rule", {}, user => 'alice'), 'rule run');
is(category_of('alice', $m), 'entertainment', 'a rule run writes over a suggested category');
error_is($rig->post('/api/suggestions/apply', { items => [ { transaction_id => $m } ] }, user => 'alice'),
         409, 'conflict', 'and a suggestion never replaces the rule\'s', 'items');
recounted('after a rule run');

# ==== statement import: the threshold ===========================================
my $ofx = Rig::slurp(Rig::srcdir() . '/t/data/ofx/cc-2x.ofx');
sub import_ofx {
    my ($user) = @_;
    return ok_json($rig->request('POST', '/api/statements/import', user => $user, body => $ofx,
                                 type => 'application/x-ofx'), 'import');
}
sub row_at {
    my ($user, $merchant) = @_;
    my ($r) = grep { ($_->{merchant} // '') eq $merchant && $_->{statement_id} }
        @{ ok_json($rig->get('/api/transactions?limit=500', user => $user), 'list')->{items} };
    return $r;
}
is_deeply(ok_json($rig->get('/api/suggestions/settings', user => 'dave'), 'settings'), { threshold => undef },
          'the default threshold: merchant memory alone');
# The import's rows are listed under the merchant the cleaner names
# ("AMAZON US" is "Amazon"), which dave's own row uses.
mk('dave', description => 'AMAZON', merchant => 'Amazon', category => 'shopping');
my $imp = import_ofx('dave');
ok($imp->{suggestion_run} && $imp->{suggestion_run}{suggestions}, 'the import applied suggestions as a run');
is(row_at('dave', 'AMAZON US', )->{category}, 'shopping', 'the merchant dave categorised before');
my ($cafe) = grep { ($_->{merchant} // '') =~ /^Caf/ } @{ ok_json($rig->get('/api/transactions', user => 'dave'),
    'list')->{items} };
is($cafe->{category}, undef, 'a merchant never categorised is left for the user (words are below the default)');
recounted('after a statement import');
ok_json($rig->del("/api/rules/apply/$imp->{suggestion_run}{id}", user => 'dave'), 'revert the import\'s run');
is(row_at('dave', 'AMAZON US')->{category}, undef, 'and it reverts');

is_deeply(ok_json($rig->put('/api/suggestions/settings', { threshold => 0 }, user => 'erin'), 'put'),
          { threshold => 0 }, 'erin takes every suggestion');
error_is($rig->put('/api/suggestions/settings', { threshold => 2 }, user => 'erin'), 400, 'invalid_field',
         'a threshold past 1.01', 'threshold');
error_is($rig->put('/api/suggestions/settings', {}, user => 'erin'), 400, 'invalid_field', 'no threshold', 'threshold');
$imp = import_ofx('erin');
is(row_at('erin', 'AMAZON US')->{category}, 'shopping', 'threshold 0: even the built-in prior applies');
ok_json($rig->put('/api/suggestions/settings', { threshold => 1.01 }, user => 'carol'), 'put');
$imp = import_ofx('carol');
is($imp->{suggestion_run}, undef, 'threshold 1.01: nothing is applied');
is_deeply(ok_json($rig->put('/api/suggestions/settings', { threshold => undef }, user => 'carol'), 'put'),
          { threshold => undef }, 'null puts the default back');

# ==== the CSV preview ==========================================================
{
    my $csv = "Date,Description,Amount,Category\n2026-03-01,SQ *BLUE BOTTLE COFFEE 7,-4.50,\n"
            . "2026-03-02,MARKET LANE COFFEE ROASTERS,-5.00,\n2026-03-03,RENT MARCH,-900.00,Rent\n";
    my $prev = ok_json($rig->post('/api/import/csv/preview', { csv => $csv,
        mapping => { date => 'Date', description => 'Description', amount => 'Amount', category => 'Category' } },
        user => 'alice'), 'preview');
    my ($r1, $r2, $r3) = @{ $prev->{rows} };
    is($r2->{category}, 'dining', 'a preview row without a category carries the suggestion');
    ok($r2->{category_suggested}, 'marked category_suggested');
    ok($r2->{confidence} > 0 && $r2->{confidence} < 1, 'with its confidence');
    like($r2->{reason}, qr/^words: .*roasters/, 'and its reason');
    is($r3->{category}, 'Rent', 'a category the file gives is kept');
    ok(!exists $r3->{category_suggested}, 'and not marked suggested');
    my $pb = ok_json($rig->post('/api/import/csv/preview', { csv => $csv,
        mapping => { date => 'Date', description => 'Description', amount => 'Amount' } },
        user => 'bob'), 'preview');
    isnt($pb->{rows}[1]{reason} // '', $r2->{reason}, 'bob\'s preview is made from bob\'s history, not alice\'s');
}

# ==== other writes keep the counts ================================================
$rig->patch("/api/transactions/$w", { category => 'dining', merchant_normalized => 'Market Lane Coffee' },
            user => 'alice');
recounted('after a patch');
ok_json($rig->post('/api/transactions/bulk', { action => 'categorize', ids => [$w, $cat], category => 'fees' },
                   user => 'alice'), 'bulk');
recounted('after a bulk categorize');
$rig->del("/api/transactions/$w", user => 'alice');
recounted('after a delete');

done_testing();
