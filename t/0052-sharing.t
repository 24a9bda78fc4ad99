#!/usr/bin/perl
# Sharing through nginx: participants (added by email, placeholders bound at
# first sign-in), the split routes and settle, apportioned split amounts,
# payments with one scope or several (their limits and orders), and balances
# (Business rules A and B, Behaviour rule 8, Authentication 3-4), found by
# id whatever the order of ids and names.
#
# Who is who: alice, bob and dave are a household (each adds the other two);
# erin is added by alice before erin ever signs in (a placeholder, then bound),
# and shares only with dave (a split) and bob (a payment); carol is the
# stranger, related to nobody until the apportioned cents of the last
# sections; zoe and yann are placeholders that never sign in.
#
# Order: participants, then the split routes, settle, split amounts and
# payments on rows and payments that are deleted again afterwards, so that
# the balance section starts from nothing between the household and can
# state every figure worked out by hand.  The payments' limits and orders
# come last: their payments would move those balances.
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is participant_ok m2);

my $rig = Rig->new;

# ---- helpers ----------------------------------------------------------------

# Money and percentages come back as JSON numbers with two decimals; compare
# them as two-decimal text so 75 and 75.00 read the same in a failure.
sub cents { int(sprintf('%.0f', $_[0] * 100)) }

# Runs SQL on the service's database (for what the API has no route for yet:
# trips, and a reconciled row).  Returns the output, trimmed.
sub sql { $rig->sql(@_) }

my (%uid, %name_of);
sub who { my $id = shift; $name_of{$id} // "id$id" }
for my $u (qw(alice bob carol dave)) {    # NOT erin: see the placeholder tests
    $uid{$u} = $rig->get('/api/me', user => $u)->{json}{id};
    $name_of{ $uid{$u} } = $u;
}
ok(!grep({ !$_ } values %uid), 'alice, bob, carol and dave have ids');

# Creates a manual row; every body gets a date and a description.
sub create {
    my ($user, %f) = @_;
    my $body = { date => '2026-03-10', description => 'something', %f };
    my $res = $rig->post('/api/transactions', $body, user => $user);
    is($res->{status}, 201, "$user creates '$body->{description}'") or diag($res->{content});
    return $res->{json} // {};
}

sub get_row { my ($user, $id) = @_; $rig->get("/api/transactions/$id", user => $user)->{json} }

# Every row of the caller, transfers included.
sub count_rows {
    my ($user) = @_;
    return $rig->get('/api/transactions?exclude_categories=&limit=1', user => $user)->{json}{total};
}

# The participants of $user by name, sorted.
sub plist {
    my ($user) = @_;
    my $res = $rig->get('/api/participants', user => $user);
    return [sort map { who($_->{id}) } @{ $res->{json}{items} // [] }];
}

# A split list read as [name, share, amount, settled], sorted by name, so a
# failure reads "bob 25.00 10.00 1".
sub view {
    my ($items) = @_;
    return [sort { $a->[0] cmp $b->[0] }
            map { [who($_->{participant_id}), m2($_->{share_percent}), m2($_->{amount}),
                   $_->{settled} ? 1 : 0] } @{ $items // [] }];
}
sub splits_doc { my ($user, $id) = @_; $rig->get("/api/transactions/$id/splits", user => $user)->{json} }
sub splits_view { my ($user, $id) = @_; view(splits_doc($user, $id)->{items}) }

# POST /splits with a Perl structure, or raw JSON text.
sub post_splits {
    my ($user, $id, $body) = @_;
    return ref $body
        ? $rig->post("/api/transactions/$id/splits", $body, user => $user)
        : $rig->request('POST', "/api/transactions/$id/splits", user => $user, body => $body,
                        type => 'application/json');
}

# A split write that must be refused, leaving the splits (and the row) exactly
# as they were; the owner reads them back.
sub split_refused {
    my ($user, $id, $body, $status, $code, $what, $field, %o) = @_;
    my $owner = $o{owner} // 'alice';
    my $before = get_row($owner, $id);
    my $res = $o{settle}
        ? $rig->post("/api/transactions/$id/splits/settle", $body, user => $user)
        : post_splits($user, $id, $body);
    error_is($res, $status, $code, $what, $field);
    is_deeply(get_row($owner, $id), $before, "$what: the splits are exactly as they were");
    return $res;
}

# The balance of $user with $other as [net, owed_to_me, owed_by_me,
# payments_to_me, payments_from_me], two-decimal text.
my @BAL = qw(net owed_to_me owed_by_me payments_to_me payments_from_me);
sub balance {
    my ($user, $other) = @_;
    my $res = $rig->get("/api/participants/$uid{$other}/balance", user => $user);
    return undef unless $res->{status} == 200;
    return [map { m2($res->{json}{$_}) } @BAL];
}
sub balance_is {
    my ($user, $other, $expect, $what) = @_;
    my $res = $rig->get("/api/participants/$uid{$other}/balance", user => $user);
    is($res->{status}, 200, "$what: 200") or diag($res->{content});
    is_deeply([map { m2($res->{json}{$_}) } @BAL], $expect,
              "$what: net $expect->[0], owed to me $expect->[1], owed by me $expect->[2], "
              . "paid to me $expect->[3], paid by me $expect->[4]");
    is($res->{json}{participant_id}, $uid{$other}, "$what: participant_id");
}

# GET /api/payments, optionally filtered; payment_ids: the row ids, sorted.
sub payments {
    my ($user, $query) = @_;
    return $rig->get('/api/payments' . (defined $query ? "?$query" : ''), user => $user);
}
sub payment_ids {
    my ($user, $query) = @_;
    my $res = payments($user, $query);
    return [sort { $a <=> $b } map { $_->{id} } @{ $res->{json}{items} // [] }];
}

my $res;

# ==== participants ===========================================================

# erin has never made a request: alice adds her by email first, which makes a
# placeholder user; erin's first sign-in with that email claim binds it.
# Alice types the email in other case: it is the same address, and erin's
# profile takes the spelling of her own claim.
$res = $rig->post('/api/participants', { email => 'Erin@Example.ORG', name => 'Erin from book club' },
                  user => 'alice');
is($res->{status}, 201, 'adding an unknown email is a 201');
my $erin_ph = $res->{json} // {};
ok($erin_ph->{id} && !grep({ $_ == $erin_ph->{id} } values %uid), 'a new user id');
is_deeply($erin_ph, { id => $erin_ph->{id}, email => 'Erin@Example.ORG', name => 'Erin from book club' },
          'the placeholder: the id, the email as typed, the name given, nothing else');

# A placeholder made shareable at once: alice splits a row with erin before
# erin has signed in (this row stays, and counts in the balances below).
my $erin_row = create('alice', description => 'Dinner with erin', amount => 30,
                      splits => [{ participant_id => $erin_ph->{id}, share_percent => 50 }]);

$res = $rig->get('/api/me', user => 'erin');
is($res->{status}, 200, "erin's first request");
is($res->{json}{id}, $erin_ph->{id}, "erin's first sign-in binds the placeholder alice made: the same id");
is($res->{json}{email}, 'erin@example.org', "with the email as erin's claim spells it");
is($res->{json}{name}, undef, "and her own name claim (none here), not the name alice typed for her");
$uid{erin} = $erin_ph->{id};
$name_of{ $uid{erin} } = 'erin';
is($rig->get('/api/me', user => 'erin')->{json}{id}, $uid{erin}, 'and stays bound');
$res = $rig->get("/api/transactions/$erin_row->{id}", user => 'erin');
is($res->{status}, 200, 'the row shared with the placeholder is now shared with erin');
is_deeply([m2($res->{json}{my_share_pct}), m2($res->{json}{my_amount})], ['50.00', '15.00'],
          "erin's half of it");

# An existing user: the same answer as for a placeholder (t/0094 compares
# the two), the caller's name for them being the caller's label only.
$res = $rig->post('/api/participants', { email => 'bob@example.org', name => 'Bobby' }, user => 'alice');
is($res->{status}, 201, 'adding an existing user is a 201 too');
is_deeply($res->{json}, { id => $uid{bob}, email => 'bob@example.org', name => 'Bobby' },
          'the existing user bob, under the name alice gave');
is($rig->get('/api/me', user => 'bob')->{json}{name}, undef, "alice's name for bob does not rename bob");
$res = $rig->post('/api/participants', { email => 'dave@example.org' }, user => 'alice');
is_deeply([$res->{status}, $res->{json}{id}], [201, $uid{dave}], 'alice adds dave: 201, dave');

# A placeholder that never signs in; the same email again is the same user.
$res = $rig->post('/api/participants', { email => 'zoe@example.org', name => 'Zoe' }, user => 'alice');
is($res->{status}, 201, 'alice adds zoe@example.org: 201');
my $zoe = $res->{json} // {};
is_deeply([@$zoe{qw(email name)}], ['zoe@example.org', 'Zoe'], 'a placeholder named as given');
$uid{zoe} = $zoe->{id};
$name_of{ $uid{zoe} } = 'zoe';
my $alice_count = scalar @{ plist('alice') };
$res = $rig->post('/api/participants', { email => 'zoe@example.org' }, user => 'alice');
is_deeply([$res->{status}, $res->{json}{id}, $res->{json}{name}], [201, $uid{zoe}, 'Zoe'],
          'the same email again: the same placeholder, still under the name alice gave');
# Email addresses compare without regard to case.
$res = $rig->post('/api/participants', { email => 'ZOE@Example.ORG' }, user => 'alice');
is_deeply([$res->{status}, $res->{json}{id}], [201, $uid{zoe}], 'the same email in other case: the same user');
is(scalar @{ plist('alice') }, $alice_count, 'and no duplicate in the list');

# The household: everyone adds everyone (both ways, so nothing below leans on
# an add working in the other direction).
for my $u (qw(bob dave)) {
    for my $o (grep { $_ ne $u } qw(alice bob dave)) {
        $res = $rig->post('/api/participants', { email => "$o\@example.org" }, user => $u);
        is_deeply([$res->{status}, $res->{json}{id}], [201, $uid{$o}], "$u adds $o: 201");
    }
}

$res = $rig->get('/api/participants', user => 'alice');
is($res->{status}, 200, 'GET /api/participants');
is_deeply(plist('alice'), [qw(bob dave erin zoe)], "alice's participants: the people she added");
is($res->{json}{total}, 4, 'total 4');
my %p = map { who($_->{id}) => $_ } @{ $res->{json}{items} };
ok(!grep({ exists $_->{placeholder} } values %p), 'no row says whether its person has signed in');
# bob and dave added alice back: their own addresses, and their own names
# (the rig's users have none, so alice's label for bob, and none for dave).
# erin and zoe have not turned to alice: the address as she typed it and
# the name she gave them, whether erin has signed in or not (so the list
# tells no account from a placeholder).
is_deeply([map { [$p{$_}{email}, $p{$_}{name}] } qw(bob dave erin zoe)],
          [['bob@example.org', 'Bobby'], ['dave@example.org', undef],
           ['Erin@Example.ORG', 'Erin from book club'], ['ZOE@Example.ORG', 'Zoe']],
          "rows carry, until the person turns to alice, the address she typed and her own label");
is_deeply(plist('carol'), [], 'carol, the stranger, has no participants');
is_deeply(plist('bob'), [qw(alice dave)], "bob's participants");

# Reading of API.md §2: an add links both people, so erin, who added nobody,
# lists alice, who added her (and can share back with her).
is_deeply(plist('erin'), [qw(alice)], 'erin lists alice, who added her');

# Split and payment counterparts are participants in both directions, without
# any add: erin adds dave and bob, splits a row with dave and pays bob (a
# payment needs bob's step too: he adds her), and then the adds are removed
# from the database (the API has no route to undo one), leaving only the
# split and the payment to relate them.
participant_ok($rig, 'erin', $_) for qw(dave bob);
participant_ok($rig, 'bob', 'erin');
my $erin_dave = create('erin', description => 'Erin and dave, lunch', amount => 24,
                       splits => [{ participant_id => $uid{dave}, share_percent => 50 }]);
$res = $rig->post('/api/payments', { from_participant_id => $uid{erin}, to_participant_id => $uid{bob},
                                     date => '2026-03-01', amount => 7 }, user => 'erin');
is($res->{status}, 201, 'erin pays bob') or diag($res->{content});
sql("DELETE FROM user_contacts WHERE user_id = $uid{erin}");
sql("DELETE FROM user_contacts WHERE user_id = $uid{bob} AND contact_id = $uid{erin}");
is(sql("SELECT COUNT(*) FROM user_contacts WHERE user_id = $uid{erin}"), 0, "(erin's adds are gone)");
is_deeply(plist('erin'), [qw(alice bob dave)], 'erin lists dave (split on her row) and bob (she paid him)');
is_deeply(plist('dave'), [qw(alice bob erin)], 'dave lists erin, whose row he has a split on');
is_deeply(plist('bob'), [qw(alice dave erin)], 'bob lists erin, who paid him');
# A split counterpart can be named again without an add.
$res = $rig->post("/api/transactions/$erin_dave->{id}/splits",
                  [{ participant_id => $uid{dave}, share_percent => 25 }], user => 'erin');
is($res->{status}, 200, 'erin re-splits with dave, a split counterpart') or diag($res->{content});

# Invalid emails: 400 naming email, nothing added.
for my $bad (['no-at-sign.example.org', 'no @'], ['has space@example.org', 'a space'],
             ['a@b@example.org', 'two @'], ['@example.org', 'nothing before @'],
             ['someone@', 'nothing after @'], ['', 'empty'], ['a@b.', 'a domain ending in a dot'],
             ['a@.example.org', 'a domain starting with a dot'], ['a@example..org', 'an empty label'],
             ['a@localhost', 'a one-label domain'], ['.a@example.org', 'a local part starting with a dot'],
             ['a.@example.org', 'a local part ending with a dot'], ['a..b@example.org', 'two dots together']) {
    error_is($rig->post('/api/participants', { email => $bad->[0] }, user => 'alice'),
             400, 'invalid_field', "email with $bad->[1]", 'email');
}
error_is($rig->post('/api/participants', { name => 'Nobody' }, user => 'alice'),
         400, 'invalid_field', 'no email', 'email');
error_is($rig->post('/api/participants', { email => 42 }, user => 'alice'),
         400, 'invalid_field', 'email a number', 'email');
error_is($rig->post('/api/participants', { email => 'alice@example.org' }, user => 'alice'),
         400, 'invalid_field', 'your own email', 'email');
error_is($rig->post('/api/participants', { email => 'Alice@EXAMPLE.org' }, user => 'alice'),
         400, 'invalid_field', 'your own email in other case', 'email');
error_is($rig->request('POST', '/api/participants', user => 'alice', body => '["x@example.org"]',
                       type => 'application/json'),
         400, 'invalid_json', 'a body that is not an object');
is_deeply(plist('alice'), [qw(bob dave erin zoe)], 'none of those added anyone');
is(sql("SELECT COUNT(*) FROM users"), 6, 'nor made a user (five signed in, zoe)');

# Missing identity.
error_is($rig->get('/api/participants', open => 1), 401, 'unauthenticated', 'GET participants without identity');
error_is($rig->post('/api/participants', { email => 'x@example.org' }, open => 1),
         401, 'unauthenticated', 'POST participants without identity');
error_is($rig->get('/api/balances', open => 1), 401, 'unauthenticated', 'balances without identity');
error_is($rig->get("/api/participants/$uid{bob}/balance", open => 1), 401, 'unauthenticated',
         'a balance without identity');
error_is($rig->get('/api/payments', open => 1), 401, 'unauthenticated', 'payments without identity');
error_is($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob},
                                       date => '2026-03-01', amount => 1 }, open => 1),
         401, 'unauthenticated', 'a payment without identity');
is(sql("SELECT COUNT(*) FROM users"), 6, 'and no user was made for a missing identity');

# ==== splits name only the owner's participants ==============================

{
    my $before = count_rows('alice');
    error_is($rig->post('/api/transactions', { date => '2026-03-10', amount => 10, description => 'x',
                                               splits => [{ participant_id => $uid{carol}, share_percent => 25 }] },
                        user => 'alice'),
             400, 'invalid_field', 'a new row split with carol, who is not alice\'s participant',
             'participant_id');
    error_is($rig->post('/api/transactions', { date => '2026-03-10', amount => 10, description => 'x',
                                               splits => [{ participant_id => $uid{bob}, share_percent => 25 },
                                                          { participant_id => $uid{carol}, share_percent => 25 }] },
                        user => 'alice'),
             400, 'invalid_field', 'a new row split with bob and carol', 'participant_id');
    is(count_rows('alice'), $before, 'no row was written');
    is(count_rows('carol'), 0, 'and carol sees nothing');
}

# ==== split routes ===========================================================

my @cleanup;   # alice's rows of the next sections, deleted before the balances
my $r1 = create('alice', description => 'Split route row', amount => 60);
push @cleanup, $r1->{id};

$res = $rig->get("/api/transactions/$r1->{id}/splits", user => 'alice');
is($res->{status}, 200, 'GET splits of an unsplit row');
is_deeply([$res->{json}{items}, $res->{json}{total}], [[], 0], 'no items, total 0');

$res = post_splits('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 50 }]);
is($res->{status}, 200, 'POST splits with an array') or diag($res->{content});
is_deeply(view($res->{json}{items}), [['alice', '50.00', '30.00', 0], ['bob', '50.00', '30.00', 0]],
          'bob 50% of 60.00; the owner holds the other 50%');
is($res->{json}{total}, 2, 'total 2');
is_deeply(splits_view('alice', $r1->{id}), view($res->{json}{items}), 'GET answers the same');
$res = $rig->get("/api/transactions/$r1->{id}/splits", user => 'bob');
is($res->{status}, 200, 'the participant may GET the splits');
is_deeply(view($res->{json}{items}), splits_view('alice', $r1->{id}), 'and sees the same rows');
$res = get_row('alice', $r1->{id});
is_deeply([m2($res->{my_share_pct}), m2($res->{my_amount})], ['50.00', '30.00'], "alice's share on the row");

# A participant sets the shares: the remainder is the OWNER's, not bob's.
$res = post_splits('bob', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 25 },
                                      { participant_id => $uid{dave}, share_percent => 25 }]);
is($res->{status}, 200, 'the participant bob POSTs splits') or diag($res->{content});
is_deeply(view($res->{json}{items}),
          [['alice', '50.00', '30.00', 0], ['bob', '25.00', '15.00', 0], ['dave', '25.00', '15.00', 0]],
          "bob 25 + dave 25: the remaining 50% is alice's (the owner's), not bob's");

# Refusals: each a 400 and nothing changed.
my $bob_adds_yann = $rig->post('/api/participants', { email => 'yann@example.org' }, user => 'bob');
is($bob_adds_yann->{status}, 201, 'bob adds a placeholder yann');
$uid{yann} = $bob_adds_yann->{json}{id};
$name_of{ $uid{yann} } = 'yann';
$res = $rig->post('/api/participants', { email => 'yann@example.org' }, user => 'dave');
is_deeply([$res->{status}, $res->{json}{id}, $res->{json}{name}], [201, $uid{yann}, undef],
          "dave adds bob's placeholder yann: the same placeholder, not a second one");
split_refused('alice', $r1->{id}, { participant_id => $uid{bob}, share_percent => 25 }, 400, 'invalid_json',
              'a body that is an object, not an array');
split_refused('alice', $r1->{id}, '"bob"', 400, 'invalid_json', 'a body that is a string');
split_refused('alice', $r1->{id}, '[{"participant_id": ', 400, 'invalid_json', 'malformed JSON');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 60 },
                                   { participant_id => $uid{dave}, share_percent => 50 }],
              400, 'invalid_field', 'shares totalling 110');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 100.01 }],
              400, 'invalid_field', 'one share of 100.01');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{alice}, share_percent => 50 },
                                   { participant_id => $uid{bob}, share_percent => 25 }],
              400, 'invalid_field', 'the owner named with a total of 75');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{alice}, share_percent => 60 },
                                   { participant_id => $uid{bob}, share_percent => 50 }],
              400, 'invalid_field', 'the owner named with a total of 110');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 0 }],
              400, 'invalid_field', 'a share of 0');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => -10 }],
              400, 'invalid_field', 'a negative share');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 20 },
                                   { participant_id => $uid{bob}, share_percent => 30 }],
              400, 'invalid_field', 'a repeated participant');
split_refused('alice', $r1->{id}, [{ participant_id => 999999, share_percent => 25 }],
              400, 'invalid_field', 'an unknown participant 999999', 'participant_id');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{carol}, share_percent => 25 }],
              400, 'invalid_field', 'carol, who exists but is not alice\'s participant', 'participant_id');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 10 },
                                   { participant_id => $uid{carol}, share_percent => 25 }],
              400, 'invalid_field', 'bob then carol: the valid entry is not written either', 'participant_id');
$res = split_refused('bob', $r1->{id}, [{ participant_id => $uid{yann}, share_percent => 10 }],
                     400, 'invalid_field', "bob names yann, his participant but not the owner alice's",
                     'participant_id');
like($res->{json}{error}{message} // '', qr/participants of the row's owner/,
     "and hears that yann is not the owner's participant (he is bob's own)");
like(split_refused('alice', $r1->{id}, [{ participant_id => $uid{yann}, share_percent => 10 }],
                   400, 'invalid_field', 'alice names yann', 'participant_id')->{json}{error}{message} // '',
     qr/not one of your participants: add them/, 'the owner hears to add yann herself');
split_refused('alice', $r1->{id}, [], 400, 'invalid_field', 'an empty array (DELETE is the way to un-share)');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 33.333 }],
              400, 'invalid_field', 'a share with 3 decimals');
split_refused('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => '25' }],
              400, 'invalid_field', 'a share given as a string');
split_refused('alice', $r1->{id}, [{ participant_id => "$uid{bob}", share_percent => 25 }],
              400, 'invalid_field', 'a participant_id given as a string');
split_refused('alice', $r1->{id}, [$uid{bob}], 400, 'invalid_field', 'an entry that is not an object');

# A POST that keeps a participant keeps their settled flag; one dropped from
# the set is removed.
$res = $rig->post("/api/transactions/$r1->{id}/splits/settle", { settled => JSON::PP::true }, user => 'bob');
is($res->{status}, 200, 'bob settles his row') or diag($res->{content});
is_deeply(splits_view('alice', $r1->{id}),
          [['alice', '50.00', '30.00', 0], ['bob', '25.00', '15.00', 1], ['dave', '25.00', '15.00', 0]],
          "only bob's row is settled");
$res = post_splits('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 40 }]);
is($res->{status}, 200, 'alice POSTs new shares, still naming bob, not dave');
is_deeply(view($res->{json}{items}), [['alice', '60.00', '36.00', 0], ['bob', '40.00', '24.00', 1]],
          'bob keeps his settled flag at his new share; dave is removed');
error_is($rig->get("/api/transactions/$r1->{id}/splits", user => 'dave'), 403, 'forbidden',
         'dave, dropped, may no longer read the splits');

# DELETE clears every split: the row is alice's alone again.
$res = $rig->del("/api/transactions/$r1->{id}/splits", user => 'alice');
is($res->{status}, 204, 'DELETE splits: 204');
is($res->{content} // '', '', 'with no body');
is_deeply([splits_doc('alice', $r1->{id})->{items}, splits_doc('alice', $r1->{id})->{total}], [[], 0],
          'no splits left');
$res = get_row('alice', $r1->{id});
is_deeply([m2($res->{my_share_pct}), m2($res->{my_amount}), $res->{splits}], ['100.00', '60.00', []],
          "the owner's my_share_pct is back to 100 and my_amount to the amount");
error_is($rig->get("/api/transactions/$r1->{id}", user => 'bob'), 403, 'forbidden',
         'bob no longer has access to the row');
is($rig->del("/api/transactions/$r1->{id}/splits", user => 'alice')->{status}, 204,
   'DELETE on an unsplit row is a 204 too');

# A stranger: 403 on every split route, nothing changed.
post_splits('alice', $r1->{id}, [{ participant_id => $uid{bob}, share_percent => 50 }]);
{
    my $before = get_row('alice', $r1->{id});
    error_is($rig->get("/api/transactions/$r1->{id}/splits", user => 'carol'), 403, 'forbidden',
             'carol cannot GET the splits');
    error_is(post_splits('carol', $r1->{id}, [{ participant_id => $uid{carol}, share_percent => 50 }]),
             403, 'forbidden', 'carol cannot POST splits naming herself');
    error_is(post_splits('carol', $r1->{id}, { participant_id => $uid{carol} }), 403, 'forbidden',
             'carol with a bad body: still 403');
    error_is($rig->del("/api/transactions/$r1->{id}/splits", user => 'carol'), 403, 'forbidden',
             'carol cannot DELETE the splits');
    error_is($rig->post("/api/transactions/$r1->{id}/splits/settle", { settled => JSON::PP::true },
                        user => 'carol'), 403, 'forbidden', 'carol cannot settle');
    is_deeply(get_row('alice', $r1->{id}), $before, 'and the row and its splits are as they were');
    is_deeply(splits_view('alice', $r1->{id}), [['alice', '50.00', '30.00', 0], ['bob', '50.00', '30.00', 0]],
              'alice 50, bob 50, neither settled');
}

# A missing transaction.
error_is($rig->get('/api/transactions/999999/splits', user => 'alice'), 404, 'not_found', 'GET splits of a missing row');
error_is(post_splits('alice', 999999, [{ participant_id => $uid{bob}, share_percent => 50 }]),
         404, 'not_found', 'POST splits on a missing row');
error_is($rig->del('/api/transactions/999999/splits', user => 'alice'), 404, 'not_found',
         'DELETE splits of a missing row');
error_is($rig->post('/api/transactions/999999/splits/settle', { settled => JSON::PP::true }, user => 'alice'),
         404, 'not_found', 'settle a missing row');

# ==== settle ================================================================

my $r2 = create('alice', description => 'Settle row', amount => 90,
                splits => [{ participant_id => $uid{bob}, share_percent => 30 },
                           { participant_id => $uid{dave}, share_percent => 20 }]);
push @cleanup, $r2->{id};
my @bal_before = (balance('alice', 'bob'), balance('bob', 'alice'), balance('alice', 'dave'));
ok($bal_before[0] && $bal_before[0][0] ne '0.00', 'alice and bob have a balance to watch');

$res = $rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::true }, user => 'alice');
is($res->{status}, 200, "the owner's settle") or diag($res->{content});
is_deeply(view($res->{json}{items}),
          [['alice', '50.00', '45.00', 0], ['bob', '30.00', '27.00', 1], ['dave', '20.00', '18.00', 1]],
          "the owner's settle marks every participant row, not the owner's own");
is_deeply(splits_view('alice', $r2->{id}), view($res->{json}{items}), 'as GET reads it');
is_deeply([balance('alice', 'bob'), balance('bob', 'alice'), balance('alice', 'dave')], \@bal_before,
          'settling changed no balance');
$res = $rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::false }, user => 'alice');
is_deeply(view($res->{json}{items}),
          [['alice', '50.00', '45.00', 0], ['bob', '30.00', '27.00', 0], ['dave', '20.00', '18.00', 0]],
          "the owner's {settled: false} unmarks them all");

$res = $rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::true }, user => 'bob');
is($res->{status}, 200, "a participant's settle");
is_deeply(splits_view('alice', $r2->{id}),
          [['alice', '50.00', '45.00', 0], ['bob', '30.00', '27.00', 1], ['dave', '20.00', '18.00', 0]],
          "bob's settle marks only bob's row");
$rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::true }, user => 'dave');
$res = $rig->post("/api/transactions/$r2->{id}/splits/settle", { settled => JSON::PP::false }, user => 'dave');
is_deeply(view($res->{json}{items}),
          [['alice', '50.00', '45.00', 0], ['bob', '30.00', '27.00', 1], ['dave', '20.00', '18.00', 0]],
          "dave settles and unsettles his own row; bob's stays settled");
is_deeply([balance('alice', 'bob'), balance('bob', 'alice'), balance('alice', 'dave')], \@bal_before,
          'and still no balance moved');

split_refused('alice', $r2->{id}, { settled => 'yes' }, 400, 'invalid_field', '{settled: "yes"}', 'settled',
              settle => 1);
split_refused('alice', $r2->{id}, { settled => 1 }, 400, 'invalid_field', '{settled: 1}', 'settled', settle => 1);
split_refused('bob', $r2->{id}, {}, 400, 'invalid_field', 'no settled at all', 'settled', settle => 1);
split_refused('alice', $r2->{id}, [JSON::PP::true], 400, 'invalid_json', 'a body that is an array',
              undef, settle => 1);
{
    my $plain = create('alice', description => 'Never split', amount => 8);
    push @cleanup, $plain->{id};
    error_is($rig->post("/api/transactions/$plain->{id}/splits/settle", { settled => JSON::PP::true },
                        user => 'alice'), 409, 'conflict', 'settle on an unsplit row');
    is_deeply(get_row('alice', $plain->{id})->{splits}, [], 'and it is still unsplit');
}

# ==== split amounts (largest remainder) =====================================

my $r4 = create('alice', description => 'Hundred in three', amount => 100);
push @cleanup, $r4->{id};
$res = post_splits('alice', $r4->{id}, [{ participant_id => $uid{bob}, share_percent => 33.33 },
                                        { participant_id => $uid{dave}, share_percent => 33.33 }]);
is_deeply(view($res->{json}{items}),
          [['alice', '33.34', '33.34', 0], ['bob', '33.33', '33.33', 0], ['dave', '33.33', '33.33', 0]],
          '100.00 split 33.33/33.33: the owner 33.34% and 33.34');
my $sum = 0;
$sum += cents($_->{amount}) for @{ $res->{json}{items} };
is($sum, 10000, 'the amounts sum exactly to 100.00');

my $r5 = create('alice', description => 'Five cents', amount => 0.05);
push @cleanup, $r5->{id};
$res = post_splits('alice', $r5->{id}, [{ participant_id => $uid{bob}, share_percent => 50 }]);
is_deeply(view($res->{json}{items}), [['alice', '50.00', '0.03', 0], ['bob', '50.00', '0.02', 0]],
          '0.05 split 50/50: 2.5 cents each, the tied cent to the owner');
$sum = 0;
$sum += cents($_->{amount}) for @{ $res->{json}{items} };
is($sum, 5, 'the cents sum to 0.05');
is_deeply([m2(get_row('alice', $r5->{id})->{my_amount}), m2(get_row('bob', $r5->{id})->{my_amount})],
          ['0.03', '0.02'], 'and each my_amount is the apportioned cents');

# ==== payments ===============================================================

# Trips have no route yet: T is alice's (owned, so she takes part), C is
# carol's (alice does not).
my $trip = sql("INSERT INTO trips (owner_id, name) VALUES ($uid{alice}, 'Hobart'); SELECT last_insert_rowid();");
my $ctrip = sql("INSERT INTO trips (owner_id, name) VALUES ($uid{carol}, 'Carol alone'); SELECT last_insert_rowid();");
ok($trip =~ /^\d+$/ && $ctrip =~ /^\d+$/ && $trip != $ctrip, "trips $trip (alice's) and $ctrip (carol's)");

my %pay;   # name => create response
sub pay {
    my ($user, $body, $what) = @_;
    my $r = $rig->post('/api/payments', { date => '2026-03-05', %$body }, user => $user);
    is($r->{status}, 201, "$what: 201") or diag($r->{content});
    return $r->{json} // {};
}

# One scope, the household.
$pay{pa} = pay('alice', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, amount => 25,
                          notes => 'cash for lunch' }, 'alice records paying bob 25.00');
is_deeply([@{ $pay{pa} }{qw(from_participant_id to_participant_id date notes)}, m2($pay{pa}{amount})],
          [$uid{alice}, $uid{bob}, '2026-03-05', 'cash for lunch', '25.00'], 'the payment as given');
is(scalar @{ $pay{pa}{scopes} // [] }, 1, 'one scope');
is_deeply([@{ $pay{pa}{scopes}[0] // {} }{qw(trip_id scope)}, m2($pay{pa}{scopes}[0]{amount})],
          [undef, 'household', '25.00'], 'scope household, trip_id null');
ok(defined $pay{pa}{id} && length($pay{pa}{linked_transaction_id} // ''), 'an id and a linked_transaction_id');

# One scope, a trip.
$pay{pb} = pay('alice', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice}, amount => 40,
                          trip_id => $trip + 0 }, "alice records bob paying her 40.00 for trip $trip");
is_deeply([@{ $pay{pb}{scopes}[0] // {} }{qw(trip_id scope)}, m2($pay{pb}{scopes}[0]{amount})],
          [$trip, 'trip', '40.00'], 'scope trip with its trip_id');

# Two scopes: one row each, one linked_transaction_id.
$pay{pm} = pay('alice', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob},
                          scopes => [{ trip_id => undef, amount => 30 }, { trip_id => $trip + 0, amount => 20 }] },
               'alice pays bob 30.00 household + 20.00 trip');
is(m2($pay{pm}{amount}), '50.00', 'the payment totals 50.00');
is_deeply([sort map { join ' ', $_->{scope}, $_->{trip_id} // 'null', m2($_->{amount}) } @{ $pay{pm}{scopes} // [] }],
          ['household null 30.00', "trip $trip 20.00"], 'its two scopes');

$pay{pd} = pay('dave', { from_participant_id => $uid{dave}, to_participant_id => $uid{alice}, amount => 15 },
               'dave records paying alice 15.00');

$res = payments('alice');
is($res->{status}, 200, 'GET /api/payments');
my @rows = @{ $res->{json}{items} // [] };
is($res->{json}{total}, 5, "alice's payments are five rows");
my %row_by = map { $_->{id} => $_ } @rows;
my @pm_rows = grep { ($_->{linked_transaction_id} // '') eq ($pay{pm}{linked_transaction_id} // 'x') } @rows;
is(scalar @pm_rows, 2, 'the two-scope payment is two rows sharing linked_transaction_id');
my ($pm_h) = grep { !defined $_->{trip_id} } @pm_rows;
my ($pm_t) = grep { defined $_->{trip_id} } @pm_rows;
ok($pm_h && $pm_t && $pm_h->{id} != $pm_t->{id}, 'one household row and one trip row, with their own ids');
is_deeply([map { [$_->{scope}, $_->{trip_id}, m2($_->{amount}), $_->{from_participant_id}, $_->{to_participant_id},
                  $_->{date}] } $pm_h, $pm_t],
          [['household', undef, '30.00', $uid{alice}, $uid{bob}, '2026-03-05'],
           ['trip', $trip, '20.00', $uid{alice}, $uid{bob}, '2026-03-05']],
          'each row read back with its scope, amount and parties');
my $pa_row = $row_by{ $pay{pa}{id} } // {};
is_deeply([@$pa_row{qw(scope trip_id notes linked_transaction_id)}, m2($pa_row->{amount})],
          ['household', undef, 'cash for lunch', $pay{pa}{linked_transaction_id}, '25.00'], 'the household payment read back');
my ($pb_row) = grep { ($_->{linked_transaction_id} // '') eq $pay{pb}{linked_transaction_id} } @rows;
is_deeply([@{ $pb_row // {} }{qw(scope trip_id from_participant_id to_participant_id)}],
          ['trip', $trip, $uid{bob}, $uid{alice}], 'the trip payment read back');
my ($pd_row) = grep { ($_->{linked_transaction_id} // '') eq $pay{pd}{linked_transaction_id} } @rows;
my %P = (pa => $pay{pa}{id}, pb => $pb_row->{id}, pmh => $pm_h->{id}, pmt => $pm_t->{id}, pd => $pd_row->{id});
my %pname = reverse %P;
sub pnames { [sort map { $pname{$_} // "payment$_" } @{ $_[0] }] }

# Filters.
is_deeply(pnames(payment_ids('alice', "participant_id=$uid{bob}")), [qw(pa pb pmh pmt)], 'participant_id=bob');
is_deeply(pnames(payment_ids('alice', "participant_id=$uid{dave}")), [qw(pd)], 'participant_id=dave');
is_deeply(pnames(payment_ids('alice', "trip_id=$trip")), [qw(pb pmt)], "trip_id=$trip");
is_deeply(pnames(payment_ids('alice', 'scope=household')), [qw(pa pd pmh)], 'scope=household');
is_deeply(pnames(payment_ids('alice', "scope=household&participant_id=$uid{bob}")), [qw(pa pmh)],
          'scope=household and participant_id=bob');
is(payments('alice', "trip_id=$trip")->{json}{total}, 2, 'total follows the filter');
is_deeply(pnames([grep { $pname{$_} } @{ payment_ids('bob') }]), [qw(pa pb pmh pmt)],
          'bob, the other side, sees the payments alice recorded');
is(payments('bob')->{json}{total}, 5, "bob's total: those four and erin's 7.00");
is_deeply(payment_ids('carol'), [], 'carol sees none');
error_is(payments('alice', 'scope=trips'), 400, 'invalid_field', 'scope=trips', 'scope');
error_is(payments('alice', 'participant_id=bob'), 400, 'invalid_field', 'participant_id=bob', 'participant_id');
# Ids in the query are whole positive integers, as in GET /api/transactions
# (trip_id=1.5 there is a 400): trailing text is not cut off.
error_is(payments('alice', "participant_id=$uid{bob}x"), 400, 'invalid_field', "participant_id=$uid{bob}x",
         'participant_id');
error_is(payments('alice', "trip_id=$trip.5"), 400, 'invalid_field', "trip_id=$trip.5", 'trip_id');
error_is(payments('alice', 'trip_id=0'), 400, 'invalid_field', 'trip_id=0', 'trip_id');

# Refusals: nothing written.
{
    my %ok = (from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, date => '2026-03-06',
              amount => 10);
    my @refusals = (
        [{ %ok, from_participant_id => $uid{bob}, to_participant_id => $uid{carol} }, 403, 'forbidden',
         'alice records bob paying carol', undef],
        [{ %ok, from_participant_id => $uid{bob}, to_participant_id => $uid{dave} }, 403, 'forbidden',
         'alice records bob paying dave (both hers, neither side her)', undef],
        [{ %ok, to_participant_id => $uid{alice} }, 400, 'invalid_field', 'alice paying alice', undef],
        [{ %ok, from_participant_id => $uid{bob}, to_participant_id => $uid{bob} }, 400, 'invalid_field',
         'bob paying bob', undef],
        [{ %ok, to_participant_id => $uid{carol} }, 400, 'invalid_field', 'alice paying carol, not her participant',
         'to_participant_id'],
        [{ %ok, from_participant_id => $uid{carol}, to_participant_id => $uid{alice} }, 400, 'invalid_field',
         'carol paying alice, recorded by alice', 'from_participant_id'],
        [{ %ok, to_participant_id => $uid{yann} }, 400, 'invalid_field', "alice paying yann, bob's placeholder",
         'to_participant_id'],
        [{ %ok, to_participant_id => 999999 }, 400, 'invalid_field', 'a participant that does not exist',
         'to_participant_id'],
        [{ %ok, amount => 0 }, 400, 'invalid_field', 'amount 0', 'amount'],
        [{ %ok, amount => -5 }, 400, 'invalid_field', 'a negative amount', 'amount'],
        [{ %ok, amount => 1.234 }, 400, 'invalid_field', 'an amount with 3 decimals', 'amount'],
        [{ %ok, amount => '10' }, 400, 'invalid_field', 'an amount given as a string', 'amount'],
        [do { my %b = %ok; delete $b{amount}; \%b }, 400, 'invalid_field', 'no amount', 'amount'],
        [do { my %b = %ok; delete $b{date}; \%b }, 400, 'invalid_field', 'no date', 'date'],
        [{ %ok, date => '2026-02-30' }, 400, 'invalid_field', 'date 2026-02-30', 'date'],
        [{ %ok, scopes => [{ trip_id => undef, amount => 10 }] }, 400, 'invalid_field',
         'scopes and amount both', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, trip_id => $trip + 0, scopes => [{ trip_id => undef, amount => 10 }] } },
         400, 'invalid_field', 'scopes and trip_id both', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => [{ trip_id => undef, amount => 10 }, { trip_id => undef, amount => 5 }] } },
         400, 'invalid_field', 'the household scope twice', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => [{ trip_id => $trip + 0, amount => 10 }, { trip_id => undef, amount => 1 },
                                                              { trip_id => $trip + 0, amount => 5 }] } },
         400, 'invalid_field', 'a trip scope twice', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => [] } }, 400, 'invalid_field', 'scopes empty', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => { trip_id => undef, amount => 10 } } },
         400, 'invalid_field', 'scopes not an array', 'scopes'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => [{ trip_id => undef, amount => 10 }, { trip_id => $trip + 0, amount => 0 }] } },
         400, 'invalid_field', 'a scope of 0 after a good one (the field names the scope)', 'scopes[1].amount'],
        [do { my %b = %ok; delete $b{amount}; +{ %b, scopes => [{ trip_id => undef, amount => 10 }, { trip_id => 999999, amount => 1 }] } },
         400, 'invalid_field', 'a scope of a trip that does not exist', 'scopes[1].trip_id'],
        [{ %ok, trip_id => 999999 }, 400, 'invalid_field', 'a trip that does not exist', 'trip_id'],
        [{ %ok, trip_id => $ctrip + 0 }, 403, 'forbidden', "carol's trip, which alice is not part of", 'trip_id'],
    );
    for my $r (@refusals) {
        my ($body, $status, $code, $what, $field) = @$r;
        error_is($rig->post('/api/payments', $body, user => 'alice'), $status, $code, $what, $field);
    }
    is(payments('alice')->{json}{total}, 5, 'none of those wrote a payment for alice');
    is(payments('bob')->{json}{total}, 5, 'nor for bob');
    is(sql('SELECT COUNT(*) FROM split_payments'), 6, 'nor for anyone (five rows here, erin\'s one)');
    error_is($rig->request('POST', '/api/payments', user => 'alice', type => 'application/json',
                           body => '[{"amount": 10}]'), 400, 'invalid_json', 'a payment body that is an array');
}

# Delete: a party only, and every row of the payment.
{
    my @before = @{ payment_ids('alice') };
    error_is($rig->del("/api/payments/$P{pmh}", user => 'carol'), 403, 'forbidden', 'carol cannot delete a payment');
    error_is($rig->del("/api/payments/$P{pd}", user => 'bob'), 403, 'forbidden',
             'bob cannot delete the payment between dave and alice');
    is_deeply(payment_ids('alice'), \@before, 'nothing was deleted');
    error_is($rig->del('/api/payments/999999', user => 'alice'), 404, 'not_found', 'DELETE a missing payment');
}
$res = $rig->del("/api/payments/$P{pmt}", user => 'alice');
is($res->{status}, 204, 'alice deletes the trip row of the two-scope payment: 204');
is_deeply(pnames(payment_ids('alice')), [qw(pa pb pd)], 'both rows of that payment are gone');
ok(!grep({ ($_->{linked_transaction_id} // '') eq $pay{pm}{linked_transaction_id} } @{ payments('bob')->{json}{items} }),
   'bob sees no row of it either');
error_is($rig->del("/api/payments/$P{pmh}", user => 'alice'), 404, 'not_found', 'its other row is gone too');
is($rig->del("/api/payments/$P{pa}", user => 'bob')->{status}, 204,
   'bob, the other side, deletes the payment alice recorded');
is_deeply(pnames(payment_ids('alice')), [qw(pb pd)], 'gone for alice too');
is($rig->del("/api/payments/$P{pb}", user => 'alice')->{status}, 204, 'alice deletes the trip payment');
is($rig->del("/api/payments/$P{pd}", user => 'alice')->{status}, 204, 'alice deletes the payment dave recorded');
is_deeply(payment_ids('alice'), [], 'alice has no payments left');

# ==== access to another's splits and payments ===============================

{
    # carol is party to nothing of alice's: a row split with bob, a payment.
    my $row = create('alice', description => 'Access row', amount => 12,
                     splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    push @cleanup, $row->{id};
    my $p = pay('alice', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice}, amount => 3 },
                'a payment for the access checks');
    my ($splits_before, $pay_before) = (splits_doc('alice', $row->{id}), payments('alice')->{json});
    error_is($rig->get("/api/transactions/$row->{id}/splits", user => 'carol'), 403, 'forbidden',
             "carol cannot read alice's splits");
    error_is(post_splits('carol', $row->{id}, [{ participant_id => $uid{bob}, share_percent => 10 }]),
             403, 'forbidden', "carol cannot write alice's splits");
    error_is($rig->del("/api/transactions/$row->{id}/splits", user => 'carol'), 403, 'forbidden',
             "carol cannot clear alice's splits");
    error_is($rig->post("/api/transactions/$row->{id}/splits/settle", { settled => JSON::PP::true }, user => 'carol'),
             403, 'forbidden', "carol cannot settle alice's splits");
    error_is($rig->del("/api/payments/$p->{id}", user => 'carol'), 403, 'forbidden', "carol cannot delete alice's payment");
    error_is($rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob},
                                           date => '2026-03-06', amount => 1 }, user => 'carol'),
             403, 'forbidden', 'carol cannot record a payment between alice and bob');
    error_is($rig->post('/api/payments', { from_participant_id => $uid{carol}, to_participant_id => $uid{alice},
                                           date => '2026-03-06', amount => 1 }, user => 'carol'),
             400, 'invalid_field', 'carol cannot record paying alice, who is not hers', 'to_participant_id');
    is_deeply(splits_doc('alice', $row->{id}), $splits_before, 'the splits are as they were');
    is_deeply(payments('alice')->{json}, $pay_before, "alice's payments are as they were");
    is_deeply([payment_ids('carol'), plist('carol')], [[], []], 'and carol has no payments and no participants');
    error_is($rig->get("/api/participants/$uid{alice}/balance", user => 'carol'), 404, 'not_found',
             "carol cannot read a balance with alice");
    is($rig->del("/api/payments/$p->{id}", user => 'alice')->{status}, 204, '(the payment is removed)');
}

# ==== balances (Business rule B) =============================================

# Everything above between alice and bob or dave goes: the balances start at
# nothing.
is($rig->del("/api/transactions/$_", user => 'alice')->{status}, 204, "alice deletes row $_") for @cleanup;
balance_is('alice', 'bob', [('0.00') x 5], 'with the rows and payments deleted, alice and bob');
balance_is('alice', 'dave', [('0.00') x 5], 'alice and dave');

# The household's rows.  Amounts are the participant's apportioned share.
#
# alice's rows (owed to alice):
#   A1 groceries      80.00 debit, bob 50%                 bob  40.00
#   A2 dinner        100.00 debit, bob 33.33, dave 33.33   bob  33.33, dave 33.33 (alice 33.34)
#   A3 refund         30.00 refund, bob 50%                bob -15.00 (a refund negates)
#   A4 hotel USD     100.00 (amount_aud 150.00), bob 50%   bob  75.00 (home currency)
#   A5 unshared      500.00                                nothing
#   A6 taxi           20.00 debit, bob 25%, then settled   bob   5.00 (settled still counts)
#   A7 named owner    40.00 debit, alice 60, bob 40        bob  16.00 (alice's own 24.00: no debt)
# bob's rows (owed by alice):
#   B1 power bill     60.00 debit, alice 50%               alice 30.00
#   B2 takeaway       45.00 debit, alice 40%               alice 18.00
#   B3 unshared       70.00                                nothing
#   B4 cashback       10.00 credit, alice 50%              alice -5.00 (a credit negates)
# dave's rows:
#   D1 rent          200.00 debit, alice 50%               alice 100.00
#   D2 unshared       33.00                                nothing
# payments:
#   P1 bob -> alice   50.00 household
#   P2 bob -> alice   20.00 household + 10.00 trip T (one payment, both scopes count: 30.00)
#   P3 alice -> bob   12.50 household (recorded by bob)
#   P4 dave -> alice  10.00 household
#
# alice with bob:
#   owed_to_me   = 40.00 + 33.33 - 15.00 + 75.00 + 5.00 + 16.00 = 154.33
#   owed_by_me   = 30.00 + 18.00 - 5.00                          =  43.00
#   payments_to_me   = 50.00 + 30.00 = 80.00
#   payments_from_me = 12.50
#   net = 154.33 - 43.00 - 80.00 + 12.50 = 43.83 (bob owes alice)
# bob with alice: the mirror, net -43.83.
# alice with dave:
#   owed_to_me 33.33, owed_by_me 100.00, payments_to_me 10.00, from_me 0
#   net = 33.33 - 100.00 - 10.00 = -76.67 (alice owes dave)
# alice with erin: the dinner at the top, 30.00 with erin 50%: owed_to_me
#   15.00, net 15.00.  alice with zoe: nothing, 0.00.
my %H;
$H{A1} = create('alice', description => 'A1 groceries', amount => 80, category => 'groceries',
                splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$H{A2} = create('alice', description => 'A2 dinner', amount => 100, category => 'dining',
                splits => [{ participant_id => $uid{bob}, share_percent => 33.33 },
                           { participant_id => $uid{dave}, share_percent => 33.33 }]);
$H{A3} = create('alice', description => 'A3 groceries refund', amount => 30, category => 'groceries',
                transaction_type => 'refund', splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$H{A4} = create('alice', description => 'A4 hotel', amount => 100, currency => 'USD', amount_aud => 150,
                exchange_rate_to_aud => 1.5, splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
$H{A5} = create('alice', description => 'A5 alice alone', amount => 500);
$H{A6} = create('alice', description => 'A6 taxi', amount => 20,
                splits => [{ participant_id => $uid{bob}, share_percent => 25 }]);
$H{A7} = create('alice', description => 'A7 named owner', amount => 40,
                splits => [{ participant_id => $uid{alice}, share_percent => 60 },
                           { participant_id => $uid{bob}, share_percent => 40 }]);
$H{B1} = create('bob', description => 'B1 power bill', amount => 60, category => 'utilities',
                splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);
$H{B2} = create('bob', description => 'B2 takeaway', amount => 45,
                splits => [{ participant_id => $uid{alice}, share_percent => 40 }]);
$H{B3} = create('bob', description => 'B3 bob alone', amount => 70);
$H{B4} = create('bob', description => 'B4 cashback', amount => 10, transaction_type => 'credit',
                splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);
$H{D1} = create('dave', description => 'D1 rent', amount => 200, category => 'rent',
                splits => [{ participant_id => $uid{alice}, share_percent => 50 }]);
$H{D2} = create('dave', description => 'D2 dave alone', amount => 33);
is_deeply([map { m2(get_row('bob', $H{$_}{id})->{my_amount}) } qw(A1 A2 A3 A4 A6 A7)],
          ['40.00', '33.33', '15.00', '75.00', '5.00', '16.00'], "bob's my_amount on alice's rows, as worked out");
is_deeply([map { m2(get_row('alice', $H{$_}{id})->{my_amount}) } qw(B1 B2 B4 D1)],
          ['30.00', '18.00', '5.00', '100.00'], "alice's my_amount on bob's and dave's rows");

pay('alice', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice}, amount => 50 }, 'P1 bob -> alice 50.00');
my $p2 = pay('alice', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice},
                        scopes => [{ trip_id => undef, amount => 20 }, { trip_id => $trip + 0, amount => 10 }] },
             'P2 bob -> alice 20.00 household + 10.00 trip');
pay('bob', { from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, amount => 12.5 },
    'P3 alice -> bob 12.50, recorded by bob');
pay('alice', { from_participant_id => $uid{dave}, to_participant_id => $uid{alice}, amount => 10 },
    'P4 dave -> alice 10.00');

# A6 is settled by its owner: the balance does not move.
my $unsettled = balance('alice', 'bob');
is($rig->post("/api/transactions/$H{A6}{id}/splits/settle", { settled => JSON::PP::true }, user => 'alice')->{status},
   200, 'alice settles A6');
is_deeply(balance('alice', 'bob'), $unsettled, 'a settled split still counts');

my @ab = ('43.83', '154.33', '43.00', '80.00', '12.50');
balance_is('alice', 'bob', \@ab, 'alice with bob');
balance_is('bob', 'alice', ['-43.83', '43.00', '154.33', '12.50', '80.00'], 'bob with alice (the mirror)');
balance_is('alice', 'dave', ['-76.67', '33.33', '100.00', '10.00', '0.00'], 'alice with dave');
balance_is('dave', 'alice', ['76.67', '100.00', '33.33', '0.00', '10.00'], 'dave with alice');
balance_is('alice', 'erin', ['15.00', '15.00', '0.00', '0.00', '0.00'], 'alice with erin');
balance_is('alice', 'zoe', [('0.00') x 5], 'alice with zoe, a placeholder she shares nothing with');
# Payments never settle splits.
is_deeply([map { $_->{settled} ? 1 : 0 } @{ get_row('alice', $H{A1}{id})->{splits} }], [0, 0],
          'the payments marked no split settled');

# The trip scope of P2 counts like the household one: deleting the payment
# (any of its rows) takes 30.00 off what bob has paid alice.
{
    my ($p2_trip) = grep { defined $_->{trip_id} } @{ $p2->{scopes} // [] };
    is($rig->del("/api/payments/$p2_trip->{id}", user => 'bob')->{status}, 204, 'bob deletes P2 by its trip row');
    balance_is('alice', 'bob', ['73.83', '154.33', '43.00', '50.00', '12.50'], 'alice with bob, without P2');
    pay('alice', { from_participant_id => $uid{bob}, to_participant_id => $uid{alice},
                   scopes => [{ trip_id => undef, amount => 20 }, { trip_id => $trip + 0, amount => 10 }] },
        'P2 again');
    balance_is('alice', 'bob', \@ab, 'alice with bob, P2 back');
}

# GET /api/balances: every counterpart, largest |net| first.
$res = $rig->get('/api/balances', user => 'alice');
is($res->{status}, 200, 'GET /api/balances');
is_deeply([map { who($_->{participant_id}) } @{ $res->{json}{items} // [] }], [qw(dave bob erin zoe)],
          'dave (-76.67), bob (43.83), erin (15.00), zoe (0.00): by the size of net, either sign');
is($res->{json}{total}, 4, 'total 4');
{
    my %b = map { my $i = $_; (who($i->{participant_id}) => [map { m2($i->{$_}) } @BAL]) } @{ $res->{json}{items} // [] };
    is_deeply(\%b, { dave => ['-76.67', '33.33', '100.00', '10.00', '0.00'], bob => \@ab,
                     erin => ['15.00', '15.00', '0.00', '0.00', '0.00'], zoe => [('0.00') x 5] },
              'the same figures as each participant balance');
}
$res = $rig->get('/api/balances', user => 'bob');
is_deeply([map { [who($_->{participant_id}), m2($_->{net})] } @{ $res->{json}{items} // [] }],
          [['alice', '-43.83'], ['erin', '-7.00'], ['dave', '0.00'], ['yann', '0.00']],
          "bob's balances: alice, erin (she paid him 7.00, so he owes her), then the zeros by id");
is_deeply($rig->get('/api/balances', user => 'carol')->{json}, { items => [], total => 0 },
          'carol has no balances');

error_is($rig->get("/api/participants/$uid{carol}/balance", user => 'alice'), 404, 'not_found',
         "a stranger's id");
error_is($rig->get('/api/participants/999999/balance', user => 'alice'), 404, 'not_found', 'an id nobody has');
error_is($rig->get("/api/participants/$uid{yann}/balance", user => 'alice'), 404, 'not_found',
         "bob's placeholder yann is no participant of alice's");
error_is($rig->get("/api/participants/$uid{alice}/balance", user => 'alice'), 400, 'invalid_field', 'your own id');

# Unshared rows never count: sharing one moves the balance by exactly its share.
is(post_splits('alice', $H{A5}{id}, [{ participant_id => $uid{bob}, share_percent => 10 }])->{status}, 200,
   'alice shares A5 (500.00) with bob at 10%');
balance_is('alice', 'bob', ['93.83', '204.33', '43.00', '80.00', '12.50'], 'alice with bob: 50.00 more');
is($rig->del("/api/transactions/$H{A5}{id}/splits", user => 'alice')->{status}, 204, 'and un-shares it');
balance_is('alice', 'bob', \@ab, 'alice with bob as before');

# A reconciled-away manual row does not count: its splits live on the
# statement row it was matched with, counted once.  There is no reconcile
# route yet, so the reconciliation is written directly, as it would be
# applied: the statement row, the splits copied to it, reconciled_with_id.
{
    my $m = create('alice', description => 'Cash on card', amount => 50, payment_method => 'card',
                   splits => [{ participant_id => $uid{bob}, share_percent => 50 }]);
    balance_is('alice', 'bob', ['68.83', '179.33', '43.00', '80.00', '12.50'], 'alice with bob, the manual row counted');
    my $srow = sql("INSERT INTO statements (owner_id, bank_name, statement_type) VALUES ($uid{alice}, 'Test Bank', 'credit_card');"
                   . " INSERT INTO transactions (statement_id, owner_id, date, description, amount)"
                   . "   VALUES (last_insert_rowid(), $uid{alice}, '2026-03-10', 'CASH ON CARD', 5000);"
                   . " SELECT last_insert_rowid();");
    sql("INSERT INTO splits (transaction_id, participant_id, share_percent)"
        . " SELECT $srow, participant_id, share_percent FROM splits WHERE transaction_id = $m->{id};"
        . " UPDATE transactions SET reconciled_with_id = $srow WHERE id = $m->{id};");
    error_is($rig->get("/api/transactions/$m->{id}", user => 'alice'), 404, 'not_found',
             '(the reconciled manual row is hidden)');
    balance_is('alice', 'bob', ['68.83', '179.33', '43.00', '80.00', '12.50'],
               'alice with bob: the statement row counts once, the reconciled manual row not at all');
}

# The address checks refuse the malformed, not the unusual.
$res = $rig->post('/api/participants', { email => 'first.last+ledger@mail.example.co.uk' }, user => 'dave');
is($res->{status}, 201, 'a dotted local part, a + and a four-label domain are an address')
    or diag($res->{content});

# ==== payments: limits and orders ===============================================
# A payment takes 1 to 20 scopes; its total is money too (at most 10^13,
# though each scope alone is within it); notes are at most 1000
# characters; its scopes list the household first, then by trip, and the
# payments list the latest date first.  (Last in the file: these payments
# would move the balances above.)
{
    # alice owns every trip, so a payment to bob may be scoped to each.
    my @trips;
    for my $i (1 .. 20) {
        my $r = $rig->post('/api/trips', { name => "Trip $i" }, user => 'alice');
        BAIL_OUT("trip $i: $r->{status} $r->{content}") unless $r->{status} == 201;
        push @trips, $r->{json}{id};
    }
    my %base = (from_participant_id => $uid{alice}, to_participant_id => $uid{bob}, date => '2026-02-01');
    my $pay_bob = sub { $rig->post('/api/payments', $_[0], user => 'alice') };
    my $total = sub { payments('alice')->{json}{total} // -1 };
    my $before = $total->();

    my @twenty = ({ trip_id => undef, amount => 1 }, map { { trip_id => $_, amount => 1 } } @trips[0 .. 18]);
    my $r = $pay_bob->({ %base, scopes => \@twenty });
    is($r->{status}, 201, 'a payment of exactly 20 scopes (the most there may be) is accepted')
        or diag($r->{content});
    is(scalar @{ $r->{json}{scopes} // [] }, 20, 'it has 20 scope rows');
    is(sprintf('%.2f', $r->{json}{amount} // 0), '20.00', 'and its amount is their total');
    my $rows = $total->();
    is($rows - $before, 20, 'alice lists its 20 rows');
    error_is($pay_bob->({ %base, scopes => [ @twenty, { trip_id => $trips[19], amount => 1 } ] }), 400,
             'invalid_field', '21 scopes: one too many', 'scopes');
    is($total->(), $rows, 'and nothing was stored');

    error_is($pay_bob->({ %base, scopes => [ { trip_id => undef, amount => 6000000000000 },
                                             { trip_id => $trips[0], amount => 6000000000000 } ] }),
             400, 'invalid_field', 'two scopes of 6 * 10^12 (12 * 10^12 in all, over 10^13)', 'amount');
    is($total->(), $rows, 'and nothing was stored');
    $r = $pay_bob->({ %base, scopes => [ { trip_id => undef, amount => 5000000000000 },
                                         { trip_id => $trips[0], amount => 5000000000000 } ] });
    is($r->{status}, 201, 'two scopes of 5 * 10^12: exactly 10^13 in all, accepted') or diag($r->{content});

    $r = $pay_bob->({ %base, amount => 1, notes => 'n' x 1000 });
    is($r->{status}, 201, 'notes of exactly 1000 characters are accepted') or diag($r->{content});
    error_is($pay_bob->({ %base, amount => 1, notes => 'n' x 1001 }), 400, 'invalid_field',
             'notes of 1001 characters', 'notes');

    $r = $pay_bob->({ %base, date => '2026-03-01',
                      scopes => [ { trip_id => $trips[5], amount => 1 }, { trip_id => undef, amount => 2 },
                                  { trip_id => $trips[2], amount => 3 } ] });
    is($r->{status}, 201, 'a payment of three scopes, given trip, household, trip') or diag($r->{content});
    is_deeply([ map { $_->{trip_id} } @{ $r->{json}{scopes} // [] } ], [ undef, $trips[2], $trips[5] ],
              'its scopes: the household one first, then by trip');
    my $early = $pay_bob->({ %base, date => '2020-01-01', amount => 1 });
    my $late1 = $pay_bob->({ %base, date => '2027-01-01', amount => 1 });
    my $late2 = $pay_bob->({ %base, date => '2027-01-01', amount => 2 });
    my @listed = map { $_->{id} } @{ payments('alice', 'limit=500')->{json}{items} // [] };
    is_deeply([ @listed[0, 1] ], [ $late2->{json}{id}, $late1->{json}{id} ],
              'the payments list: the latest date first, the later recorded first on the same date');
    is($listed[-1], $early->{json}{id}, '  and the earliest date last');
}

# ==== balances use the apportioned cents the rows show (carol) ================
# carol and alice add each other; alice's debit 10.01 split with carol 50%:
# alice 5.01, carol 5.00.  It is the only row and there are no payments
# between them, so
#   alice with carol: owed_to_me 5.00, net 5.00; carol with alice: owed_by_me 5.00, net -5.00
# Shares total exactly 100%: two that make 100.01 are refused, as one is.
participant_ok($rig, 'alice', 'carol');
participant_ok($rig, 'carol', 'alice');
{
    my $bal = sub {
        my ($user, $other) = @_;
        my $r = $rig->get("/api/participants/$uid{$other}/balance", user => $user);
        is($r->{status}, 200, "$user GET /api/participants/{$other}/balance") or diag($r->{content});
        my $j = $r->{json} // {};
        return { map { $_ => m2($j->{$_}) } qw(owed_to_me owed_by_me payments_to_me payments_from_me net) };
    };
    my $sd = create('alice', date => '2024-06-08', amount => 10.01, description => 'Shared debit',
                    category => 'dining', merchant => 'Split Cafe',
                    splits => [ { participant_id => $uid{carol}, share_percent => 50 } ]);
    is_deeply({ map { $_->{participant_id} => m2($_->{amount}) } @{ get_row('carol', $sd->{id})->{splits} // [] } },
              { $uid{alice} => '5.01', $uid{carol} => '5.00' },
              'the shared debit row: alice 5.01 (owner takes the tie cent), carol 5.00');
    is_deeply($bal->('alice', 'carol'),
              { owed_to_me => '5.00', owed_by_me => '0.00', payments_to_me => '0.00', payments_from_me => '0.00',
                net => '5.00' },
              'alice\'s balance with carol: owed_to_me 5.00 (carol\'s row amount), net 5.00');
    is_deeply($bal->('carol', 'alice'),
              { owed_to_me => '0.00', owed_by_me => '5.00', payments_to_me => '0.00', payments_from_me => '0.00',
                net => '-5.00' },
              'carol\'s balance with alice: owed_by_me 5.00 (her row amount), net -5.00');

    my $row = create('alice', date => '2019-05-01', description => 'Split to the hundredth', amount => 10);
    my $r = $rig->post("/api/transactions/$row->{id}/splits",
                       [ { participant_id => $uid{bob}, share_percent => 50 },
                         { participant_id => $uid{carol}, share_percent => 50.01 } ], user => 'alice');
    is($r->{status}, 400, 'shares of 50 and 50.01 (100.01%) are refused') or diag($r->{content});
    is_deeply(get_row('alice', $row->{id})->{splits}, [], 'and the row is not split');
}

# ==== balances by id: ids against the names (a rig of its own) =================
# GET /api/balances finds each participant's balance by id, and ids need
# not run in the list's order of names: on a rig of its own, users sign in
# from erin to alice.
{
    my $zrig = Rig->new;
    my %zid;
    for my $u (qw(erin dave carol bob alice)) {
        $zid{$u} = $zrig->get('/api/me', user => $u)->{json}{id};
    }
    my %zwho = reverse %zid;
    ok($zid{erin} < $zid{dave} && $zid{dave} < $zid{bob} && $zid{bob} < $zid{alice}, 'ids run against the names');

    for my $u (qw(bob dave erin)) {
        my $res = $zrig->post('/api/participants', { email => "$u\@example.org" }, user => 'alice');
        ok($res->{status} == 200 || $res->{status} == 201, "alice adds $u") or diag($res->{content});
    }
    my $row = $zrig->post('/api/transactions', { date => '2026-03-10', description => 'dinner', amount => 100,
                                                 transaction_type => 'debit' }, user => 'alice');
    is($row->{status}, 201, 'alice creates a row of 100.00') or diag($row->{content});
    $res = $zrig->post("/api/transactions/$row->{json}{id}/splits",
                       [ { participant_id => $zid{bob}, share_percent => 10 },
                         { participant_id => $zid{dave}, share_percent => 20 },
                         { participant_id => $zid{erin}, share_percent => 30 } ], user => 'alice');
    ok($res->{status} == 200 || $res->{status} == 201, 'split 10/20/30 (alice 40)') or diag($res->{content});

    $res = $zrig->get('/api/balances', user => 'alice');
    is($res->{status}, 200, 'GET /api/balances as alice');
    my %list = map { ($zwho{ $_->{participant_id} } // $_->{participant_id}) => m2($_->{owed_to_me}) }
               @{ $res->{json}{items} // [] };
    is_deeply(\%list, { bob => '10.00', dave => '20.00', erin => '30.00' },
              "alice's list: each participant owes their share, whatever the order of ids and names");
    for my $u (qw(bob dave erin)) {
        my $one = $zrig->get("/api/participants/$zid{$u}/balance", user => 'alice')->{json};
        is(m2($one->{net}), $list{$u}, "the list agrees with alice's balance with $u");
    }

    # A caller with exactly one participant has their split debts listed.
    $res = $zrig->get('/api/balances', user => 'dave');
    is_deeply([map { [$zwho{ $_->{participant_id} } // '?', m2($_->{owed_by_me}), m2($_->{net})] }
               @{ $res->{json}{items} // [] }],
              [['alice', '20.00', '-20.00']], "dave's one balance: he owes alice 20.00");
}

done_testing();
