#!/usr/bin/perl
# Adding a participant by email probes nothing: the answer for an address
# with an account is the answer for an address without one (a new
# placeholder), byte for byte but the id and the address typed, and what the caller sees of the
# person afterwards (the list, the balances, a split or payment naming an
# id) tells the two apart no better, until the person turns to the caller
# by an act of their own (adds them, shares a row, records a payment).
use strict;
use warnings;
use Test::More;
use Rig;
use CommonChecks qw(error_is ok_json);

my $rig = Rig->new;
# bob has signed in, with a name claim; nobody@ has never been seen.
my %uid = map { $_ => ok_json($rig->get('/api/me', user => $_), "$_ signs in")->{id} } qw(alice bob carol);
$rig->sql("UPDATE users SET name = 'Robert Real', email = 'bob\@example.org' WHERE id = $uid{bob}");

sub add {
    my ($user, $email, $name) = @_;
    return $rig->post('/api/participants', { email => $email, defined $name ? (name => $name) : () },
                      user => $user);
}
# The body with its id and the address the caller typed (which differs
# between the two calls by design) blanked: what is left must be equal.
sub without_id {
    my ($r, $email) = @_;
    (my $c = $r->{content}) =~ s/"id":\s*\d+/"id":N/;
    $c =~ s/\Q$email\E/EMAIL/;
    return $c;
}

# The same spelling, neither lower case as stored, with and without a name.
for my $name (undef, 'My friend') {
    my $acc = add('alice', 'Bob@Example.ORG', $name);
    my $new = add('alice', 'Nobody@Example.ORG', $name);
    my $what = defined $name ? 'with a name' : 'without a name';
    is_deeply([$acc->{status}, $new->{status}], [201, 201], "$what: both 201");
    is(without_id($acc, 'Bob@Example.ORG'), without_id($new, 'Nobody@Example.ORG'),
       "$what: the two bodies are byte-identical but the id and the address")
        or diag("account: $acc->{content}\nnew: $new->{content}");
    is($acc->{json}{id}, $uid{bob}, "$what: the id is bob's (so he can be shared with)");
    is_deeply([sort keys %{ $acc->{json} }], [qw(email id name)], "$what: id, email, name and nothing else");
    is($acc->{json}{name}, $name // undef, "$what: the name is the one alice gave, not bob's own")
        if defined $name;
}
# A second add without a name keeps alice's label; the answer still matches.
my ($acc, $new) = (add('alice', 'Bob@Example.ORG'), add('alice', 'Nobody@Example.ORG'));
is(without_id($acc, 'Bob@Example.ORG'), without_id($new, 'Nobody@Example.ORG'), 'again without a name: still identical');
is($acc->{json}{name}, 'My friend', "and alice's label stays");
is(ok_json($rig->get('/api/me', user => 'bob'), 'bob')->{name}, 'Robert Real', "alice's label does not rename bob");

# The list and the balances show alice's view of both alike.
my %row = map { $_->{id} => $_ } @{ ok_json($rig->get('/api/participants', user => 'alice'), 'alice lists')->{items} };
my ($b, $n) = @row{ $uid{bob}, $new->{json}{id} };
is_deeply([map { [sort keys %$_] } $b, $n], [[qw(email id name)], [qw(email id name)]], 'list rows: id, email, name');
is_deeply([@$b{qw(email name)}], ['Bob@Example.ORG', 'My friend'],
          "bob's row: the address as typed and alice's label, not bob's own name");
is_deeply([@$n{qw(email name)}], ['Nobody@Example.ORG', 'My friend'], "the placeholder's row: the same");
my %bal = map { $_->{participant_id} // $_->{id} => $_ }
          @{ ok_json($rig->get('/api/balances', user => 'alice'), 'alice balances')->{items} };
is_deeply([map { [@{ $bal{$_} }{qw(email name)}] } $uid{bob}, $new->{json}{id}],
          [['Bob@Example.ORG', 'My friend'], ['Nobody@Example.ORG', 'My friend']], 'the balances name them alike');

# A row alice splits with both names them alike too (the row and its
# splits route): by her label for them, not bob's own name.
my $row = ok_json($rig->post('/api/transactions', { date => '2026-04-01', description => 'Dinner', amount => 30,
                                                     splits => [{ participant_id => $uid{bob}, share_percent => 25 },
                                                                { participant_id => $new->{json}{id}, share_percent => 25 }] },
                             user => 'alice'), 'alice splits a row with both');
for my $doc (['the row', $row->{splits}],
             ['the splits route', ok_json($rig->get("/api/transactions/$row->{id}/splits", user => 'alice'), 'splits')->{items}]) {
    my %s = map { $_->{participant_id} => $_ } @{ $doc->[1] // [] };
    is_deeply([$s{ $uid{bob} }{name}, $s{ $new->{json}{id} }{name}], ['My friend', 'My friend'],
              "$doc->[0]: both by alice's label, not bob's own name");
}
# A trip of alice's with the row: its participants and report name them alike.
my $trip = ok_json($rig->post('/api/trips', { name => 'Probe trip' }, user => 'alice'), 'alice makes a trip');
ok_json($rig->patch("/api/transactions/$row->{id}", { trip_id => $trip->{id} }, user => 'alice'), 'the row in it');
my %tp = map { $_->{id} => $_ } @{ ok_json($rig->get("/api/trips/$trip->{id}/participants", user => 'alice'), 'trip people')->{items} };
is_deeply([map { [@{ $tp{$_} // {} }{qw(email name)}] } $uid{bob}, $new->{json}{id}],
          [['Bob@Example.ORG', 'My friend'], ['Nobody@Example.ORG', 'My friend']],
          "the trip's participants name them alike");

# An id that is nobody's participant: the same refusal whether a user has
# it or not (carol exists; 999999 does not).
for my $case ([$uid{carol}, 'an existing user'], [999999, 'an id no user has']) {
    my ($id, $what) = @$case;
    my $split = $rig->post('/api/transactions', { date => '2026-04-01', description => 'x', amount => 10,
                                                  splits => [{ participant_id => $id, share_percent => 50 }] },
                           user => 'alice');
    error_is($split, 400, 'invalid_field', "a split with $what", 'participant_id');
    like($split->{json}{error}{message}, qr/^user $id is not one of your participants/, "$what: the same message");
    my $pay = $rig->post('/api/payments', { from_participant_id => $uid{alice}, to_participant_id => $id,
                                            date => '2026-04-01', amount => 1 }, user => 'alice');
    error_is($pay, 400, 'invalid_field', "a payment to $what", 'to_participant_id');
    like($pay->{json}{error}{message}, qr/^user $id is not one of your participants/, "$what: the same message");
    error_is($rig->get("/api/participants/$id/balance", user => 'alice'), 404, 'not_found', "the balance with $what");
}

# Once bob turns to alice (adds her), she sees his own name and address.
ok_json($rig->post('/api/participants', { email => 'alice@example.org' }, user => 'bob'), 'bob adds alice');
%row = map { $_->{id} => $_ } @{ ok_json($rig->get('/api/participants', user => 'alice'), 'alice lists')->{items} };
is_deeply([@{ $row{ $uid{bob} } }{qw(email name)}], ['bob@example.org', 'Robert Real'],
          "then bob's own address and name");
done_testing();
