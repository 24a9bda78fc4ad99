#!/usr/bin/perl
# Rule condition limits (rule_match.c, checked when a rule is saved) no
# other test held: a hand mutation audit broke each of these in the code
# and the suite stayed green.
# - at most 50 conditions: 50 are accepted, 51 refused;
# - `matches` is a text operator: on amount or date it is 400;
# - `in` takes 1 to 200 values: 200 accepted, 201 refused;
# - `between [low, high]` with low equal to high is a range of one;
# - a text value is at most 500 bytes: 500 accepted, 501 refused.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is);

my $rig = Rig->new;
$rig->get('/api/me', user => 'alice');

sub cond { { field => $_[0], operator => $_[1], value => $_[2] } }
sub save {
    my (@conds) = @_;
    return $rig->post('/api/rules', { name => 'audit', conditions => \@conds,
                                      actions => [ { type => 'set_merchant', merchant_normalized => 'X' } ] },
                      user => 'alice');
}
sub accepted {
    my ($what, @conds) = @_;
    my $res = save(@conds);
    is($res->{status}, 201, $what) or diag($res->{content});
}

my $c = cond('amount', 'gt', 1);
accepted('50 conditions: the most a rule takes, accepted', ($c) x 50);
error_is(save(($c) x 51), 400, 'invalid_field', '51 conditions: one too many', 'conditions');

for my $f ([ 'amount', 1 ], [ 'date', '2025-01-01' ]) {
    error_is(save(cond('description', 'contains', 'x'), cond($f->[0], 'matches', $f->[1])), 400, 'invalid_field',
             "matches is a text operator: not on $f->[0]", 'conditions[1]');
}

accepted('in with 200 values: the most it takes, accepted', cond('amount', 'in', [ 1 .. 200 ]));
error_is(save(cond('amount', 'in', [ 1 .. 201 ])), 400, 'invalid_field', 'in with 201 values', 'conditions[0]');
accepted('in with 200 text values, accepted', cond('merchant', 'in', [ map { "m$_" } 1 .. 200 ]));

accepted('between [5, 5]: low equal to high is a range of one amount', cond('amount', 'between', [ 5, 5 ]));
accepted('between two equal dates: a range of one day',
         cond('date', 'between', [ '2025-01-01', '2025-01-01' ]));

accepted('a text value of exactly 500 bytes, accepted', cond('description', 'contains', 'v' x 500));
error_is(save(cond('description', 'contains', 'v' x 501)), 400, 'invalid_field', 'a text value of 501 bytes',
         'conditions[0]');

done_testing();
