/*
 * lib/text.c: lowering UTF-8 (categories, tags and search compare lowered
 * text) and the substring test behind every search (ledger_contains).
 */
#include <string.h>

#include "text.h"
#include "tap.h"

static void lower_is(const char *in, const char *want, const char *what)
{
    char buf[64];

    strcpy(buf, in);
    utf8_lower(buf);
    is_str(buf, want, "utf8_lower: %s", what);
}

static int has(const char *text, const char *term)
{
    return text_contains(text, strlen(text), term, strlen(term));
}

int main(void)
{
    lower_is("Coffee BEAN", "coffee bean", "ASCII");
    lower_is("CAF\xc3\x89", "caf\xc3\xa9", "Latin-1 letters (É)");
    lower_is("\xce\xa3\xce\x9f\xce\xa6", "\xcf\x83\xce\xbf\xcf\x86", "Greek (ΣΟΦ)");
    lower_is("\xd0\x9c\xd0\x98\xd0\xa0", "\xd0\xbc\xd0\xb8\xd1\x80", "Cyrillic (МИР)");
    lower_is("A\xff" "B", "a\xff" "b", "a byte that is not UTF-8 is left as it is");

    ok(has("Coffee at Bean", "bean"), "a term in any case");
    ok(has("COFFEE", "coffee"), "upper-case text, lower-case term");
    ok(has("xxcoffee", "coffee"), "at the end");
    ok(has("coffee", "coffee"), "the whole text");
    ok(!has("coffe", "coffee"), "not when the text is shorter");
    ok(!has("Cof fee", "coffee"), "not across a space");
    ok(has("ccoffee", "coffee"), "after a false start on the first letter");
    ok(has("100% juice", "0% j"), "a percent sign is a character");
    ok(has("a_b", "_"), "an underscore is a character");
    ok(!has("ab", "_"), "and not a wildcard");
    ok(has("anything", ""), "the empty term is in every text");
    ok(has("caf\xc3\xa9 noir", "caf\xc3\xa9"), "bytes beyond ASCII compared as they are");
    ok(!has("CAF\xc3\x89", "caf\xc3\xa9"), "and not folded here (the caller lowers the text)");
    return done_testing();
}
