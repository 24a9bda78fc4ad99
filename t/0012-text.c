/*
 * lib/text.c: lowering UTF-8 (categories, tags and search compare lowered
 * text) and the substring test behind every search (ledger_contains).
 */
#include <string.h>

#include "ledger.h"
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
    lower_is("\xc8\x98OSEA \xc8\x9a" "ARII", "\xc8\x99osea \xc8\x9b" "arii", "Romanian (ȘOSEA ȚARII)");
    lower_is("PH\xe1\xbb\x9e", "ph\xe1\xbb\x9f", "Vietnamese (PHỞ)");
    lower_is("\xce\xaa\xce\xab", "\xcf\x8a\xcf\x8b", "Greek with dialytika (ΪΫ)");
    lower_is("\xd2\x90\xd2\x92\xd2\x9a\xd3\x98", "\xd2\x91\xd2\x93\xd2\x9b\xd3\x99",
             "Ukrainian and Kazakh (ҐҒҚӘ)");
    lower_is("\xd4\xb1", "\xd5\xa1", "Armenian (Ա)");
    lower_is("\xef\xbc\xa1", "\xef\xbd\x81", "fullwidth (Ａ)");
    lower_is("\xc7\x84\xc7\x85\xc7\x86", "\xc7\x86\xc7\x86\xc7\x86", "DŽ, its title case and its lower case");
    lower_is("\xc4\xb0\xe2\x84\xaa", "\xc4\xb0\xe2\x84\xaa",
             "İ and the Kelvin sign, whose lower cases are of another length, left");
    lower_is("\xea\x9e\xb4\xe2\xb1\xa3\xea\x9f\x86\xea\x9f\xb5",
             "\xea\x9e\xb5\xe1\xb5\xbd\xe1\xb6\x8e\xea\x9f\xb6",
             "Latin Extended-C and -D (\xea\x9e\xb4\xe2\xb1\xa3\xea\x9f\x86\xea\x9f\xb5)");
    lower_is("\xc8\xba\xe2\xb1\xa2", "\xc8\xba\xe2\xb1\xa2",
             "Ⱥ and Ɫ, whose lower cases are of another length, left");
    {
        unsigned cp, bad_len = 0, bad_again = 0, first_bad = 0;
        unsigned char a[4], b[4];

        for (cp = 0; cp < 0x10000; cp++) {
            unsigned l;

            if (cp >= 0xD800 && cp <= 0xDFFF)
                continue;
            l = unicode_lower(cp);
            if (put_utf8(a, cp) != put_utf8(b, l) && bad_len++ == 0)
                first_bad = cp;
            if (unicode_lower(l) != l && bad_again++ == 0 && first_bad == 0)
                first_bad = cp;
        }
        ok(bad_len == 0, "every code point below U+10000 lowers to one of its UTF-8 length (first wrong: U+%04X)",
           first_bad);
        ok(bad_again == 0, "and to one that lowers no further");
    }

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

    /* An identity of nothing a person could read is none (401), whatever
     * characters make it up; one visible character makes it a name. */
    ok(ledger_identity_blank("\x01\x1f"), "C0 controls alone are no identity");
    ok(ledger_identity_blank("\xef\xbe\xa0"), "nor the halfwidth Hangul filler U+FFA0 alone");
    ok(ledger_identity_blank("\xf0\x93\x90\xbf"), "nor U+1343F, the last Egyptian format control");
    ok(ledger_identity_blank("\xf0\x93\x90\xb0"), "nor U+13430, the first");
    ok(!ledger_identity_blank("\x01" "a"), "a letter after a control is a name");
    ok(!ledger_identity_blank("\xf0\x93\x80\x80"), "U+13000, a hieroglyph, is a name");
    return done_testing();
}
