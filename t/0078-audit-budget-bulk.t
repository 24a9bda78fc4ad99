#!/usr/bin/perl
# Budget and bulk-action rules no other test held (a hand mutation audit of
# budget.c and txn_bulk.c broke each of these in the code and the suite
# stayed green):
# - GET /api/budgets is a list: its total is the number of its items
#   (API.md 1, "Lists answer {items, total}"), in category order;
# - bulk untag removes that one tag and leaves the rows' other tags;
# - every field a bulk body carries is checked, whichever the action uses:
#   a wrong type or value is a 400 naming the field (API.md 1, "wrong JSON
#   types are a 400 naming the field");
# - bulk categorize "refund" follows the row's effective merchant (the
#   normalised one), as PATCH and rules do (rule C: "the merchant's most
#   used category").
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json user_ids);

my $rig = Rig->new;
my %uid = user_ids($rig);

sub mk {
    my ($user, %f) = @_;
    my $body = { date => '2024-03-01', amount => 10, description => 'row', %f };
    return ok_json($rig->post('/api/transactions', $body, user => $user), "$user creates $body->{description}");
}
sub mktag { ok_json($rig->post('/api/tags', { name => $_[1] }, user => $_[0]), "tag $_[1]")->{id} }
sub txn { $rig->get("/api/transactions/$_[0]", user => $_[1] // 'alice')->{json} }
my $res;
sub bulk { $rig->post('/api/transactions/bulk', $_[1], user => $_[0]) }
sub tag_names { [sort map { $_->{name} } @{ $_[0]{tags} // [] }] }

# ---- bulk untag removes only the named tag -------------------------------------------
my $r1 = mk('alice', description => 'Two tags one', merchant => 'Shop');
my $r2 = mk('alice', description => 'Two tags two', merchant => 'Shop');
my ($work, $home) = (mktag('alice', 'Work'), mktag('alice', 'Home'));
for my $t ($work, $home) {
    ok_json(bulk('alice', { action => 'tag', ids => [$r1->{id}, $r2->{id}], tag_id => $t }), 'bulk tag');
}
is_deeply(tag_names(txn($r1->{id})), ['Home', 'Work'], 'the row carries both tags');
$res = bulk('alice', { action => 'untag', ids => [$r1->{id}], tag_id => $work });
is_deeply([ $res->{status}, $res->{json} ], [ 200, { updated => 1 } ], 'bulk untag Work from one row');
is_deeply(tag_names(txn($r1->{id})), ['Home'], 'bulk untag removes only the named tag: Home stays');
is_deeply(tag_names(txn($r2->{id})), ['Home', 'Work'], 'and a row not named keeps both');

# ---- fields the action does not use are still checked -------------------------------
my $before = tag_names(txn($r2->{id}));
error_is(bulk('alice', { action => 'untag', ids => [$r2->{id}], tag_id => $home, category => 7 }),
         400, 'invalid_field', 'bulk untag with a category of the wrong type', 'category');
error_is(bulk('alice', { action => 'untag', ids => [$r2->{id}], tag_id => $home, merchant_normalized => [] }),
         400, 'invalid_field', 'bulk untag with a merchant_normalized of the wrong type', 'merchant_normalized');
error_is(bulk('alice', { action => 'untag', ids => [$r2->{id}], tag_id => $home,
                          merchant_normalized => 'm' x 201 }),
         400, 'invalid_field', 'bulk untag with a merchant_normalized over 200 characters', 'merchant_normalized');
error_is(bulk('alice', { action => 'untag', ids => [$r2->{id}], tag_id => $home, trip_id => 'Bali' }),
         400, 'invalid_field', 'bulk untag with a trip_id of the wrong type', 'trip_id');
error_is(bulk('alice', { action => 'normalize', ids => [$r2->{id}], merchant_normalized => 'X', tag_id => 'Work' }),
         400, 'invalid_field', 'bulk normalize with a tag_id of the wrong type', 'tag_id');
is_deeply(tag_names(txn($r2->{id})), $before, 'and nothing changed');

# ---- bulk categorize refund: the effective merchant's history --------------------------
mk('erin', description => 'Kmart toys', merchant => 'Kmart', category => 'shopping', amount => 40);
mk('erin', description => 'Kmart more', merchant => 'Kmart', category => 'shopping', amount => 20);
my $rf = mk('erin', description => 'KMART 1234 refund', merchant => 'KMART 1234 SYDNEY',
            transaction_type => 'refund', amount => 5);
ok_json(bulk('erin', { action => 'normalize', ids => [$rf->{id}], merchant_normalized => 'Kmart' }),
        'erin normalises the refund row to Kmart');
is(txn($rf->{id}, 'erin')->{merchant_normalized}, 'Kmart', 'its effective merchant is Kmart');
$res = bulk('erin', { action => 'categorize', ids => [$rf->{id}], category => 'refund' });
is($res->{status}, 200, 'bulk categorize refund');
is(txn($rf->{id}, 'erin')->{category}, 'shopping',
   "a refund takes its effective merchant's usual category (Kmart: shopping), not the raw text's");
$res = $rig->patch("/api/transactions/$rf->{id}", { category => 'refund' }, user => 'erin');
is_deeply([ $res->{status}, $res->{json}{category} ], [ 200, 'shopping' ], 'as PATCH gives it');

done_testing();
