#!/usr/bin/perl
# Every migration file in schema/ is built into the library, numbered
# without gaps from the baseline: a file added but not listed in
# Makefile.am would silently never be applied.
use strict;
use warnings;
use Test::More;
use Rig;

# The version of schema/NNNN_baseline.sql, the whole schema a new database
# is made from; the migrations after it follow it without gaps.
my $baseline = 27;

my $src = Rig::srcdir();
my @files = map { s{.*/}{}r } sort glob "$src/schema/*.sql";
ok(@files >= 1, 'there are migrations');
is($files[0], sprintf('%04d_baseline.sql', $baseline), 'the first is the baseline');
my ($list) = Rig::slurp("$src/Makefile.am") =~ /^SCHEMA = \\\n((?:\t.*\n)+)/m;
my @listed = map { s{.*/}{}r } ($list // '') =~ /(schema\/\S+\.sql)/g;
is_deeply(\@listed, \@files, 'Makefile.am lists every schema/*.sql, in order');
my $n = $baseline;
for my $f (@files) {
    like($f, qr/^\Q@{[sprintf '%04d', $n]}\E_[a-z0-9_]+\.sql$/, "$f is migration $n");
    $n++;
}
ok(-f "$src/schema/README", 'schema/README says how to add one');
done_testing();
