/*
 * POST /api/statements/import: an OFX or QFX file as banks export it, one
 * statement per account in the file.
 *
 * Each row keeps the bank's FITID, and a row without one a FITID made from
 * what it says (plain_keys).  A row whose FITID the caller already has for
 * the same account is skipped (one without a FITID also when an account's
 * row imported before those were made says the same: SQL_SEEN_PLAIN), and
 * an account whose rows were all seen before creates no statement:
 * importing the same file twice creates nothing twice and says how many
 * rows it skipped.
 *
 * Amounts in the file are signed from the account holder's side (negative
 * is money out); rows store a magnitude and a type.  LEDGERBAL (else
 * AVAILBAL) is the closing balance; on a credit card or a loan (a line of
 * credit) it is negative when money is owed, and the ledger keeps what is
 * owed as a positive balance (rule E).
 * The file carries no opening balance, so none is invented and the
 * balance assertion stays open (balance_ok null) for imported statements.
 */
/* qsort_r (glibc) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ofx.h"

static const char SQL_SEEN[] =
    "SELECT 1 FROM transactions t JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND t.fitid = ?3 AND s.account_id = ?2";
/* A row without a FITID (OFX requires one; some banks leave it out)
 * imported before plain_keys stored one: known by what it says instead, an
 * earlier row of the account without one on the same date, of the same
 * amount, description and direction (its type the user may have changed
 * since, a debit to a fee: an audit found the row imported again). */
static const char SQL_SEEN_PLAIN[] =
    "SELECT 1 FROM transactions t JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND s.account_id = ?2 AND t.fitid IS NULL AND t.date = ?3"
    "   AND t.amount = ?4 AND t.description = ?6"
    "   AND (t.transaction_type IN ('debit', 'fee', 'interest'))"
    "       = (?5 IN ('debit', 'fee', 'interest')) LIMIT 1";
static const char SQL_SAME_STATEMENT[] =
    "SELECT 1 FROM statements WHERE owner_id = ?1 AND account_id = ?2"
    "   AND period_start IS ?3 AND period_end IS ?4";

static const char *row_type(const struct ofx_txn *t, int credit_card);

/* A row's description: its name and memo, or its type when it has
 * neither. */
static void row_description(const struct ofx_txn *t, char *desc, size_t size)
{
    if (t->memo[0] && strcmp(t->memo, t->name) != 0)
        snprintf(desc, size, "%s%s%s", t->name, t->name[0] ? " " : "", t->memo);
    else
        snprintf(desc, size, "%s", t->name[0] ? t->name : t->trntype);
}

static int seen_plain(ledger_db *db, int64_t me, const char *account, const struct ofx_txn *t,
                      int credit_card, int *yes, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_SEEN_PLAIN, err);
    char desc[800];
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    row_description(t, desc, sizeof desc);
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(st, 2, account);
    db_bind_text(st, 3, t->date);
    sqlite3_bind_int64(st, 4, t->amount < 0 ? -t->amount : t->amount);
    db_bind_text(st, 5, row_type(t, credit_card));
    db_bind_text(st, 6, desc);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    *yes = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "import");
}

static int seen(ledger_db *db, int64_t me, const char *account, const char *fitid, int *yes,
                ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_SEEN, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(st, 2, account);
    db_bind_text(st, 3, fitid);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    *yes = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "import");
}

/* The row's type from the OFX TRNTYPE and the sign of its amount. */
static const char *row_type(const struct ofx_txn *t, int credit_card)
{
    if (t->amount < 0) {
        if (strcmp(t->trntype, "FEE") == 0 || strcmp(t->trntype, "SRVCHG") == 0)
            return "fee";
        if (strcmp(t->trntype, "INT") == 0)
            return "interest";
        return "debit";
    }
    if (credit_card && strcmp(t->trntype, "PAYMENT") == 0)
        return "payment";
    return "credit";
}

static int by_fitid(const void *x, const void *y, void *ctx)
{
    const struct ofx_txn *t = ctx;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int c = strcmp(t[a].fitid, t[b].fitid);

    return c ? c : (a < b ? -1 : a > b);
}

/* Sets fresh[i] for every row but the later appearances of a FITID. */
static int mark_repeats(const struct ofx_account *a, char *fresh)
{
    size_t *idx = malloc((a->ntxns ? a->ntxns : 1) * sizeof *idx), i;

    if (idx == NULL)
        return -1;
    for (i = 0; i < a->ntxns; i++) {
        idx[i] = i;
        fresh[i] = 1;
    }
    qsort_r(idx, a->ntxns, sizeof *idx, by_fitid, (void *)a->txns);
    for (i = 1; i < a->ntxns; i++)
        if (a->txns[idx[i]].fitid[0]
            && strcmp(a->txns[idx[i]].fitid, a->txns[idx[i - 1]].fitid) == 0)
            fresh[idx[i]] = 0;
    free(idx);
    return 0;
}

/* The FITID of a row the bank gave none: a hash of what the row says
 * (date, OFX type, signed amount, description) and which of the file's
 * rows saying the same it is, "plain:<hash>.<n>".  A second import of
 * the file makes the same keys, however the user edited the rows since;
 * a later file with one more such row (two coffees, same day and price)
 * adds that one.  keys[i] is "" for a row with a FITID. */
#define PLAIN_KEY_SIZE 48

struct plain_hash {
    uint64_t h;
    size_t i;
};

static int by_plain_hash(const void *x, const void *y)
{
    const struct plain_hash *a = x, *b = y;

    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static int plain_keys(const struct ofx_account *a, char (*keys)[PLAIN_KEY_SIZE])
{
    struct plain_hash *v = malloc((a->ntxns ? a->ntxns : 1) * sizeof *v);
    size_t i, n = 0, nth = 0;

    if (v == NULL)
        return -1;
    for (i = 0; i < a->ntxns; i++) {
        const struct ofx_txn *t = &a->txns[i];
        char desc[800], amount[32];
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        keys[i][0] = '\0';
        if (t->fitid[0])
            continue;
        row_description(t, desc, sizeof desc);
        snprintf(amount, sizeof amount, "%lld", (long long)t->amount);
        /* Each field ends with a byte no field holds. */
        h = fnv1a(h, t->date, strlen(t->date) + 1);
        h = fnv1a(h, t->trntype, strlen(t->trntype) + 1);
        h = fnv1a(h, amount, strlen(amount) + 1);
        h = fnv1a(h, desc, strlen(desc) + 1);
        v[n].h = h;
        v[n++].i = i;
    }
    qsort(v, n, sizeof *v, by_plain_hash);
    for (i = 0; i < n; i++) {
        nth = i > 0 && v[i].h == v[i - 1].h ? nth + 1 : 1;
        snprintf(keys[v[i].i], PLAIN_KEY_SIZE, "plain:%016llx.%zu", (unsigned long long)v[i].h, nth);
    }
    free(v);
    return 0;
}

static void min_max_dates(const struct ofx_account *a, char *from, char *to)
{
    size_t i;

    snprintf(from, 11, "%s", a->start);
    snprintf(to, 11, "%s", a->end);
    for (i = 0; i < a->ntxns; i++) {
        if (from[0] == '\0' || strcmp(a->txns[i].date, from) < 0)
            snprintf(from, 11, "%s", a->txns[i].date);
        if (to[0] == '\0' || strcmp(a->txns[i].date, to) > 0)
            snprintf(to, 11, "%s", a->txns[i].date);
    }
    if (from[0] == '\0') {
        date_today(from);
        snprintf(to, 11, "%s", from);
    }
    if (strcmp(from, to) > 0)
        snprintf(to, 11, "%s", from);
}

/* Imports one account; adds what it created to `created`. */
static int import_account(ledger_db *db, int64_t me, const struct ofx_doc *doc,
                          const struct ofx_account *a, cJSON *created, int64_t *imported,
                          int64_t *skipped, ledger_error *err)
{
    struct statement_fields f;
    char account_id[160], name[80], from[11], to[11], *fresh, (*keys)[PLAIN_KEY_SIZE] = NULL;
    int result = LEDGER_ERR;
    size_t i, n_new = 0, len = strlen(a->acct_id), tail, chars;
    int64_t id;
    int dup;

    memset(&f, 0, sizeof f);
    snprintf(account_id, sizeof account_id, "%s:%s", a->bank_id, a->acct_id);
    /* Which rows are new, before anything is written. */
    fresh = calloc(a->ntxns ? a->ntxns : 1, 1);
    if (fresh == NULL)
        goto oom;
    /* A FITID repeated inside the file is one row: all but its first
     * appearance are marked, found by sorting rather than comparing each
     * row with every other. */
    if (mark_repeats(a, fresh)
        || (keys = malloc((a->ntxns ? a->ntxns : 1) * sizeof *keys)) == NULL
        || plain_keys(a, keys))
        goto oom;
    for (i = 0; i < a->ntxns; i++) {
        dup = !fresh[i];
        if (!dup && (a->txns[i].fitid[0]
                     ? seen(db, me, account_id, a->txns[i].fitid, &dup, err)
                     : seen(db, me, account_id, keys[i], &dup, err)
                       || (!dup && seen_plain(db, me, account_id, &a->txns[i], a->credit_card,
                                              &dup, err))))
            goto out;
        fresh[i] = !dup;
        n_new += !dup;
        *skipped += dup;
    }
    min_max_dates(a, from, to);
    if (n_new == 0) {
        sqlite3_stmt *st;
        int rc;

        /* Nothing new: a statement only when this period is new too. */
        if (a->ntxns > 0)
            goto done;
        if ((st = db_stmt(db, SQL_SAME_STATEMENT, err)) == NULL)
            goto out;
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(st, 2, account_id);
        db_bind_text(st, 3, from);
        db_bind_text(st, 4, to);
        rc = sqlite3_step(st);
        db_stmt_done(st);
        if (rc == SQLITE_ROW)
            goto done;
    }
    /* The account's last four characters (not bytes: the id is UTF-8). */
    for (tail = len, chars = 0; tail > 0 && chars < 4; tail--)
        chars += ((unsigned char)a->acct_id[tail - 1] & 0xC0) != 0x80;
    snprintf(name, sizeof name, "%s%s", tail > 0 ? "..." : "", a->acct_id + tail);
    /* The bank as the file names it; not "Manual", the manual rows' name
     * in the list's bank_names[] filter. */
    f.bank_name = doc->org[0] && strcmp(doc->org, LEDGER_BANK_MANUAL) != 0 ? doc->org
                  : a->bank_id[0] && strcmp(a->bank_id, LEDGER_BANK_MANUAL) != 0 ? a->bank_id
                  : "Imported";
    f.account_name = name;
    f.account_type = a->credit_card ? "CREDITCARD" : a->acct_type[0] ? a->acct_type : "OTHER";
    f.statement_type = a->credit_card ? "credit_card" : statement_type_from_text(f.account_type);
    f.period_start = from;
    f.period_end = to;
    f.account_id = account_id;
    if (a->has_ledger_balance || a->has_available_balance) {
        int64_t bal = a->has_ledger_balance ? a->ledger_balance : a->available_balance;

        f.has_closing = 1;
        f.closing = strcmp(f.statement_type, "credit_card") == 0
                    || strcmp(f.statement_type, "loan") == 0 ? -bal : bal;
    }
    if (statement_insert(db, me, &f, &id, err))
        goto out;
    for (i = 0; i < a->ntxns; i++) {
        const struct ofx_txn *t = &a->txns[i];
        struct statement_row r;
        char desc[800];

        if (!fresh[i])
            continue;
        memset(&r, 0, sizeof r);
        row_description(t, desc, sizeof desc);
        r.date = t->date;
        r.description = desc;
        r.merchant = t->name[0] ? t->name : NULL;
        r.type = row_type(t, a->credit_card);
        /* A card payment is a transfer between the owner's accounts. */
        r.category = strcmp(r.type, "payment") == 0 ? "transfers" : NULL;
        r.amount = t->amount < 0 ? -t->amount : t->amount;
        r.currency = t->currency[0] ? t->currency : a->currency[0] ? a->currency : NULL;
        r.fitid = t->fitid[0] ? t->fitid : keys[i];
        /* A row in another currency with a rate to the account's: the
         * home-currency amount when the account is in the home currency. */
        if (t->currency[0] && t->currate[0]
            && strcmp(a->currency[0] ? a->currency : ledger_home_currency(db), ledger_home_currency(db)) == 0
            && money_times_rate(r.amount, t->currate, &r.amount_aud) == 0) {
            r.has_amount_aud = 1;
            r.rate = t->currate;
        }
        if (statement_row_insert(db, me, id, &r, err))
            goto out;
        ++*imported;
    }
    {
        cJSON *s = NULL;

        if (statement_get(db, me, id, &s, err))
            goto out;
        cJSON_AddItemToArray(created, s);
    }
done:
    result = LEDGER_OK;
    goto out;
oom:
    ledger_error_set(err, 500, "internal", NULL, "out of memory");
out:
    free(fresh);
    free(keys);
    return result;
}

int ledger_statement_import(ledger_db *db, int64_t me, const char *buf, size_t len,
                            cJSON **out, int *created, ledger_error *err)
{
    struct ofx_doc doc;
    cJSON *doc_out, *list;
    int64_t imported = 0, skipped = 0;
    size_t i;

    *created = 0;
    if (len == 0)
        return ledger_error_set(err, 400, "invalid_field", "file",
                                "the body must be an OFX or QFX file");
    if (ofx_parse(buf, len, &doc, err))
        return LEDGER_ERR;
    doc_out = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(doc_out, "statements");
    for (i = 0; i < doc.naccounts; i++)
        if (import_account(db, me, &doc, &doc.accounts[i], list, &imported, &skipped, err)) {
            ofx_doc_free(&doc);
            cJSON_Delete(doc_out);
            return LEDGER_ERR;
        }
    ofx_doc_free(&doc);
    cJSON_AddNumberToObject(doc_out, "imported", (double)imported);
    cJSON_AddNumberToObject(doc_out, "skipped_duplicates", (double)skipped);
    *created = cJSON_GetArraySize(list) > 0;
    *out = doc_out;
    return LEDGER_OK;
}
