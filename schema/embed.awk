# Turns schema/NNNN_name.sql files (given in order: the baseline, then
# each migration after it) into the C table db_migrations[], so the
# program carries its schema and needs no data directory at run time.
function flush_file() {
    if (cur == "") return
    printf "    \"\";\n\n"
}
BEGIN {
    print "/* Generated from the schema directory by schema/embed.awk: do not edit. */"
    print "#include \"db.h\"\n"
    n = 0
}
FNR == 1 {
    flush_file()
    base = FILENAME
    sub(/.*\//, "", base)
    if (base !~ /^[0-9][0-9][0-9][0-9]_[a-z0-9_]+\.sql$/) {
        print "embed.awk: bad migration file name " FILENAME > "/dev/stderr"
        exit 1
    }
    n++
    ver[n] = base + 0
    if (n > 1 && ver[n] != ver[n - 1] + 1) {
        print "embed.awk: migrations must be numbered without gaps: " FILENAME > "/dev/stderr"
        exit 1
    }
    name[n] = substr(base, 6, length(base) - 9)
    cur = "m" n
    printf "static const char %s[] =\n", cur
}
{
    line = $0
    gsub(/\\/, "\\\\", line)
    gsub(/"/, "\\\"", line)
    printf "    \"%s\\n\"\n", line
}
END {
    flush_file()
    print "const struct db_migration db_migrations[] = {"
    for (i = 1; i <= n; i++)
        printf "    { %d, \"%s\", m%d },\n", ver[i], name[i], i
    print "};"
    printf "const int db_migration_count = %d;\n", n
}
