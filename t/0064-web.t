#!/usr/bin/perl
# The web client (contrib/web) in a real browser: nginx serves its static
# files at / and the CSV presets at /csv-presets/, beside the authenticated
# /api, in front of the real ledger-fcgi; contrib/web/test/web.test.mjs
# drives Debian's chromium through playwright-core over each page's main
# task and checks the results in the page and through the API.
# Screenshots (desktop and 375px wide) go to t/web-artifacts/ in the build
# tree.
#
# Skipped when node, Debian's chromium or the npm packages (npm ci in
# contrib/web/test) are missing, and under make check-valgrind: the browser
# session would take many minutes there and exercises no code of the
# service that the other HTTP tests do not already run under valgrind.
use strict;
use warnings;
use Test::More;
use File::Path qw(make_path);
use Rig;

my $src = Rig::srcdir();
my $test_dir = "$src/contrib/web/test";
my $chromium = $ENV{CHROMIUM} // '/usr/bin/chromium';
plan skip_all => 'not under valgrind (see above)' if $ENV{LEDGER_VALGRIND};
my $node = Rig::find_program('node');
plan skip_all => 'node is not installed (apt-get install nodejs npm)' unless $node;
plan skip_all => "Debian's chromium is not installed at $chromium (apt-get install chromium)" unless -x $chromium;
plan skip_all => "playwright-core is not installed (cd contrib/web/test && npm ci)"
    unless -f "$test_dir/node_modules/playwright-core/package.json";

# The static files are what the quick-start and etc/ serve: check the
# pieces they name are there before starting a browser.
for my $f (qw(index.html css/app.css js/app.js js/api.js js/money.js)) {
    ok(-f "$src/contrib/web/$f", "contrib/web/$f exists");
}

my $rig = Rig->new(web_root => "$src/contrib/web", csv_presets => "$src/contrib/csv-presets");
my $base = 'http://127.0.0.1:' . $rig->port;
my $index = $rig->request('GET', '/');
is($index->{status}, 200, 'nginx serves the web client at /');
like($index->{content}, qr{<script type="module" src="js/app.js">}, 'the page loads its modules');
my $js = $rig->request('GET', '/js/app.js');
like($js->{headers}{'content-type'} // '', qr{javascript}, 'modules are served as JavaScript');
is($rig->request('GET', '/csv-presets/anz.json')->{status}, 200, 'the CSV presets are served beside it');
is($rig->request('GET', '/api/me')->{status}, 401, '/api still needs the web server\'s authentication');

my $art = ($ENV{LEDGER_BUILDDIR} // '.') . '/t/web-artifacts';
make_path($art);
unlink glob("$art/*.png");
$ENV{LEDGER_WEB_URL} = $base;
$ENV{LEDGER_WEB_ARTIFACTS} = $art;
$ENV{CHROMIUM} = $chromium;
$ENV{PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD} = 1;

# Each "ok - NAME" / "not ok - NAME" line of the script is one test here.
my $pid = open(my $out, '-|') // die "fork: $!";
if (!$pid) {
    open STDERR, '>&', \*STDOUT;
    chdir $test_dir or die "$test_dir: $!";
    exec 'nice', $node, 'web.test.mjs' or exec $node, 'web.test.mjs';
    die "exec node: $!";
}
my ($seen, @diag) = (0);
local $SIG{ALRM} = sub { kill 'TERM', $pid; fail('the browser test finished within 12 minutes') };
alarm 720;
while (my $line = <$out>) {
    chomp $line;
    if ($line =~ /^(not )?ok - (.*)$/) {
        $seen++;
        ok(!$1, $2) or diag(join "\n", @diag);
        @diag = ();
    } elsif ($line =~ /^# ?(.*)/) {
        # The script's diagnostics follow the check they explain.
        if ($line =~ /^# \d+ failed$/) { note($1) } else { diag($1) }
    } else {
        push @diag, $line;
        note($line);
    }
}
close $out;
alarm 0;
my $status = $? >> 8;
ok($seen >= 40, "the browser test ran its checks ($seen)");
is($status, 0, 'the browser test exited 0') or diag(join "\n", @diag);
my @shots = glob("$art/*.png");
ok(@shots >= 16, scalar(@shots) . " screenshots kept in t/web-artifacts/");

done_testing;
