#!/usr/bin/perl
# Enrichment of rows made by hand and of a plain bank CSV (README
# "Category suggestions"): a manual row (POST /api/transactions) and the
# rows of a JSON statement (POST /api/statements) get a merchant from their
# description and the suggestions that pass the owner's threshold, as a
# run (suggestion_run) that DELETE /api/rules/apply/{run_id} reverts, never
# over a category the user sent, never from another user's rows; and a
# bank CSV of Date, Description and Amount, imported through the preview
# and commit as the web client does, shows monthly Netflix and Spotify
# subscriptions and its merchants.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json manual_ok user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

sub row { my ($user, $id) = @_; ok_json($rig->get("/api/transactions/$id", user => $user), 'row') }
sub mk {
    my ($user, %f) = @_;
    return manual_ok($rig, $user, date => '2026-03-01', amount => 4.5, %f);
}

# ==== a manual row takes its owner's merchant memory ===========================
# alice's own history: four rows at Blue Bottle, three of them dining.
mk('alice', description => "SQ *BLUE BOTTLE COFFEE $_ SAN FRANCISCO CA", category => $_ <= 3 ? 'dining' : 'groceries')
    for 1 .. 4;
# bob calls the same merchant entertainment, many times: it never counts for alice.
mk('bob', description => "SQ *BLUE BOTTLE COFFEE $_ SAN FRANCISCO CA", category => 'entertainment') for 1 .. 10;

my $new = mk('alice', description => 'SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA');
is($new->{merchant}, undef, 'a manual row without a merchant keeps none of its own');
is($new->{merchant_normalized}, 'Blue Bottle Coffee', 'and is listed under the merchant its description names');
is($new->{description}, 'SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA', 'the raw text stays in description');
is($new->{category}, 'dining', 'it takes the category alice gives the merchant most');
ok($new->{suggestion_run} && $new->{suggestion_run}{suggestions}, 'the answer names the run that applied it');
is($new->{suggestion_run}{transactions}, 1, 'a run of the one row');
is(row('alice', $new->{id})->{category}, 'dining', 'stored');

my $runs = ok_json($rig->get('/api/rules/runs', user => 'alice'), 'runs');
my ($listed) = grep { $_->{id} == $new->{suggestion_run}{id} } @{ $runs->{items} };
ok($listed && $listed->{suggestions}, 'the run is listed in /api/rules/runs as suggestions');
ok(!(grep { $_->{id} == $new->{suggestion_run}{id} }
     @{ ok_json($rig->get('/api/rules/runs', user => 'bob'), 'runs')->{items} }), 'and not in bob\'s list');
error_is($rig->del("/api/rules/apply/$new->{suggestion_run}{id}", user => 'bob'), 403, 'forbidden',
         'bob cannot revert alice\'s run');
my %before = %{ row('alice', $new->{id}) };
ok_json($rig->del("/api/rules/apply/$new->{suggestion_run}{id}", user => 'alice'), 'revert');
my %after = %{ row('alice', $new->{id}) };
is($after{category}, undef, 'reverting it clears the category');
delete @before{qw(category overrides)};
my $ov = delete $after{overrides};
delete $after{category};
is_deeply(\%after, \%before, 'and nothing else of the row');
is($ov->{category}, undef, '  (no category override left)');

# bob's row at the merchant takes bob's category, never alice's.
my $bobs = mk('bob', description => 'SQ *BLUE BOTTLE COFFEE 0999 SAN FRANCISCO CA');
is($bobs->{category}, 'entertainment', 'bob\'s row takes bob\'s own history');
# carol has none: the default threshold takes merchant memory alone.
my $carols = mk('carol', description => 'SQ *BLUE BOTTLE COFFEE 0999 SAN FRANCISCO CA');
is($carols->{category}, undef, 'carol has no history at the merchant: no category (bob\'s and alice\'s never count)');
is($carols->{suggestion_run}, undef, '  and no run');

# ==== the user's own category wins; the threshold ==================================
my $own = mk('alice', description => 'SQ *BLUE BOTTLE COFFEE 0124 SAN FRANCISCO CA', category => 'gifts');
is($own->{category}, 'gifts', 'a row with its own category keeps it');
is($own->{suggestion_run}, undef, '  and no run is made');
ok_json($rig->put('/api/suggestions/settings', { threshold => 1.01 }, user => 'alice'), 'threshold 1.01');
my $off = mk('alice', description => 'SQ *BLUE BOTTLE COFFEE 0125 SAN FRANCISCO CA');
is($off->{category}, undef, 'with a threshold past 1, a manual row takes no suggestion');
is($off->{suggestion_run}, undef, '  and no run is made');
ok_json($rig->put('/api/suggestions/settings', { threshold => 0 }, user => 'alice'), 'threshold 0');
my $words = mk('alice', description => 'STARBUCKS 0423 SYDNEY');
is($words->{category}, 'dining', 'threshold 0: a merchant never seen takes the words\' suggestion');
ok_json($rig->put('/api/suggestions/settings', { threshold => undef }, user => 'alice'), 'default threshold');

# ==== a rule wins over a suggestion ================================================
my $rule = ok_json($rig->post('/api/rules', { name => 'bb', conditions => [
    { field => 'description', operator => 'contains', value => 'BLUE BOTTLE' } ],
    actions => [ { type => 'set_category', category => 'transport' } ] }, user => 'alice'), 'rule')->{id};
my $ruled = mk('alice', description => 'SQ *BLUE BOTTLE COFFEE 0126 SAN FRANCISCO CA');
is($ruled->{category}, 'dining', 'a new row takes the suggestion (rules run when applied)');
ok_json($rig->post("/api/rules/apply/$rule", {}, user => 'alice'), 'rule run');
is(row('alice', $ruled->{id})->{category}, 'transport', 'the rule\'s run writes over the suggested category');
is(row('alice', $own->{id})->{category}, 'transport', '  as over any');

# ==== a JSON statement's rows =====================================================
my $st = ok_json($rig->post('/api/statements', { bank_name => 'Test Bank', account_name => 'Everyday',
    statement_type => 'transaction', account_type => 'Everyday', period_start => '2026-04-01', period_end => '2026-04-30',
    transactions => [
        { date => '2026-04-02', description => 'WOOLWORTHS 1234 SYDNEY NS', amount => 80, transaction_type => 'debit' },
        { date => '2026-04-03', description => 'THE GIFT SHOP 77', amount => 20, transaction_type => 'debit',
          category => 'gifts' },
        { date => '2026-04-04', description => 'XYZZY 42', amount => 1, transaction_type => 'debit' } ] },
    user => 'dave'), 'statement');
is($st->{suggestion_run}, undef, 'a statement with nothing to suggest by memory: suggestion_run null');
# Memory: 5 of dave's 7 categorised Woolworths rows are groceries.
mk('dave', description => 'WOOLWORTHS METRO', merchant => 'Woolworths', category => 'groceries') for 1 .. 5;
$st = ok_json($rig->post('/api/statements', { bank_name => 'Test Bank', account_name => 'Everyday',
    statement_type => 'transaction', account_type => 'Everyday', period_start => '2026-05-01', period_end => '2026-05-31',
    transactions => [
        { date => '2026-05-02', description => 'WOOLWORTHS 1234 SYDNEY NS', amount => 80, transaction_type => 'debit' },
        { date => '2026-05-03', description => 'WOOLWORTHS 1234 SYDNEY NS', amount => 20, transaction_type => 'debit',
          category => 'gifts' } ] },
    user => 'dave'), 'statement');
ok($st->{suggestion_run} && $st->{suggestion_run}{suggestions}, 'a statement\'s rows take suggestions as a run');
is($st->{suggestion_run}{transactions}, 1, '  of the row without a category');
my %cat = map { $_->{date} => $_->{category} }
    @{ ok_json($rig->get("/api/transactions?statement_id=$st->{id}", user => 'dave'), 'rows')->{items} };
is($cat{'2026-05-02'}, 'groceries', 'the row without one takes dave\'s category for Woolworths');
is($cat{'2026-05-03'}, 'gifts', 'the row with its own keeps it');

# ==== subscriptions on derived merchants, from a plain bank CSV =====================
{
    my $csv = "Date,Description,Amount\n";
    for my $m (1 .. 8) {
        my $mm = sprintf '%02d', $m;
        $csv .= "2026-$mm-05,NETFLIX.COM 866-579-7172 CA,-15.49\n";
        $csv .= "2026-$mm-12,SPOTIFY USA 877-778-1161 NY,-11.99\n";
        $csv .= "2026-$mm-14,\"SQ *BLUE BOTTLE COFFEE 0$mm SAN FRANCISCO CA\",-5.50\n";
        $csv .= "2026-$mm-20,WOOLWORTHS 12$mm SYDNEY NS,-" . (60 + 7 * $m) . ".35\n";
    }
    my $mapping = { date => 'Date', description => 'Description', amount => 'Amount' };
    my $prev = ok_json($rig->post('/api/import/csv/preview', { csv => $csv, mapping => $mapping }, user => 'erin'),
                       'preview');
    my ($nf) = grep { $_->{description} =~ /^NETFLIX/ } @{ $prev->{rows} };
    is($nf->{merchant}, 'Netflix', 'the preview names the merchant from the raw text');
    ok_json($rig->post('/api/import/csv/commit', { rows => $prev->{rows} }, user => 'erin'), 'commit');
    my $subs = ok_json($rig->get('/api/analytics/subscriptions?as_of=2026-08-20', user => 'erin'), 'subscriptions');
    my %sub = map { $_->{merchant} => $_ } @{ $subs->{items} };
    is($sub{Netflix}{cadence}, 'monthly', 'a monthly Netflix subscription') or diag(explain($subs));
    is($sub{Spotify}{cadence}, 'monthly', 'a monthly Spotify subscription');
    ok($sub{Netflix}{active}, 'Netflix is active');
    my $am = ok_json($rig->get('/api/analytics/merchants?from=2026-01&to=2026-08', user => 'erin'), 'analytics');
    ok(scalar(grep { $_->{merchant} eq 'Netflix' } @{ $am->{items} }), '/api/analytics/merchants lists Netflix')
        or diag(explain($am));
    my $ml = ok_json($rig->get('/api/merchants', user => 'erin'), 'merchants');
    my %ml = map { $_->{merchant} => $_ } @{ $ml->{items} };
    is($ml{Netflix}{transaction_count}, 8, '/api/merchants lists Netflix with its 8 rows') or diag(explain($ml));
    ok($ml{'Blue Bottle Coffee'}, '  and Blue Bottle Coffee');
}

done_testing();
