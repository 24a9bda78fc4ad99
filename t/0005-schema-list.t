#!/usr/bin/perl
# Every migration file in schema/ is built into the library, numbered
# without gaps: a file added but not listed in Makefile.am would silently
# never be applied.
use strict;
use warnings;
use Test::More;
use Rig;

my $src = Rig::srcdir();
my @files = map { s{.*/}{}r } sort glob "$src/schema/*.sql";
ok(@files >= 1, 'there are migrations');
my ($list) = Rig::slurp("$src/Makefile.am") =~ /^SCHEMA = \\\n((?:\t.*\n)+)/m;
my @listed = map { s{.*/}{}r } ($list // '') =~ /(schema\/\S+\.sql)/g;
is_deeply(\@listed, \@files, 'Makefile.am lists every schema/*.sql, in order');
my $n = 0;
for my $f (@files) {
    $n++;
    like($f, qr/^\Q@{[sprintf '%04d', $n]}\E_[a-z0-9_]+\.sql$/, "$f is migration $n");
}
done_testing();
