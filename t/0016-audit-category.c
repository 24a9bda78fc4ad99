/* Category folding edges a hand mutation audit of category.c broke with the
 * suite green (Business rule C and ledger_category_fold's promises in
 * ledger.h): "refunds" is a refund as "refund" is; "fee" is "fees"; a name cut at the
 * limit never ends in a '_' left from the gap before a dropped character;
 * a folded name uses the whole of LEDGER_CATEGORY_MAX but its NUL. */
#include "ledger.h"
#include "tap.h"

int main(void)
{
    char in[300], out[LEDGER_CATEGORY_MAX], want[300];

    ok(ledger_category_fold("Refunds", out) == LEDGER_CATEGORY_REFUND,
       "rule C: \"Refunds\" is a refund (its merchant's category), as \"refund\" is");
    ok(ledger_category_fold("  REFUNDS ", out) == LEDGER_CATEGORY_REFUND,
       "rule C: \"  REFUNDS \" is a refund too (case and spaces fold)");

    ok(ledger_category_fold("Fee", out) == LEDGER_CATEGORY_OK && strcmp(out, "fees") == 0,
       "the synonym fee folds to fees (etc/openapi.yaml: fee -> fees)");

    /* 125 letters, a space, then a two-byte character the limit cuts: the
     * '_' the space gave goes with it. */
    memset(in, 'a', 125);
    strcpy(in + 125, " \xc3\xa9\xc3\xa9");
    memset(want, 'a', 125);
    want[125] = '\0';
    ledger_category_fold(in, out);
    is_str(out, want, "a name cut at the limit after a gap ends in a letter, not '_'");

    /* 127 ASCII letters: exactly LEDGER_CATEGORY_MAX - 1 bytes, kept whole. */
    memset(in, 'b', LEDGER_CATEGORY_MAX - 1);
    in[LEDGER_CATEGORY_MAX - 1] = '\0';
    ok(ledger_category_fold(in, out) == LEDGER_CATEGORY_OK && strcmp(out, in) == 0,
       "a name of LEDGER_CATEGORY_MAX - 1 letters folds whole (length %zu)", strlen(out));
    return done_testing();
}
