#!/usr/bin/perl
# Behind Apache httpd with mod_proxy_fcgi: the same identity, error and body
# checks as behind nginx.
use strict;
use warnings;
use Test::More;
use Rig;

plan skip_all => 'apache2 is not installed (apt-get install apache2)'
    unless Rig::find_program('apache2') || Rig::find_program('httpd');
require CommonChecks;
my $rig = Rig->new(server => 'apache');
CommonChecks::run($rig);
done_testing();
