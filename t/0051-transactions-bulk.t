#!/usr/bin/perl
# Behind nginx: bulk actions on transactions (tag, untag, categorize,
# normalize, assign_trip) and their all-or-nothing access check; tags on one
# transaction; tag usage counts; the merchant list; and the trip filters
# of the transaction list.  (Category usage counts are t/0086-categories.t's.)
#
# Trips and payments have no HTTP API yet: the trip tests write those rows
# straight into the rig's database with the sqlite3 command-line tool.
use strict;
use warnings;
use Test::More;
use JSON::PP ();
use Rig;
use CommonChecks qw(error_is participant_ok ok_json manual_id);

my $rig = Rig->new(server => 'nginx');

# ---- helpers ------------------------------------------------------------------

my %uid = map { $_ => $rig->get('/api/me', user => $_)->{json}{id} } @Rig::USERS;

# Splits may only name the owner's participants: here everyone has added
# everyone else (by the email claim the rig gives each user).
for my $u (@Rig::USERS) {
    participant_ok($rig, $u, $_) for grep { $_ ne $u } @Rig::USERS;
}
ok((5 == grep { ($uid{$_} // 0) > 0 } keys %uid), 'every test user has an id');

# A manual transaction owned by $user; dies when the service refuses it,
# since every later test depends on its data.
sub mk {
    my ($user, %f) = @_;
    my $body = { date => '2024-03-01', amount => 10, description => 'row', %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    die "creating a transaction for $user failed: $res->{status} $res->{content}\n"
        unless $res->{status} == 201;
    return $res->{json};
}

sub txn { my ($id, $user) = @_; $rig->get("/api/transactions/$id", user => $user // 'alice')->{json} }
sub bulk { my ($user, $body) = @_; $rig->post('/api/transactions/bulk', $body, user => $user) }
sub tag_names { my ($row) = @_; [map { $_->{name} } @{ $row->{tags} // [] }] }
sub ids_of { my ($res) = @_; [sort { $a <=> $b } map { $_->{id} } @{ $res->{json}{items} // [] }] }
sub sorted { [sort { $a <=> $b } @_] }

sub mktag {
    my ($user, $name) = @_;
    my $res = $rig->post('/api/tags', { name => $name }, user => $user);
    die "creating tag $name for $user failed: $res->{status} $res->{content}\n"
        unless $res->{status} == 201;
    return $res->{json}{id};
}

sub tag_list {
    my ($user) = @_;
    return +{ map { $_->{name} => $_ } @{ $rig->get('/api/tags', user => $user)->{json}{items} } };
}

# sqlite3 on the rig's database (WAL mode: safe while the service runs).
sub sql { $rig->sql(@_) }

sub mktrip {
    my ($owner, $name) = @_;
    return sql("INSERT INTO trips (owner_id, name) VALUES ($uid{$owner}, '$name');"
               . ' SELECT last_insert_rowid();');
}

# The state of a row that an all-or-nothing failure must leave alone.
sub snapshot {
    my ($id, $user) = @_;
    my $r = txn($id, $user);
    return [ $r->{category}, $r->{merchant_normalized}, $r->{trip_id},
             join(',', sort @{ tag_names($r) }) ];
}

my $res;

# ---- bulk tag / untag ---------------------------------------------------------
# tag links the caller's tag to every row; the rows then show it inline.
my $a1 = mk('alice', description => 'Coles run', merchant => 'Coles', category => 'groceries');
my $a2 = mk('alice', description => 'Coles again', merchant => 'Coles', category => 'groceries',
            date => '2024-03-02', amount => 20);
my $a3 = mk('alice', description => 'Uber home', merchant => 'Uber', category => 'transport',
            date => '2024-03-03', amount => 30);
my $work = mktag('alice', 'Work');
my $bob_tag = mktag('bob', 'BobOnly');

$res = bulk('alice', { action => 'tag', ids => [$a1->{id}, $a2->{id}], tag_id => $work });
is($res->{status}, 200, 'bulk tag');
is_deeply($res->{json}, { updated => 2 }, 'bulk tag answers {updated: 2}');
is_deeply(txn($a1->{id})->{tags}, [{ id => $work, name => 'Work', color => undef }],
          'the first row carries the tag inline');
is_deeply(tag_names(txn($a2->{id})), ['Work'], 'so does the second');
is_deeply(tag_names(txn($a3->{id})), [], 'a row not named is untouched');
is(tag_list('alice')->{Work}{usage_count}, 2, 'usage_count counts the two links');

# The tag must be the caller's: another user's tag is 403 naming tag_id
# (it exists, and is not hers), none at all a 400 on it.
error_is(bulk('alice', { action => 'tag', ids => [$a3->{id}], tag_id => $bob_tag }),
         403, 'forbidden', "bulk tag with another user's tag", 'tag_id');
error_is(bulk('alice', { action => 'tag', ids => [$a3->{id}], tag_id => 999999 }),
         400, 'invalid_field', 'bulk tag with a tag that does not exist', 'tag_id');
error_is(bulk('alice', { action => 'tag', ids => [$a3->{id}] }),
         400, 'invalid_field', 'bulk tag without tag_id', 'tag_id');
error_is(bulk('alice', { action => 'tag', ids => [$a3->{id}], tag_id => 'Work' }),
         400, 'invalid_field', 'bulk tag with a tag name for tag_id', 'tag_id');
is_deeply(tag_names(txn($a3->{id})), [], 'and the row got no tag');
is_deeply(tag_names(txn($a3->{id}, 'alice')), [], "bob's tag is not on alice's row");

$res = bulk('alice', { action => 'untag', ids => [$a1->{id}], tag_id => $work });
is($res->{status}, 200, 'bulk untag');
is_deeply($res->{json}, { updated => 1 }, 'bulk untag answers {updated: 1}');
is_deeply(tag_names(txn($a1->{id})), [], 'the tag is gone from the untagged row');
is_deeply(tag_names(txn($a2->{id})), ['Work'], 'and stays on the other row');
is(tag_list('alice')->{Work}{usage_count}, 1, 'usage_count follows');
error_is(bulk('alice', { action => 'untag', ids => [$a2->{id}], tag_id => $bob_tag }),
         403, 'forbidden', "bulk untag with another user's tag", 'tag_id');
is_deeply(tag_names(txn($a2->{id})), ['Work'], 'and the row keeps its tag');

# ---- bulk categorize ----------------------------------------------------------
# The category is folded (rule C) into an override; the base stays; null
# clears the override so the base shows again.
$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}, $a3->{id}],
                       category => 'Personal Care' });
is($res->{status}, 200, 'bulk categorize');
is_deeply($res->{json}, { updated => 2 }, 'bulk categorize answers {updated: 2}');
for my $r ($a1, $a3) {
    my $got = txn($r->{id});
    is($got->{category}, 'personal_care', "row $r->{description}: 'Personal Care' folds to personal_care");
    is($got->{overrides}{category}, 'personal_care', '... held as an override');
}
is(txn($a2->{id})->{category}, 'groceries', 'a row not named keeps its category');
# updated counts rows changed: the same again changes nothing.
$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}, $a3->{id}], category => 'personal care' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 0 }],
          'categorize to the category the rows have: {updated: 0}');

$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}], category => '  DINING ' });
is_deeply([$res->{status}, txn($a1->{id})->{category}], [200, 'dining'],
          'case and spacing variants fold to the built-in slug');
$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}], category => 'Payment' });
is(txn($a1->{id})->{category}, 'transfers', 'payment becomes transfers');

$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}, $a3->{id}], category => undef });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }], 'categorize with null');
is_deeply([map { @{ txn($_->{id}) }{qw(category)} } $a1, $a3], ['groceries', 'transport'],
          'null clears the override: the base categories show again');
is_deeply([map { txn($_->{id})->{overrides}{category} } $a1, $a3], [undef, undef],
          'and no category override is left');

error_is(bulk('alice', { action => 'categorize', ids => [$a1->{id}] }),
         400, 'invalid_field', 'categorize without category', 'category');
error_is(bulk('alice', { action => 'categorize', ids => [$a1->{id}], category => '--' }),
         400, 'invalid_field', 'a category with no letter or digit', 'category');
error_is(bulk('alice', { action => 'categorize', ids => [$a1->{id}], category => 7 }),
         400, 'invalid_field', 'a category of the wrong type', 'category');
is(txn($a1->{id})->{category}, 'groceries', 'the refused requests changed nothing');

# Duplicated ids name one row once.
$res = bulk('alice', { action => 'categorize', ids => [$a1->{id}, $a1->{id}, $a2->{id}],
                       category => 'home' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }],
          'a repeated id counts once in updated');
bulk('alice', { action => 'categorize', ids => [$a1->{id}, $a2->{id}], category => undef });

# "refund" takes, per row, the category its owner most often gives the row's
# merchant (else other).  Bob's own Myer rows say gifts; the shared refund
# row is alice's, so her habit (shopping) decides, even when bob acts.
# The refund rows are made without a category and must stay so until the
# bulk action: alice's rows take no suggestion when they are made.
$rig->put('/api/suggestions/settings', { threshold => 1.01 }, user => 'alice');
mk('alice', description => 'Myer shirt', merchant => 'Myer', category => 'shopping', amount => 50);
mk('alice', description => 'Myer shoes', merchant => 'Myer', category => 'shopping', amount => 80);
mk('alice', description => 'Myer cafe', merchant => 'Myer', category => 'dining', amount => 12);
mk('bob', description => 'Myer present', merchant => 'Myer', category => 'gifts', amount => 40);
mk('bob', description => 'Myer present 2', merchant => 'Myer', category => 'gifts', amount => 45);
mk('bob', description => 'Bunnings drill', merchant => 'Bunnings', category => 'home', amount => 99);
my $refund = mk('alice', description => 'Myer refund', merchant => 'Myer', transaction_type => 'refund',
                amount => 50);
my $odd = mk('alice', description => 'Unknown shop refund', merchant => 'Nowhere Pty',
             transaction_type => 'refund', amount => 5);
my $bun = mk('alice', description => 'Bunnings refund', merchant => 'Bunnings', transaction_type => 'refund',
             amount => 9, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
my $myer_shared = mk('alice', description => 'Myer shared refund', merchant => 'Myer',
                     transaction_type => 'refund', amount => 30,
                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);

$res = bulk('alice', { action => 'categorize', ids => [$refund->{id}, $odd->{id}], category => 'Refund' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }], 'categorize with refund');
is(txn($refund->{id})->{category}, 'shopping', "refund takes the merchant's most used category");
is(txn($odd->{id})->{category}, 'other', 'a merchant with no categorised rows gives other');
$res = bulk('bob', { action => 'categorize', ids => [$myer_shared->{id}, $bun->{id}], category => 'refund' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }],
          'a split participant categorizes shared rows with refund');
is(txn($myer_shared->{id})->{category}, 'shopping',
   "the row owner's habits decide, not the caller's (bob says gifts for Myer)");
is(txn($bun->{id})->{category}, 'other',
   "alice has no categorised Bunnings row: other, though bob has one");
bulk('alice', { action => 'categorize', ids => [$refund->{id}], category => undef });
$res = bulk('alice', { action => 'categorize', ids => [$refund->{id}, $refund->{id}], category => 'refund' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }],
          'a repeated id counts once in updated with refund too');

# ---- bulk normalize -----------------------------------------------------------
# merchant_normalized becomes an override; search and the merchant list then
# use it; null clears it.
my $k1 = mk('alice', description => 'SQ *KOPI 1234', merchant => 'SQ *KOPI 1234', amount => 4.5,
            date => '2024-04-01');
my $k2 = mk('alice', description => 'SQ *KOPI 9876 SYD', merchant => 'SQ *KOPI 9876 SYD', amount => 5,
            date => '2024-04-02');
is($rig->get('/api/transactions?search=morning%20coffee', user => 'alice')->{json}{total}, 0,
   'before normalizing, nothing matches the new name');
$res = bulk('alice', { action => 'normalize', ids => [$k1->{id}, $k2->{id}],
                       merchant_normalized => 'Morning Coffee' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }], 'bulk normalize');
is_deeply(bulk('alice', { action => 'normalize', ids => [$k1->{id}, $k2->{id}],
                          merchant_normalized => 'Morning Coffee' })->{json}, { updated => 0 },
          'the same name again: {updated: 0}');
$res = txn($k1->{id});
is_deeply([@$res{qw(merchant merchant_normalized)}, $res->{overrides}{merchant_normalized}],
          ['SQ *KOPI 1234', 'Morning Coffee', 'Morning Coffee'],
          'the override is the effective merchant_normalized; merchant stays');
$res = $rig->get('/api/transactions?search=MORNING%20coffee', user => 'alice');
is_deeply(ids_of($res), sorted($k1->{id}, $k2->{id}), 'search finds both rows by the new name');
$res = $rig->get('/api/merchants?search=morning', user => 'alice');
is_deeply($res->{json}{items},
          [{ merchant => 'Morning Coffee', transaction_count => 2, total => 9.5,
             last_date => '2024-04-02', category => undef }],
          'the merchant list groups the two rows under the normalized name');
is($rig->get('/api/merchants?search=KOPI', user => 'alice')->{json}{total}, 0,
   'and the raw names are no longer merchants of their own');
error_is(bulk('alice', { action => 'normalize', ids => [$k1->{id}] }),
         400, 'invalid_field', 'normalize without merchant_normalized', 'merchant_normalized');
error_is(bulk('alice', { action => 'normalize', ids => [$k1->{id}], merchant_normalized => [] }),
         400, 'invalid_field', 'merchant_normalized of the wrong type', 'merchant_normalized');
$res = bulk('alice', { action => 'normalize', ids => [$k2->{id}], merchant_normalized => undef });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }], 'normalize with null');
is_deeply([txn($k2->{id})->{merchant_normalized}, txn($k2->{id})->{overrides}{merchant_normalized}],
          [undef, undef], 'null clears the override');
is_deeply(ids_of($rig->get('/api/transactions?search=morning%20coffee', user => 'alice')),
          [$k1->{id}], 'search no longer finds the cleared row by that name');

# ---- bulk assign_trip ----------------------------------------------------------
# trip_id must be a trip the caller takes part in; the trip filter then
# lists the rows; null unassigns.
my $trip = mktrip('alice', 'Bali');
my $carol_trip = mktrip('carol', 'Carol only');
my $t1 = mk('alice', description => 'Bali hotel', amount => 300, date => '2024-05-01');
my $t2 = mk('alice', description => 'Bali taxi', amount => 15, date => '2024-05-02');
my $t3 = mk('alice', description => 'Home groceries', amount => 60, date => '2024-05-03');
$res = bulk('alice', { action => 'assign_trip', ids => [$t1->{id}, $t2->{id}], trip_id => 0 + $trip });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 2 }], 'bulk assign_trip');
is_deeply(bulk('alice', { action => 'assign_trip', ids => [$t1->{id}, $t2->{id}, $t3->{id}],
                          trip_id => 0 + $trip })->{json}, { updated => 1 },
          'a row already in the trip is not counted again: {updated: 1}');
bulk('alice', { action => 'assign_trip', ids => [$t3->{id}], trip_id => undef });
$res = txn($t1->{id});
is_deeply([$res->{trip_id}, $res->{overrides}{trip_id}], [$trip, $trip], 'the row shows the trip');
$res = $rig->get("/api/transactions?trip_id=$trip", user => 'alice');
is_deeply([ids_of($res), $res->{json}{total}], [sorted($t1->{id}, $t2->{id}), 2],
          'trip_id lists exactly the assigned rows');
error_is(bulk('alice', { action => 'assign_trip', ids => [$t3->{id}], trip_id => 0 + $carol_trip }),
         403, 'forbidden', 'a trip the caller does not take part in', 'trip_id');
error_is(bulk('alice', { action => 'assign_trip', ids => [$t3->{id}], trip_id => 999999 }),
         400, 'invalid_field', 'a trip that does not exist', 'trip_id');
error_is(bulk('alice', { action => 'assign_trip', ids => [$t3->{id}] }),
         400, 'invalid_field', 'assign_trip without trip_id', 'trip_id');
error_is(bulk('alice', { action => 'assign_trip', ids => [$t3->{id}], trip_id => 'Bali' }),
         400, 'invalid_field', 'a trip_id of the wrong type', 'trip_id');
is(txn($t3->{id})->{trip_id}, undef, 'the refused requests assigned nothing');
$res = bulk('alice', { action => 'assign_trip', ids => [$t2->{id}], trip_id => undef });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }], 'assign_trip with null');
is_deeply(bulk('alice', { action => 'assign_trip', ids => [$t2->{id}], trip_id => undef })->{json},
          { updated => 0 }, 'null again, on a row in no trip: {updated: 0}');
is_deeply([txn($t2->{id})->{trip_id}, txn($t2->{id})->{overrides}{trip_id}], [undef, undef],
          'null unassigns the row');
is_deeply(ids_of($rig->get("/api/transactions?trip_id=$trip", user => 'alice')), [$t1->{id}],
          'and the trip lists only the row still assigned');

# ---- all or nothing -----------------------------------------------------------
# One id the caller may not touch (403) or that does not exist (404) and no
# row changes, whatever the action.
my $x1 = mk('alice', description => 'Steady one', merchant => 'Steady', category => 'groceries');
my $x2 = mk('alice', description => 'Steady two', merchant => 'Steady', category => 'groceries');
my $c1 = mk('carol', description => 'Carol lunch', merchant => 'Cafe', category => 'dining');
my $steady_tag = mktag('alice', 'Steady');
# Both carry Work, so that a wrongly applied untag would show too.
bulk('alice', { action => 'tag', ids => [$x1->{id}, $x2->{id}], tag_id => $work });
my %before = map { $_ => snapshot($_) } $x1->{id}, $x2->{id};
is_deeply($before{ $x1->{id} }, ['groceries', undef, undef, 'Work'], 'the state to keep');
my %by_action = (
    tag => { tag_id => $steady_tag },
    untag => { tag_id => $work },
    categorize => { category => 'travel' },
    normalize => { merchant_normalized => 'Changed' },
    assign_trip => { trip_id => 0 + $trip },
);
for my $action (sort keys %by_action) {
    my %b = (action => $action, %{ $by_action{$action} });
    error_is(bulk('alice', { %b, ids => [$x1->{id}, $c1->{id}, $x2->{id}] }), 403, 'forbidden',
             "$action: one of carol's rows among alice's", 'ids');
    is_deeply({ map { $_ => snapshot($_) } $x1->{id}, $x2->{id} }, \%before,
              "$action: none of alice's rows changed");
    error_is(bulk('alice', { %b, ids => [$x1->{id}, 99999999, $x2->{id}] }), 404, 'not_found',
             "$action: an id that does not exist");
    is_deeply({ map { $_ => snapshot($_) } $x1->{id}, $x2->{id} }, \%before,
              "$action: still none changed");
}
is_deeply(snapshot($c1->{id}, 'carol'), ['dining', undef, undef, ''], "and carol's row is untouched");

# A split participant may act on the shared row, but not on the owner's
# other rows, and a stranger on neither.
my $s1 = mk('alice', description => 'Dinner for two', merchant => 'Bistro', category => 'dining',
            amount => 100, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$res = bulk('bob', { action => 'categorize', ids => [$s1->{id}], category => 'Gifts' });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }],
          'bob, a split participant, bulk-categorizes the shared row');
is(txn($s1->{id}, 'alice')->{category}, 'gifts', 'alice sees the new category');
error_is(bulk('bob', { action => 'categorize', ids => [$s1->{id}, $x1->{id}], category => 'home' }),
         403, 'forbidden', "bob with the shared row and one of alice's own", 'ids');
is_deeply([txn($s1->{id})->{category}, txn($x1->{id})->{category}], ['gifts', 'groceries'],
          'neither changed');
error_is(bulk('dave', { action => 'categorize', ids => [$s1->{id}], category => 'home' }),
         403, 'forbidden', 'a stranger on the shared row', 'ids');
is(txn($s1->{id})->{category}, 'gifts', 'unchanged');

# ---- bulk: the request itself --------------------------------------------------
error_is(bulk('alice', { action => 'explode', ids => [$x1->{id}] }), 400, 'invalid_field',
         'an unknown action', 'action');
error_is(bulk('alice', { ids => [$x1->{id}], category => 'home' }), 400, 'invalid_field',
         'no action', 'action');
error_is(bulk('alice', { action => 7, ids => [$x1->{id}] }), 400, 'invalid_field',
         'an action of the wrong type', 'action');
error_is(bulk('alice', { action => 'Categorize', ids => [$x1->{id}], category => 'home' }),
         400, 'invalid_field', 'actions are exact words', 'action');
my @bad_ids = (
    ['not an array', $x1->{id}],
    ['a string', "$x1->{id}"],
    ['an object', { id => $x1->{id} }],
    ['empty', []],
    ['missing', undef],
    ['holding "abc"', [$x1->{id}, 'abc']],
    ['holding 1.5', [$x1->{id}, 1.5]],
    ['holding -3', [$x1->{id}, -3]],
    ['holding 0', [0]],
    ['holding a numeric string', ["$x1->{id}"]],
    ['holding null', [undef]],
);
for my $case (@bad_ids) {
    my ($what, $ids) = @$case;
    my %b = (action => 'categorize', category => 'home');
    $b{ids} = $ids unless $what eq 'missing';
    error_is(bulk('alice', \%b), 400, 'invalid_field', "ids $what", 'ids');
}
error_is(bulk('alice', { action => 'categorize', category => 'home', ids => [($x1->{id}) x 5001] }),
         400, 'invalid_field', 'more than 5000 ids', 'ids');
is(txn($x1->{id})->{category}, 'groceries', 'none of the refused requests changed the row');
$res = bulk('alice', { action => 'categorize', category => 'home', ids => [($x1->{id}) x 5000] });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }], 'exactly 5000 ids are taken');
is(txn($x1->{id})->{category}, 'home', 'and applied');
error_is($rig->request('POST', '/api/transactions/bulk', open => 1,
                       json => { action => 'categorize', ids => [$x1->{id}], category => 'dining' }),
         401, 'unauthenticated', 'bulk without an identity');
is(txn($x1->{id})->{category}, 'home', 'changed nothing');
error_is($rig->request('POST', '/api/transactions/bulk', user => 'alice', body => '[1, 2]',
                       type => 'application/json'),
         400, 'invalid_json', 'a body that is not an object');
$res = $rig->get('/api/transactions/bulk', user => 'alice');
error_is($res, 405, 'method_not_allowed', 'bulk is a route of its own, not a transaction id');
is($res->{headers}{allow}, 'POST', 'and takes only POST');

# ---- tags on one transaction ---------------------------------------------------
my $p1 = mk('alice', description => 'Post office', merchant => 'Auspost', date => '2024-06-01');
my $p2 = mk('alice', description => 'Chemist', merchant => 'Priceline', date => '2024-06-02');
my $errands = mktag('alice', 'Errands');

$res = $rig->post("/api/transactions/$p1->{id}/tags", { tag_id => $errands }, user => 'alice');
is($res->{status}, 200, 'add a tag by tag_id');
is_deeply([$res->{json}{id}, $res->{json}{tags}], [$p1->{id}, [{ id => $errands, name => 'Errands', color => undef }]],
          'the answer is the row, showing the tag');
is_deeply(tag_names(txn($p1->{id})), ['Errands'], 'the row keeps it');

$res = $rig->post("/api/transactions/$p1->{id}/tags", { name => 'NewTag' }, user => 'alice');
is($res->{status}, 200, 'add a tag by a new name');
is_deeply(tag_names($res->{json}), ['Errands', 'NewTag'], 'the row shows both tags');
my $newtag = tag_list('alice')->{NewTag};
ok($newtag, "the new tag is one of alice's tags");
is($newtag->{usage_count}, 1, 'with usage_count 1');
$res = $rig->post("/api/transactions/$p2->{id}/tags", { name => 'newtag' }, user => 'alice');
is($res->{status}, 200, 'add by the same name in another case');
is_deeply($res->{json}{tags}, [{ id => $newtag->{id}, name => 'NewTag', color => undef }],
          'the existing tag is reused');
my @named = grep { lc $_ eq 'newtag' } keys %{ tag_list('alice') };
is_deeply(\@named, ['NewTag'], 'no second tag was made');
is(tag_list('alice')->{NewTag}{usage_count}, 2, 'usage_count 2');
$res = $rig->post("/api/transactions/$p1->{id}/tags", { tag_id => $newtag->{id} }, user => 'alice');
is_deeply([$res->{status}, tag_names($res->{json})], [200, ['Errands', 'NewTag']],
          'adding a tag the row has is harmless');
is(tag_list('alice')->{NewTag}{usage_count}, 2, 'and links it once');

my $tags_before = $rig->get('/api/tags', user => 'alice')->{json};
error_is($rig->post("/api/transactions/$p2->{id}/tags", { name => 'csv-import' }, user => 'alice'),
         400, 'invalid_field', 'the reserved csv-import name', 'name');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { name => 'CSV-Import' }, user => 'alice'),
         400, 'invalid_field', 'the reserved name in another case', 'name');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { tag_id => $errands, name => 'Errands' },
                    user => 'alice'), 400, 'invalid_field', 'both tag_id and name');
error_is($rig->post("/api/transactions/$p2->{id}/tags", {}, user => 'alice'),
         400, 'invalid_field', 'neither tag_id nor name');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { tag_id => $bob_tag }, user => 'alice'),
         403, 'forbidden', "another user's tag_id", 'tag_id');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { tag_id => 999999 }, user => 'alice'),
         400, 'invalid_field', 'a tag_id that does not exist', 'tag_id');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { name => '' }, user => 'alice'),
         400, 'invalid_field', 'an empty name', 'name');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { name => 'x' x 65 }, user => 'alice'),
         400, 'invalid_field', 'an over-long name', 'name');
is_deeply($rig->get('/api/tags', user => 'alice')->{json}, $tags_before,
          'the refused requests created and linked nothing');
is_deeply(tag_names(txn($p2->{id})), ['NewTag'], 'the row is as it was');

$res = $rig->del("/api/transactions/$p1->{id}/tags/$errands", user => 'alice');
is($res->{status}, 204, 'remove a tag by path');
is($res->{content} // '', '', 'with no body');
is_deeply(tag_names(txn($p1->{id})), ['NewTag'], 'the tag is gone from the row');
is(tag_list('alice')->{Errands}{usage_count}, 0, 'but the tag itself remains, unused');
$res = $rig->request('DELETE', "/api/transactions/$p1->{id}/tags", user => 'alice',
                     json => { tag_id => $newtag->{id} });
is($res->{status}, 204, 'remove a tag with a body {tag_id}');
is_deeply(tag_names(txn($p1->{id})), [], 'that tag is gone too');
is(tag_list('alice')->{NewTag}{usage_count}, 1, 'usage_count follows');
error_is($rig->request('DELETE', "/api/transactions/$p1->{id}/tags", user => 'alice', json => {}),
         400, 'invalid_field', 'a remove body without tag_id', 'tag_id');
# On her own row: a tag in the path is a resource (403, 404); a tag named
# in the body is a field: 403 naming it when another user's, a missing one
# 400, as when adding one.
error_is($rig->del("/api/transactions/$p1->{id}/tags/$bob_tag", user => 'alice'),
         403, 'forbidden', "removing another user's tag by path");
error_is($rig->del("/api/transactions/$p1->{id}/tags/999999", user => 'alice'),
         404, 'not_found', 'removing a missing tag by path');
error_is($rig->request('DELETE', "/api/transactions/$p1->{id}/tags", user => 'alice',
                       json => { tag_id => $bob_tag }),
         403, 'forbidden', "removing another user's tag with a body", 'tag_id');
error_is($rig->request('DELETE', "/api/transactions/$p1->{id}/tags", user => 'alice',
                       json => { tag_id => 999999 }),
         400, 'invalid_field', 'removing a missing tag with a body', 'tag_id');

# A stranger may neither add nor remove, and nothing changes.
my $p2_before = txn($p2->{id});
error_is($rig->post("/api/transactions/$p2->{id}/tags", { name => 'Mine' }, user => 'carol'),
         403, 'forbidden', "carol adds a tag to alice's row");
is_deeply(tag_list('carol'), {}, 'and no tag was created for carol');
my $carol_tag = mktag('carol', 'CarolTag');
error_is($rig->post("/api/transactions/$p2->{id}/tags", { tag_id => $carol_tag }, user => 'carol'),
         403, 'forbidden', "carol adds her tag to alice's row");
is(tag_list('carol')->{CarolTag}{usage_count}, 0, 'it is linked nowhere');
error_is($rig->del("/api/transactions/$p2->{id}/tags/$newtag->{id}", user => 'carol'),
         403, 'forbidden', "carol removes alice's tag by path");
error_is($rig->request('DELETE', "/api/transactions/$p2->{id}/tags", user => 'carol',
                       json => { tag_id => $newtag->{id} }),
         403, 'forbidden', "carol removes alice's tag with a body");
is_deeply(txn($p2->{id}), $p2_before, "alice's row is unchanged");
error_is($rig->post('/api/transactions/99999999/tags', { tag_id => $errands }, user => 'alice'),
         404, 'not_found', 'add to a missing transaction');
error_is($rig->del("/api/transactions/99999999/tags/$errands", user => 'alice'),
         404, 'not_found', 'remove from a missing transaction');
error_is($rig->request('DELETE', '/api/transactions/99999999/tags', user => 'alice',
                       json => { tag_id => $errands }),
         404, 'not_found', 'remove with a body from a missing transaction');
error_is($rig->request('POST', "/api/transactions/$p2->{id}/tags", open => 1,
                       json => { tag_id => $errands }),
         401, 'unauthenticated', 'add without an identity');

# Inline tags are the viewer's own: on a shared row, bob sees his tag and
# alice hers, never each other's.
my $s2 = mk('alice', description => 'Shared groceries', merchant => 'Aldi', amount => 80,
            date => '2024-06-03', splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$res = $rig->post("/api/transactions/$s2->{id}/tags", { name => 'BobTag' }, user => 'bob');
is($res->{status}, 200, 'bob, a participant, tags alice\'s shared row with his own tag');
is_deeply(tag_names($res->{json}), ['BobTag'], 'and sees it on the row');
is(tag_list('bob')->{BobTag}{usage_count}, 1, "it is bob's tag, used once");
ok(!tag_list('alice')->{BobTag}, 'alice has no such tag');
$res = $rig->post("/api/transactions/$s2->{id}/tags", { name => 'AliceTag' }, user => 'alice');
is_deeply(tag_names($res->{json}), ['AliceTag'], "alice's answer shows only her tag");
is_deeply(tag_names(txn($s2->{id}, 'alice')), ['AliceTag'], 'alice does not see bob\'s tag');
is_deeply(tag_names(txn($s2->{id}, 'bob')), ['BobTag'], 'bob does not see alice\'s tag');
my ($listed) = grep { $_->{id} == $s2->{id} }
    @{ $rig->get('/api/transactions?search=Shared%20groceries', user => 'alice')->{json}{items} };
is_deeply(tag_names($listed), ['AliceTag'], 'the same in the list');
($listed) = grep { $_->{id} == $s2->{id} }
    @{ $rig->get('/api/transactions?search=Shared%20groceries', user => 'bob')->{json}{items} };
is_deeply(tag_names($listed), ['BobTag'], "and in bob's list");
$res = bulk('bob', { action => 'tag', ids => [$s2->{id}], tag_id => $bob_tag });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }], 'bob bulk-tags the shared row');
is_deeply(tag_names(txn($s2->{id}, 'bob')), ['BobOnly', 'BobTag'], 'bob sees both of his tags');
is_deeply(tag_names(txn($s2->{id}, 'alice')), ['AliceTag'], 'alice still only hers');
$res = $rig->del("/api/transactions/$s2->{id}/tags/" . tag_list('alice')->{AliceTag}{id}, user => 'bob');
error_is($res, 403, 'forbidden', "bob cannot remove alice's tag from the shared row");
is_deeply(tag_names(txn($s2->{id}, 'alice')), ['AliceTag'], 'and it stays');
# When alice takes the split back, bob no longer sees the row: his tag's
# usage counts only rows he can list with it.
is($rig->del("/api/transactions/$s2->{id}/splits", user => 'alice')->{status}, 204, 'alice takes the split back');
is($rig->get("/api/transactions?tag_ids=" . tag_list('bob')->{BobTag}{id}, user => 'bob')->{json}{total}, 0,
   "bob's tag filter finds nothing now");
is(tag_list('bob')->{BobTag}{usage_count}, 0, 'and his tag counts no use');

# ---- tag usage counts and deleting a tag ---------------------------------------
my @u = map { mk('alice', description => "usage $_", date => '2024-07-0' . $_) } 1 .. 3;
my $temp = mktag('alice', 'Temp');
bulk('alice', { action => 'tag', ids => [map { $_->{id} } @u], tag_id => $temp });
is(tag_list('alice')->{Temp}{usage_count}, 3, 'usage_count counts the three linked rows');
$res = $rig->get("/api/transactions?tag_ids=$temp", user => 'alice');
is_deeply(ids_of($res), sorted(map { $_->{id} } @u), 'the tag filter finds them');
is($rig->del("/api/tags/$temp", user => 'alice')->{status}, 204, 'delete the tag');
is_deeply([map { tag_names(txn($_->{id})) } @u], [[], [], []], 'it is gone from every row');
ok(!tag_list('alice')->{Temp}, 'and from the tag list');
my $temp2 = mktag('alice', 'Temp');
is(tag_list('alice')->{Temp}{usage_count}, 0, 'a new tag of that name starts unused');
is($rig->get("/api/transactions?tag_ids=$temp2", user => 'alice')->{json}{total}, 0,
   'and is on no row');

# ---- GET /api/merchants --------------------------------------------------------
# erin's merchants only: total is net spend in the home currency.
mk('erin', description => 'a1', merchant => 'Alpha Cafe', category => 'dining', amount => 10,
   date => '2024-01-05');
mk('erin', description => 'a2', merchant => 'Alpha Cafe', category => 'dining', amount => 5.5,
   date => '2024-02-10');
mk('erin', description => 'a3', merchant => 'Alpha Cafe', transaction_type => 'refund', amount => 3,
   date => '2024-01-20');
mk('erin', description => 'b1', merchant => 'Beta Mart', category => 'shopping', amount => 100,
   currency => 'USD', amount_aud => 150.25, exchange_rate_to_aud => 1.5025, date => '2024-03-01');
mk('erin', description => 'b2', merchant => 'Beta Mart', category => 'shopping',
   transaction_type => 'credit', amount => 20, date => '2024-03-02');
mk('erin', description => 'g1', merchant => 'Gamma Bank', category => 'fees', transaction_type => 'fee',
   amount => 2, date => '2024-04-01');
mk('erin', description => 'g2', merchant => 'Gamma Bank', category => 'loan_interest',
   transaction_type => 'interest', amount => 1.25, date => '2024-04-02');
mk('erin', description => 'g3', merchant => 'Gamma Bank', category => 'fees',
   transaction_type => 'payment', amount => 0.5, date => '2024-04-03');
my $delta = mk('erin', description => 'd1', merchant => 'Delta Books', category => 'education',
               amount => 15, date => '2024-05-01');
# Digits alone name no merchant (the cleaner finds none in them).
mk('erin', description => '0044 1234 5678', amount => 7, date => '2024-05-02');
# Shared with erin, but alice's: not one of erin's merchants.
mk('alice', description => 'shared with erin', merchant => 'Alpha Cafe', amount => 40,
   splits => [{ participant_id => $uid{erin}, share_percent => 50 }]);

my %alpha = (merchant => 'Alpha Cafe', transaction_count => 3, total => 12.5,
             last_date => '2024-02-10', category => 'dining');
my %gamma = (merchant => 'Gamma Bank', transaction_count => 3, total => 2.75,
             last_date => '2024-04-03', category => 'fees');
my %beta = (merchant => 'Beta Mart', transaction_count => 2, total => 130.25,
            last_date => '2024-03-02', category => 'shopping');
my %delta = (merchant => 'Delta Books', transaction_count => 1, total => 15,
             last_date => '2024-05-01', category => 'education');
$res = $rig->get('/api/merchants', user => 'erin');
is($res->{status}, 200, 'GET /api/merchants');
is_deeply($res->{json},
          { items => [\%alpha, \%gamma, \%beta, \%delta], total => 4, limit => 50, offset => 0,
            next_cursor => undef },
          'by count, then name; net totals (amount_aud when present); most used category; '
          . 'rows without a merchant and rows of others left out');
$res = $rig->get('/api/merchants?search=cAFe', user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[\%alpha], 1], 'search ignores case');
$res = $rig->get('/api/merchants?search=a%20M', user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[\%beta], 1], 'search is a substring');
$res = $rig->get('/api/merchants?search=%25', user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'a % in search is a literal');
$res = $rig->get('/api/merchants?search=_', user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'so is an _');

# Pages: limit/offset, and next_cursor followed to the end.
$res = $rig->get('/api/merchants?limit=2', user => 'erin');
is_deeply([@{ $res->{json} }{qw(items total limit offset)}], [[\%alpha, \%gamma], 4, 2, 0],
          'the first page of two');
ok(defined $res->{json}{next_cursor} && length $res->{json}{next_cursor}, 'with a next_cursor');
my @seen = map { $_->{merchant} } @{ $res->{json}{items} };
my $pages = 1;
while (defined(my $cur = $res->{json}{next_cursor})) {
    last if $pages > 10;
    $res = $rig->get("/api/merchants?limit=2&cursor=$cur", user => 'erin');
    is($res->{status}, 200, "page " . ($pages + 1) . ' by cursor');
    push @seen, map { $_->{merchant} } @{ $res->{json}{items} };
    $pages++;
}
is_deeply([\@seen, $pages], [['Alpha Cafe', 'Gamma Bank', 'Beta Mart', 'Delta Books'], 2],
          'following next_cursor visits every merchant once, in order, and ends with null');
$res = $rig->get('/api/merchants?limit=3&offset=1', user => 'erin');
is_deeply([@{ $res->{json} }{qw(items total limit offset next_cursor)}],
          [[\%gamma, \%beta, \%delta], 4, 3, 1, undef], 'limit and offset');
$res = $rig->get('/api/merchants?limit=2&offset=4', user => 'erin');
is_deeply([@{ $res->{json} }{qw(items total next_cursor)}], [[], 4, undef], 'an offset past the end');
error_is($rig->get('/api/merchants?limit=0', user => 'erin'), 400, 'invalid_field', 'limit=0', 'limit');
error_is($rig->get('/api/merchants?limit=501', user => 'erin'), 400, 'invalid_field', 'limit=501', 'limit');
error_is($rig->get('/api/merchants?limit=x', user => 'erin'), 400, 'invalid_field', 'limit=x', 'limit');
error_is($rig->get('/api/merchants?offset=-1', user => 'erin'), 400, 'invalid_field', 'offset=-1', 'offset');
error_is($rig->get('/api/merchants?cursor=zz', user => 'erin'), 400, 'invalid_field', 'a bad cursor',
         'cursor');
error_is($rig->get('/api/merchants', open => 1), 401, 'unauthenticated', 'merchants without an identity');
$res = $rig->get('/api/merchants?search=Alpha', user => 'alice');
is_deeply([map { [$_->{merchant}, $_->{transaction_count}] } @{ $res->{json}{items} }],
          [['Alpha Cafe', 1]], "alice's list holds only her own Alpha Cafe row");

# The list groups by the effective merchant: normalizing moves a row.
$res = bulk('erin', { action => 'normalize', ids => [$delta->{id}], merchant_normalized => 'Beta Mart' });
is($res->{status}, 200, 'erin normalizes Delta Books to Beta Mart');
$res = $rig->get('/api/merchants', user => 'erin');
is_deeply([map { [$_->{merchant}, $_->{transaction_count}, 0 + $_->{total}] } @{ $res->{json}{items} }],
          [['Alpha Cafe', 3, 12.5], ['Beta Mart', 3, 145.25], ['Gamma Bank', 3, 2.75]],
          'the moved row counts under its new name; Delta Books is gone');
is($res->{json}{total}, 3, 'total counts merchants');

# ---- trip filters on GET /api/transactions ------------------------------------
# trip_id alone keeps the normal scoping; trip_all_rows=1 shows every row of
# the trip to its participants and nothing to anyone else.
my $bali = mktrip('alice', 'Bali 2');
my $b1 = mk('alice', description => 'trip shared', amount => 90, date => '2024-08-01',
            splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
my $b2 = mk('alice', description => 'trip own 1', amount => 40, date => '2024-08-02');
my $b3 = mk('alice', description => 'trip own 2', amount => 25, date => '2024-08-03');
my $b4 = mk('alice', description => 'not on the trip', amount => 11, date => '2024-08-04');
$res = bulk('alice', { action => 'assign_trip', ids => [map { $_->{id} } $b1, $b2, $b3],
                       trip_id => 0 + $bali });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 3 }], 'alice assigns three rows to the trip');
my $trip_rows = sorted(map { $_->{id} } $b1, $b2, $b3);

$res = $rig->get("/api/transactions?trip_id=$bali", user => 'alice');
is_deeply([ids_of($res), $res->{json}{total}], [$trip_rows, 3], 'alice: trip_id lists the three rows');
$res = $rig->get("/api/transactions?trip_id=$bali", user => 'bob');
is_deeply([ids_of($res), $res->{json}{total}], [[$b1->{id}], 1],
          'bob with trip_id alone sees only the row shared with him');
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'bob');
is($res->{status}, 200, 'bob with trip_all_rows=1');
is_deeply([ids_of($res), $res->{json}{total}], [$trip_rows, 3],
          'a participant by split sees every row of the trip');
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'carol');
is_deeply([$res->{status}, $res->{json}{items}, $res->{json}{total}], [200, [], 0],
          'carol, no participant, gets an empty list');
$res = $rig->get("/api/transactions?trip_id=$bali", user => 'carol');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'and nothing with trip_id alone');
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=0", user => 'bob');
is_deeply(ids_of($res), [$b1->{id}], 'trip_all_rows=0 is the same as absent');

# erin takes part through a payment scoped to the trip.
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'erin before any payment: nothing');
sql("INSERT INTO split_payments (from_user_id, to_user_id, amount, date, trip_id,"
    . " linked_transaction_id, created_by) VALUES ($uid{erin}, $uid{alice}, 2000, '2024-08-05',"
    . " $bali, 'pay-bali-1', $uid{erin})");
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'erin');
is_deeply([ids_of($res), $res->{json}{total}], [$trip_rows, 3],
          'a payment scoped to the trip makes erin a participant: every row');
$res = $rig->get("/api/transactions?trip_id=$bali", user => 'erin');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'erin with trip_id alone: none is hers');
# A household payment (no trip) makes nobody a trip participant.
sql("INSERT INTO split_payments (from_user_id, to_user_id, amount, date, trip_id,"
    . " linked_transaction_id, created_by) VALUES ($uid{carol}, $uid{alice}, 500, '2024-08-05',"
    . " NULL, 'pay-home-1', $uid{carol})");
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'carol');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'a household payment does not count');

# A participant's own row on the trip is a trip row for everyone in it.
my $bob_row = mk('bob', description => 'bob pays the boat', amount => 70, date => '2024-08-06');
$res = bulk('bob', { action => 'assign_trip', ids => [$bob_row->{id}], trip_id => 0 + $bali });
is_deeply([$res->{status}, $res->{json}], [200, { updated => 1 }],
          'bob, a participant, assigns his own row to the trip');
$res = $rig->get("/api/transactions?trip_id=$bali", user => 'alice');
is_deeply(ids_of($res), $trip_rows, "alice with trip_id alone does not see bob's row");
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'alice');
is_deeply([ids_of($res), $res->{json}{total}], [sorted(@$trip_rows, $bob_row->{id}), 4],
          'with trip_all_rows=1 she does');
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1&limit=2", user => 'erin');
is_deeply([scalar @{ $res->{json}{items} }, $res->{json}{total}], [2, 4], 'trip rows page like any list');
my @paged = map { $_->{id} } @{ $res->{json}{items} };
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1&limit=2&cursor=$res->{json}{next_cursor}",
                 user => 'erin');
push @paged, map { $_->{id} } @{ $res->{json}{items} };
is_deeply([sorted(@paged), $res->{json}{next_cursor}], [sorted(@$trip_rows, $bob_row->{id}), undef],
          'and the cursor reaches every trip row');
error_is(bulk('carol', { action => 'assign_trip', ids => [$c1->{id}], trip_id => 0 + $bali }),
         403, 'forbidden', 'carol cannot put her row on a trip she is not part of', 'trip_id');
is(txn($c1->{id}, 'carol')->{trip_id}, undef, "carol's row stays off the trip");

error_is($rig->get('/api/transactions?trip_all_rows=1', user => 'bob'), 400, 'invalid_field',
         'trip_all_rows without trip_id', 'trip_all_rows');
error_is($rig->get("/api/transactions?trip_id=$bali&trip_all_rows=yes", user => 'bob'), 400,
         'invalid_field', 'trip_all_rows of another value', 'trip_all_rows');
error_is($rig->get('/api/transactions?trip_id=abc', user => 'bob'), 400, 'invalid_field',
         'a trip_id that is not an id', 'trip_id');
$res = $rig->get('/api/transactions?trip_id=999999&trip_all_rows=1', user => 'alice');
is_deeply([$res->{status}, $res->{json}{items}, $res->{json}{total}], [200, [], 0],
          'a trip that does not exist: an empty list');

# Unassigning takes a row out of everyone's trip view.
bulk('alice', { action => 'assign_trip', ids => [$b2->{id}], trip_id => undef });
$res = $rig->get("/api/transactions?trip_id=$bali&trip_all_rows=1", user => 'bob');
is_deeply(ids_of($res), sorted($b1->{id}, $b3->{id}, $bob_row->{id}), 'an unassigned row leaves the trip');

# ---- bulk untag removes only the named tag -------------------------------------
{
    my $r1 = mk('alice', description => 'Two tags one', merchant => 'Shop');
    my $r2 = mk('alice', description => 'Two tags two', merchant => 'Shop');
    my $home = mktag('alice', 'Home');
    for my $t ($work, $home) {
        my $r = bulk('alice', { action => 'tag', ids => [$r1->{id}, $r2->{id}], tag_id => $t });
        die "bulk tag: $r->{status} $r->{content}\n" unless $r->{status} == 200;
    }
    my $names = sub { [sort @{ tag_names(txn($_[0])) }] };
    is_deeply($names->($r1->{id}), ['Home', 'Work'], 'the row carries both tags');
    $res = bulk('alice', { action => 'untag', ids => [$r1->{id}], tag_id => $work });
    is_deeply([ $res->{status}, $res->{json} ], [ 200, { updated => 1 } ], 'bulk untag Work from one row');
    is_deeply($names->($r1->{id}), ['Home'], 'bulk untag removes only the named tag: Home stays');
    is_deeply($names->($r2->{id}), ['Home', 'Work'], 'and a row not named keeps both');

    # Every field a bulk body carries is checked, whichever the action
    # uses: a wrong type or value is a 400 naming the field.
    my $before = $names->($r2->{id});
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
    is_deeply($names->($r2->{id}), $before, 'and nothing changed');
}

# ---- bulk categorize refund: the effective merchant's history ---------------------
# "refund" follows the row's effective (normalised) merchant, as PATCH and
# rules do (rule C: the merchant's most used category).
{
    mk('erin', description => 'Kmart toys', merchant => 'Kmart', category => 'shopping', amount => 40);
    mk('erin', description => 'Kmart more', merchant => 'Kmart', category => 'shopping', amount => 20);
    my $rf = mk('erin', description => 'KMART 1234 refund', merchant => 'KMART 1234 SYDNEY',
                transaction_type => 'refund', amount => 5);
    $res = bulk('erin', { action => 'normalize', ids => [$rf->{id}], merchant_normalized => 'Kmart' });
    die "normalize: $res->{status} $res->{content}\n" unless $res->{status} == 200;
    is(txn($rf->{id}, 'erin')->{merchant_normalized}, 'Kmart', 'its effective merchant is Kmart');
    $res = bulk('erin', { action => 'categorize', ids => [$rf->{id}], category => 'refund' });
    is($res->{status}, 200, 'bulk categorize refund');
    is(txn($rf->{id}, 'erin')->{category}, 'shopping',
       "a refund takes its effective merchant's usual category (Kmart: shopping), not the raw text's");
    $res = $rig->patch("/api/transactions/$rf->{id}", { category => 'refund' }, user => 'erin');
    is_deeply([ $res->{status}, $res->{json}{category} ], [ 200, 'shopping' ], 'as PATCH gives it');
}

# ---- removing a tag from a row one cannot see --------------------------------------
{
    my $row = manual_id($rig, alice => date => '2026-08-02', amount => 7, description => 'Tagged');
    my $tag = ok_json($rig->post('/api/tags', { name => 'mine' }, user => 'alice'), 'tag')->{id};
    is($rig->post("/api/transactions/$row/tags", { tag_id => $tag }, user => 'alice')->{status} < 300, 1, 'alice tags her row');
    my $own = ok_json($rig->post('/api/tags', { name => 'erins' }, user => 'erin'), 'erin\'s tag')->{id};
    is($rig->del("/api/transactions/$row/tags/$own", user => 'erin')->{status}, 403,
       'erin removing her own tag from alice\'s row: 403');
    is($rig->del("/api/transactions/$row/tags/$tag", user => 'erin')->{status}, 403,
       'erin removing alice\'s tag from it: 403');
    is_deeply([map { $_->{id} } @{ $rig->get("/api/transactions/$row", user => 'alice')->{json}{tags} }], [$tag],
              'and the tag is still on the row');
}

done_testing();
