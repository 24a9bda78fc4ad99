/* Category folding (Business rule C and ledger_category_fold's promises in
 * ledger.h): synonyms and case fold to one name, "refund" and "refunds" are
 * a refund, and a name cut at LEDGER_CATEGORY_MAX never ends inside a UTF-8
 * character nor in a '_' left from the gap before a dropped one. */
#include "ledger.h"
#include "tap.h"

static void folds(const char *in, enum ledger_category_fold want_rc, const char *want)
{
    char out[LEDGER_CATEGORY_MAX];
    enum ledger_category_fold rc = ledger_category_fold(in, out);

    ok(rc == want_rc && strcmp(out, want) == 0, "'%s' folds to '%s' (got '%s')",
       in ? in : "(null)", want, out);
}

int main(void)
{
    const char *const *b = ledger_category_builtin();
    char out[LEDGER_CATEGORY_MAX], longname[300], want[300];
    int n = 0, i, all_fold_to_self = 1;

    folds("Dining", LEDGER_CATEGORY_OK, "dining");
    folds("DINING", LEDGER_CATEGORY_OK, "dining");
    folds("  dining  ", LEDGER_CATEGORY_OK, "dining");
    folds("Personal Care", LEDGER_CATEGORY_OK, "personal_care");
    folds("personal-care", LEDGER_CATEGORY_OK, "personal_care");
    folds("Phone & Internet", LEDGER_CATEGORY_OK, "phone_internet");
    folds("Phone and Internet", LEDGER_CATEGORY_OK, "phone_internet");
    folds("Loan Interest", LEDGER_CATEGORY_OK, "loan_interest");
    folds("payment", LEDGER_CATEGORY_OK, "transfers");
    folds("Payment", LEDGER_CATEGORY_OK, "transfers");
    folds("Transfer", LEDGER_CATEGORY_OK, "transfers");
    folds("refund", LEDGER_CATEGORY_REFUND, "refund");
    /* The reports' name for no category, either spelling. */
    folds("Uncategorised", LEDGER_CATEGORY_NONE, "uncategorised");
    folds(" UNCATEGORIZED ", LEDGER_CATEGORY_NONE, "uncategorised");
    folds("uncategorised spend", LEDGER_CATEGORY_OK, "uncategorised_spend");
    folds("REFUND", LEDGER_CATEGORY_REFUND, "refund");
    ok(ledger_category_fold("Refunds", out) == LEDGER_CATEGORY_REFUND,
       "rule C: \"Refunds\" is a refund (its merchant's category), as \"refund\" is");
    ok(ledger_category_fold("  REFUNDS ", out) == LEDGER_CATEGORY_REFUND,
       "rule C: \"  REFUNDS \" is a refund too (case and spaces fold)");
    ok(ledger_category_fold("Fee", out) == LEDGER_CATEGORY_OK && strcmp(out, "fees") == 0,
       "the synonym fee folds to fees (etc/openapi.yaml: fee -> fees)");
    folds("Kids' Stuff", LEDGER_CATEGORY_OK, "kids_stuff");
    folds("Café", LEDGER_CATEGORY_OK, "caf\xc3\xa9");
    /* Case beyond ASCII folds too: one category however it is written. */
    folds("CAF\xc3\x89", LEDGER_CATEGORY_OK, "caf\xc3\xa9");                    /* CAFÉ */
    folds("\xc3\x89picerie Fine", LEDGER_CATEGORY_OK, "\xc3\xa9picerie_fine");  /* Épicerie */
    folds("\xc5\x81\xc3\x93" "D\xc5\xb9", LEDGER_CATEGORY_OK, "\xc5\x82\xc3\xb3" "d\xc5\xba"); /* ŁÓDŹ */
    folds("\xce\xa6\xce\x91\xce\x93\xce\x97\xce\xa4\xce\x9f", LEDGER_CATEGORY_OK,
          "\xcf\x86\xce\xb1\xce\xb3\xce\xb7\xcf\x84\xce\xbf");          /* ΦΑΓΗΤΟ */
    folds("\xd0\x95\xd0\x94\xd0\x90", LEDGER_CATEGORY_OK, "\xd0\xb5\xd0\xb4\xd0\xb0"); /* ЕДА */
    folds("\xd0\x81", LEDGER_CATEGORY_OK, "\xd1\x91");                          /* Ё */
    folds("\xc5\xb8", LEDGER_CATEGORY_OK, "\xc3\xbf");                          /* Ÿ */
    folds("\xc3\x97", LEDGER_CATEGORY_OK, "\xc3\x97");                          /* × has no case */
    folds("\xc4\xb0", LEDGER_CATEGORY_OK, "\xc4\xb0");                          /* İ: kept */
    folds("", LEDGER_CATEGORY_EMPTY, "");
    folds(" - ", LEDGER_CATEGORY_EMPTY, "");
    folds(NULL, LEDGER_CATEGORY_EMPTY, "");
    /* Unicode spaces part words; characters with no look are dropped. */
    folds("Dining\xc2\xa0Out", LEDGER_CATEGORY_OK, "dining_out");
    folds("Dining\xe3\x80\x80Out", LEDGER_CATEGORY_OK, "dining_out");
    folds("transfers\xe2\x80\x8b", LEDGER_CATEGORY_OK, "transfers");
    folds("\xef\xbb\xbf" "dining", LEDGER_CATEGORY_OK, "dining");
    folds("gro\xc2\xad" "ceries", LEDGER_CATEGORY_OK, "groceries");
    folds("\xe2\x80\x8e" "Caf\xc3\xa9\xe2\x80\x8f", LEDGER_CATEGORY_OK, "caf\xc3\xa9");
    folds("\xc2\xa0", LEDGER_CATEGORY_EMPTY, "");
    folds("\xe2\x80\x8b\xef\xbb\xbf", LEDGER_CATEGORY_EMPTY, "");
    folds("\xe6\x97\x85\xe8\xa1\x8c", LEDGER_CATEGORY_OK, "\xe6\x97\x85\xe8\xa1\x8c");

    for (i = 0; b[i]; i++) {
        n++;
        if (ledger_category_fold(b[i], out) != LEDGER_CATEGORY_OK || strcmp(out, b[i]) != 0)
            all_fold_to_self = 0;
    }
    is_int(n, 26, "26 built-in categories (22 at first release + 4 named later)");
    ok(all_fold_to_self, "every built-in category is already canonical");

    /* A long name is cut at the limit and never ends inside a UTF-8 character. */
    memset(longname, 'a', LEDGER_CATEGORY_MAX - 2);
    strcpy(longname + LEDGER_CATEGORY_MAX - 2, "\xc3\xa9\xc3\xa9 tail");
    ledger_category_fold(longname, out);
    ok(strlen(out) < LEDGER_CATEGORY_MAX && strlen(out) == LEDGER_CATEGORY_MAX - 2,
       "a name cut at the limit drops a split character (length %zu)", strlen(out));

    /* 125 letters, a space, then a two-byte character the limit cuts: the
     * '_' the space gave goes with it. */
    memset(longname, 'a', 125);
    strcpy(longname + 125, " \xc3\xa9\xc3\xa9");
    memset(want, 'a', 125);
    want[125] = '\0';
    ledger_category_fold(longname, out);
    is_str(out, want, "a name cut at the limit after a gap ends in a letter, not '_'");

    /* LEDGER_CATEGORY_MAX - 1 ASCII letters: the whole buffer but its NUL. */
    memset(longname, 'b', LEDGER_CATEGORY_MAX - 1);
    longname[LEDGER_CATEGORY_MAX - 1] = '\0';
    ok(ledger_category_fold(longname, out) == LEDGER_CATEGORY_OK && strcmp(out, longname) == 0,
       "a name of LEDGER_CATEGORY_MAX - 1 letters folds whole (length %zu)", strlen(out));
    return done_testing();
}
