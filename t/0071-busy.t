#!/usr/bin/perl
# Another process holding the database's write lock (supervisord runs
# several ledger-fcgi; ledger-admin and backups write too).  A write that
# finds the lock taken waits for it and then succeeds; one that waits
# longer than the busy timeout (5 s, lib/db_lock.c) is a 503 busy with nothing
# written; reads are never blocked (WAL).  The lock is held here by the
# sqlite3 tool inside BEGIN IMMEDIATE.
use strict;
use warnings;
use Test::More;
use IO::Handle;
use Time::HiRes qw(time sleep);
use Rig;
use CommonChecks qw(error_is);

Rig::find_program('sqlite3') or plan skip_all => 'sqlite3 not installed';
my $rig = Rig->new;
my $row = { date => '2025-03-01', description => 'Lock test', amount => 1 };
$rig->post('/api/transactions', $row, user => 'alice');    # the database exists

# Holds the write lock for $seconds; returns the pid once it is held.
sub hold_lock {
    my ($seconds) = @_;
    my $flag = $rig->dir . "/locked.$seconds";
    unlink $flag;
    open(my $fh, '|-', 'sqlite3', $rig->db_path) or die "sqlite3: $!";
    $fh->autoflush(1);
    print $fh "BEGIN IMMEDIATE;\n.shell touch $flag\n.shell sleep $seconds\nCOMMIT;\n";
    for (1 .. 100) { last if -e $flag; sleep 0.05 }
    ok(-e $flag, "the sqlite3 tool holds the write lock for ${seconds}s");
    return $fh;
}

sub count {
    return $rig->get('/api/transactions?search=' . $_[0], user => 'alice')->{json}{total};
}

{
    my $fh = hold_lock(1.5);
    my $t0 = time;
    my $res = $rig->post('/api/transactions', { %$row, description => 'Waited' }, user => 'alice');
    my $took = time - $t0;
    is($res->{status}, 201, 'a write during a 1.5 s lock waits and succeeds') or diag($res->{content});
    cmp_ok($took, '>=', 0.8, sprintf('it waited for the lock (%.2f s)', $took));
    close $fh;
    is(count('Waited'), 1, 'and its row is there');
}
{
    my $fh = hold_lock(8);
    my $t0 = time;
    my $read = $rig->get('/api/transactions', user => 'alice');
    my $read_took = time - $t0;
    is($read->{status}, 200, 'a read during the lock answers');
    cmp_ok($read_took, '<', 3, sprintf('without waiting for it (%.2f s)', $read_took));
    $t0 = time;
    my $res = $rig->post('/api/transactions', { %$row, description => 'Refused' }, user => 'alice');
    my $took = time - $t0;
    error_is($res, 503, 'busy', 'a write that cannot have the lock within the timeout');
    is($res->{headers}{'retry-after'}, '1', 'with Retry-After: 1');
    cmp_ok($took, '>=', 4.5, sprintf('after waiting the busy timeout (%.2f s)', $took));
    cmp_ok($took, '<', 7.5, 'and not for the whole lock');
    close $fh;
    is(count('Refused'), 0, 'nothing of it was written');
    is($rig->post('/api/transactions', { %$row, description => 'After' }, user => 'alice')->{status}, 201,
       'once the lock is gone, writes go through again');
}
done_testing();
