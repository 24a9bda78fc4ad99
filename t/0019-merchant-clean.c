/*
 * The merchant cleaner (lib/merchant_clean.c) on raw bank text published
 * in public exports, the merchant a new row without one gets, the user's
 * own name winning, the merchant run and its revert; and a floor on the
 * labeled corpus under t/data/merchants, so that a change of the patterns
 * that names fewer merchants right fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "merchant_clean.h"
#include "sqltest.h"
#include "tap.h"

/* The corpus floor: the share of the corpus's pairs the cleaner names
 * right (contrib/bench/merchant-eval prints it per source), in percent,
 * a little under what it scores, so that only a regression fails. */
#define CORPUS_FLOOR 80

static const struct {
    const char *raw, *want;
} CASES[] = {
    /* Issue #31's example. */
    { "SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA", "Blue Bottle Coffee" },
    /* Mint "Original Description" beside "Description" (ledger-autosync fixtures/mint.csv). */
    { "AMAZON MKTPLACE PMTS AMZN.COM/BILL WA", "Amazon" },
    /* Mint exports quoted in public importer tests. */
    { "SQ *ROOSTERCAT COFFEE HOU", "Roostercat Coffee Hou" },
    { "KING SOOPERS #11", "King Soopers" },
    { "SAFEWAY.COM # 3031", "Safeway" },
    { "STARBUCKS STORE 12345", "Starbucks" },
    { "VISA PURCHASE 315798 TRADER JOE'S # 107 PETALUMA CA USA94954 2014-08-31 21.55.31", "Trader Joe's" },
    /* Wells Fargo's "PURCHASE AUTHORIZED ON" lines. */
    { "PURCHASE AUTHORIZED ON 01/30 HEB #999 HOUSTON TX S1234567890 CARD 7865", "HEB" },
    { "PURCHASE AUTHORIZED ON 08/02 NETFLIX.COM CA S586214", "Netflix" },
    { "PURCHASE AUTHORIZED ON 10/01 CHIPOTLE 1234 OAKLAND CA S386274000000000 CARD 1234", "Chipotle" },
    /* Card-processor and wallet prefixes, phone numbers, legal forms. */
    { "PAYPAL *NETFLIX.COM 402-935-7733 CA", "Netflix" },
    { "APPLE.COM/BILL 866-712-7753 CA", "Apple" },
    { "TST* SWEETGREEN 123", "Sweetgreen" },
    { "Check Card: STARBUCKS STORE 05828 SEATTLE WA", "Starbucks" },
    { "VISA DEBIT PURCHASE CARD 1234 WOOLWORTHS 1234 SYDNEY NSW", "Woolworths" },
    { "EFTPOS COLES 0456 MELBOURNE AU", "Coles" },
    { "ACME WIDGETS LLC", "Acme Widgets" },
    { "BLUE BOTTLE COFFEE INC", "Blue Bottle Coffee" },
    /* Fixed-width padding before the location. */
    { "SHELL OIL 57444     HOUSTON      TX", "Shell Oil" },
    /* Case beyond ASCII: the first letter kept, the rest lowered. */
    { "BOULANGERIE \xc3\x89TIENNE", "Boulangerie \xc3\x89tienne" },
    { "Caf\xc3\xa9 de Flore", "Caf\xc3\xa9 de Flore" },
    /* A brand's own spelling is kept. */
    { "iTunes Store", "iTunes Store" },
    /* International descriptors, payment words, a brand's service. */
    { "Spotify P0D1234ABC Stockholm SE", "Spotify" },
    { "PAYPAL *SPOTIFY 35314369001 SE", "Spotify" },
    { "ORIGIN ENERGY DIRECT DEBIT", "Origin Energy" },
    { "TELSTRA BPAY", "Telstra" },
    { "UBER *EATS PENDING", "Uber Eats" },
    /* Plaid's sandbox: Plaid's merchant_name beside the raw name. */
    { "Uber 063015 SF**POOL**", "Uber" },
    /* Plaid's API documentation: original_description beside merchant_name.
     * A chain's descriptor behind the bank's prefix; a URL cut short. */
    { "PURCHASE WM SUPERCENTER #1700", "Walmart" },
    { "INSTACART HTTPSINSTACAR CA", "Instacart" },
    /* Monarch's "Original Statement" beside "Merchant". */
    { "IN *COASTAL CHILD CARE LL757-8033543  NC", "Coastal Child Care" },
    { "TARGET DEBIT CRD ACH TRAN   ***********2597", "Target" },
    { "Kindle Svcs*NH00P9HF1    888-802-3080 WA", "Kindle Svcs" },
    { "7-ELEVEN 26611           VIRGINIA BEACVA", "7-Eleven" },
};

static int corpus_score(struct merchant_cleaner *c, long *n, long *right)
{
    const char *srcdir = getenv("LEDGER_SRCDIR");
    static const char *const files[] = { "plaid.tsv" };
    char path[1024], line[1024];
    size_t i;

    *n = *right = 0;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f;

        snprintf(path, sizeof path, "%s/t/data/merchants/%s", srcdir ? srcdir : "..", files[i]);
        if ((f = fopen(path, "r")) == NULL)
            return -1;
        while (fgets(line, sizeof line, f)) {
            char *raw, *label, *end, name[MERCHANT_CLEAN_MAX], a[MERCHANT_CLEAN_MAX], b[MERCHANT_CLEAN_MAX];

            line[strcspn(line, "\r\n")] = '\0';
            if (line[0] == '#' || (raw = strchr(line, '\t')) == NULL
                || (label = strchr(++raw, '\t')) == NULL)
                continue;
            *label++ = '\0';
            if ((end = strchr(label, '\t')))
                *end = '\0';
            (*n)++;
            if (merchant_clean(c, raw, name, a) == 1) {
                merchant_key(label, b);
                *right += strcmp(a, b) == 0;
            }
        }
        fclose(f);
    }
    return 0;
}

static ledger_db *db;

static cJSON *call(int (*fn)(ledger_db *, int64_t, const cJSON *, cJSON **, ledger_error *),
                   int64_t me, const char *json)
{
    cJSON *body = NULL, *out = NULL;
    ledger_error err;

    ledger_error_clear(&err);
    if (ledger_json_parse(json, strlen(json), &body, &err) != LEDGER_OK
        || fn(db, me, body, &out, &err) != LEDGER_OK)
        printf("# %s: %s\n", json, err.message);
    cJSON_Delete(body);
    return out;
}

static int64_t create(int64_t me, const char *description)
{
    char json[512];
    cJSON *out;
    int64_t id = 0;

    snprintf(json, sizeof json, "{\"date\":\"2026-03-01\",\"amount\":4.5,\"description\":\"%s\"}",
             description);
    if ((out = call(ledger_txn_create, me, json)))
        id = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
    cJSON_Delete(out);
    return id;
}

static const char *eff_merchant(int64_t id)
{
    static char buf[256];
    char sql[128];
    sqlite3_stmt *st;

    buf[0] = '\0';
    snprintf(sql, sizeof sql, "SELECT eff_merchant FROM transactions WHERE id = %lld", (long long)id);
    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return buf;
}

static void rows_in_a_ledger(void)
{
    ledger_error err;
    int64_t me = 0, other = 0, a, b, c, d, run_id;
    cJSON *out = NULL, *patch;
    char sql[256];

    ok(ledger_open(":memory:", &db, &err) == LEDGER_OK, "an in-memory database");
    ledger_user_resolve(db, "ana", "ana@example.org", NULL, &me, &err);
    ledger_user_resolve(db, "bo", "bo@example.org", NULL, &other, &err);

    a = create(me, "SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA");
    is_str(eff_merchant(a), "Blue Bottle Coffee", "a manual row without a merchant gets one from its description");
    is_int(sql_int(db, "SELECT description = 'SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA'"
                       " AND merchant IS NULL FROM transactions WHERE id = 1"), 1,
           "the raw text stays in description; merchant (the bank's) stays empty");

    /* The user renames it: later rows of the same merchant follow. */
    {
        static const char rename[] = "{\"merchant_normalized\":\"Blue Bottle\"}";

        patch = NULL;
        ledger_json_parse(rename, strlen(rename), &patch, &err);
        ok(ledger_txn_update(db, me, a, patch, &out, &err) == LEDGER_OK, "the user renames the merchant: %s",
           err.message);
    }
    cJSON_Delete(patch);
    cJSON_Delete(out);
    b = create(me, "SQ *BLUE BOTTLE COFFEE 0456 OAKLAND CA");
    is_str(eff_merchant(b), "Blue Bottle", "a new row of the same merchant takes the user's name");
    c = create(other, "SQ *BLUE BOTTLE COFFEE 0456 OAKLAND CA");
    is_str(eff_merchant(c), "Blue Bottle Coffee", "another user's name is not used");

    /* Rows without a merchant (written before the cleaner) get one by a run, which reverts. */
    sql_exec(db, "UPDATE transactions SET merchant_normalized = NULL");
    snprintf(sql, sizeof sql, "SELECT eff_merchant = '' FROM transactions WHERE id = %lld", (long long)c);
    is_int(sql_int(db, sql), 1, "a row without merchant");
    d = create(me, "12345 0000");
    out = NULL;
    ok(ledger_merchant_run(db, other, &out, &err) == LEDGER_OK, "a merchant run");
    is_int(cJSON_GetObjectItem(out, "transactions")->valueint, 1, "it names the caller's rows only");
    run_id = (int64_t)cJSON_GetObjectItem(out, "run_id")->valuedouble;
    is_str(cJSON_GetObjectItem(out, "rule_name")->valuestring, "Merchant cleaner", "recorded as a run");
    cJSON_Delete(out);
    is_str(eff_merchant(c), "Blue Bottle Coffee", "the run named it");
    is_str(eff_merchant(a), "Blue Bottle", "the other user's override is as it was");
    out = NULL;
    ok(ledger_rule_revert(db, other, run_id, &out, &err) == LEDGER_OK, "the run reverts");
    cJSON_Delete(out);
    is_str(eff_merchant(c), "", "the revert takes the merchant away again");
    out = NULL;
    ok(ledger_merchant_run(db, me, &out, &err) == LEDGER_OK, "the owner's run");
    is_int(cJSON_GetObjectItem(out, "transactions")->valueint, 2,
           "the renamed row gets its cleaned name under the override; text with no merchant, none");
    cJSON_Delete(out);
    is_str(eff_merchant(b), "Blue Bottle", "and the user's name wins over the cleaned one");
    is_str(eff_merchant(d), "", "text with no merchant in it gets none");
    out = NULL;
    ok(ledger_merchant_run(db, me, &out, &err) == LEDGER_OK && cJSON_IsNull(cJSON_GetObjectItem(out, "run_id")),
       "a second run finds nothing and records no run");
    cJSON_Delete(out);
    ledger_close(db);
}

/* The JIT-compiled patterns (ledger-fcgi's) name every
 * case as the interpreter does.  Not under valgrind, which cannot follow
 * JIT code (LEDGER_VALGRIND is set by make check-valgrind). */
static void jit_agrees(struct merchant_cleaner *c)
{
    struct merchant_cleaner *jit;
    char name[MERCHANT_CLEAN_MAX], key[MERCHANT_CLEAN_MAX];
    char jname[MERCHANT_CLEAN_MAX], jkey[MERCHANT_CLEAN_MAX];
    size_t i, same = 0;

    if (getenv("LEDGER_VALGRIND")) {
        skip(1, "JIT code under valgrind");
        return;
    }
    jit = merchant_cleaner_new(1);
    for (i = 0; jit && i < sizeof CASES / sizeof CASES[0]; i++) {
        int found = merchant_clean(c, CASES[i].raw, name, key);

        same += merchant_clean(jit, CASES[i].raw, jname, jkey) == found && strcmp(name, jname) == 0
                && strcmp(key, jkey) == 0;
    }
    ok(jit != NULL && same == sizeof CASES / sizeof CASES[0],
       "JIT-compiled, the patterns name all %zu cases alike (%zu did)", sizeof CASES / sizeof CASES[0],
       same);
    merchant_cleaner_free(jit);
}

int main(void)
{
    struct merchant_cleaner *c = merchant_cleaner_new(0);
    char name[MERCHANT_CLEAN_MAX], key[MERCHANT_CLEAN_MAX];
    long n = 0, right = 0;
    size_t i;

    ok(c != NULL, "the patterns compile");
    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        merchant_clean(c, CASES[i].raw, name, key);
        is_str(name, CASES[i].want, "%s", CASES[i].raw);
    }
    merchant_clean(c, "SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA", name, key);
    is_str(key, "bluebottlecoffee", "the key: lower case, letters and digits");
    is_int(merchant_clean(c, "12/03 4521 XXXX1234", name, key), 0, "numbers alone name no merchant");
    is_int(merchant_clean(c, "", name, key), 0, "nor does empty text");
    {
        char big[4096];

        memset(big, 'A', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        ok(merchant_clean(c, big, name, key) == 1 && strlen(name) < MERCHANT_CLEAN_MAX,
           "text longer than the room is cut, not overrun");
    }
    {
        int read = corpus_score(c, &n, &right);

        ok(read == 0 && n >= 13, "the labeled corpus is there (%ld pairs)", n);
    }
    ok(n > 0 && right * 100 >= CORPUS_FLOOR * n, "the corpus floor: %ld of %ld right (floor %d%%)", right, n,
       CORPUS_FLOOR);
    jit_agrees(c);
    merchant_cleaner_free(c);
    rows_in_a_ledger();
    return done_testing();
}
