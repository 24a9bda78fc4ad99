#!/usr/bin/perl
# CSV commit rules (POST /api/import/csv/commit) no other test held: a hand
# mutation audit of csv_import.c's commit path broke each of these in the
# code and the suite stayed green.
# - a duplicate is the caller's own row (API.md 9: "same owner, date,
#   amount and description"), in a file of 200 lines or more too (the
#   one-pass duplicate check);
# - a manual row reconciled with a statement row is one purchase with it:
#   two same lines of a large file (the one-pass check) skip one and
#   import the other;
# - a description is at most 1000 characters;
# - a payment line is money in, a duplicate of an existing payment row;
# - amounts are magnitudes: a negative amount_aud is 400 naming it;
# - a commit takes up to 100,000 rows: exactly that many is not too many;
# - the committed row's category is its folded category, in the row and in
#   the monthly report.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json m2 user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

sub manual {
    my ($user, %row) = @_;
    return ok_json($rig->post('/api/transactions', \%row, user => $user), "$user creates $row{description}")->{id};
}
sub commit {
    my ($user, $rows, %o) = @_;
    return $rig->post('/api/import/csv/commit', { rows => $rows, %o }, user => $user);
}

# ---- a large file's duplicates are the caller's own rows ----------------------------------
manual(bob => date => '2025-05-05', description => 'Shared Name', amount => 42, transaction_type => 'debit');
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

# ---- a reconciled pair is one purchase, in a large file too ------------------------------
{
    my $m = manual(dave => date => '2025-09-01', description => 'Gym Fee', amount => 20, transaction_type => 'debit',
                   payment_method => 'card');
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

# ---- description length --------------------------------------------------------------------
{
    my $ok = { date => '2025-10-01', description => 'd' x 1000, amount => 1, transaction_type => 'debit' };
    is(commit('carol', [ $ok ])->{status}, 201, 'a description of exactly 1000 characters is accepted');
    error_is(commit('carol', [ { %$ok, description => 'd' x 1001 } ]), 400, 'invalid_field',
             'a description of 1001 characters', 'rows[0].description');
}

# ---- a payment line is money in -----------------------------------------------------------
manual(carol => date => '2025-06-01', description => 'Card payment thanks', amount => 250,
       transaction_type => 'payment');
{
    my $res = commit('carol', [ { date => '2025-06-01', description => 'Card payment thanks', amount => 250,
                                  transaction_type => 'payment' } ]);
    is($res->{status}, 201, 'commit a payment line') or diag($res->{content});
    is_deeply([ $res->{json}{imported}, $res->{json}{skipped_duplicates} ], [ 0, 1 ],
              'a payment line (money in) duplicates the existing payment row');
}

# ---- amount_aud is a magnitude ---------------------------------------------------------------
{
    my $ok = { date => '2025-07-01', description => 'Euro lunch', amount => 10, currency => 'EUR',
               amount_aud => 16, transaction_type => 'debit' };
    error_is(commit('dave', [ $ok, { %$ok, description => 'Euro dinner', amount_aud => -16 } ]), 400,
             'invalid_field', 'a negative amount_aud: amounts are magnitudes', 'rows[1].amount_aud');
    is($rig->get('/api/transactions?search=Euro', user => 'dave')->{json}{total}, 0, 'and nothing was imported');
}

# ---- exactly the most rows a commit takes (100,000) -----------------------------------------
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

# ---- the committed category -----------------------------------------------------------------
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

done_testing();
