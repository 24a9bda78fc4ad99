#!/usr/bin/perl
# The web client's money input (contrib/web/js/money.js), run under node:
# what a person types becomes integer cents, never through a float, and a
# comma is grouping only between groups of three digits ("12,50" read as
# grouping was saved as 1,250.00).  Skipped without node.
use strict;
use warnings;
use Test::More;
use Rig;

my $node = Rig::find_program('node') or plan skip_all => 'node is not installed (apt-get install nodejs)';
my $money = Rig::srcdir() . '/contrib/web/js/money.js';
my @cases = (
    [ '12.50', 1250 ], [ '1,234.50', 123450 ], [ '1,234', 123400 ], [ '$1,234,567.8', 123456780 ],
    [ '-3.10', -310 ], [ '0.1', 10 ], [ '  7 ', 700 ],
    [ '12,50', 'error' ], [ '0,99', 'error' ], [ '1,23', 'error' ], [ '12,345,67', 'error' ],
    [ '1.005', 'error' ], [ 'twelve', 'error' ], [ '1e3', 'error' ],
);
my $script = "import { parseMoneyInput } from '$money';\n"
    . "for (const t of process.argv.slice(2)) {\n"
    . "  try { console.log(String(parseMoneyInput(t))); } catch (e) { console.log('error'); }\n}\n";
my $tmp = "/tmp/ledger-money-$$.mjs";
open my $fh, '>', $tmp or die "$tmp: $!";
print $fh $script;
close $fh;
my @out = map { chomp; $_ } `$node $tmp @{[ map { quotemeta $_->[0] } @cases ]}`;
unlink $tmp;
is(scalar @out, scalar @cases, 'node answered every case') or diag("node said: @out");
for my $i (0 .. $#cases) {
    is($out[$i], $cases[$i][1], "'$cases[$i][0]' -> $cases[$i][1]");
}
done_testing();
