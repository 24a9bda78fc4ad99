/*
 * POST /api/statements/import: an OFX, QFX, QIF or CAMT.053 file as banks
 * export it, one statement per account in the file.  The QIF and CAMT.053
 * readers fill the OFX reader's document (qif.h, camt.h), so every format
 * is keyed, deduplicated and written alike.
 *
 * Each row keeps the bank's FITID, and a row without one a FITID made from
 * what it says (row_keys; so does a row whose FITID an earlier row of the
 * file has but which says something else).  A row whose FITID the caller
 * already has for the same account is skipped (one without a FITID also
 * when an account's row imported before those were made says the same:
 * SQL_SEEN_PLAIN), and an account whose rows were all seen before creates
 * no statement: importing the same file twice creates nothing twice and
 * says how many rows it skipped.
 *
 * Amounts in the file are signed from the account holder's side (negative
 * is money out); rows store a magnitude and a type.  LEDGERBAL (else
 * AVAILBAL) is the closing balance; on a credit card or a loan (a line of
 * credit) it is negative when money is owed, and the ledger keeps what is
 * owed as a positive balance (rule E).
 * An OFX file carries no opening balance, so none is invented and the
 * balance assertion stays open (balance_ok null); a CAMT.053 statement's
 * OPBD is its opening balance, and the assertion is made.
 * The answer's warnings are the reader's (ofx.h): every value it dropped.
 */
/* qsort_r (glibc) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "suggest.h"
#include "fields.h"
#include "txn.h"
#include "statement.h"
#include "spend.h"
#include "ofx.h"
#include "qif.h"
#include "camt.h"
#include "job.h"

/* The account a statement was imported from.  An account with a BANKID
 * is "<BANKID>:<ACCTID>"; a credit card has none, and its ACCTID is often
 * masked ("XXXX1111") and its FITIDs short, so two banks' cards would meet
 * as one account and the second bank's rows be skipped as seen: it is
 * "fi:<FID>/<ORG>:<ACCTID>" when the file names its bank.  A statement
 * keyed ":<ACCTID>", the older key, is that account still when it has the
 * bank name an import of the file gives it. */
struct account_key {
    char id[256];
    char legacy[80];     /* ":<ACCTID>", or "" */
    const char *bank_name;
};

/* An account_key's legacy key for a statement's parameter: NULL when none. */
#define LEGACY(k) ((k)->legacy[0] ? (k)->legacy : NULL)
#define SAME_ACCOUNT(s, id, legacy, bank) \
    "(" s ".account_id = " id " OR (" s ".account_id = " legacy " AND " s ".bank_name = " bank "))"

/* The rows of the account with this FITID, and whether one of them is of
 * the amount (?6) and direction (?7: money out) given: the direction its
 * file gave (transactions.fitid_out), not its type, which the user may have
 * corrected since (a corrected row is not to be imported again, file
 * after file; a row imported before 0026 by its type); or the direction the
 * user corrected it to, on the same date (?8) with the same text (?9): the
 * bank sending the row again with its sign put right (a re-check). */
static const char SQL_SEEN[] =
    "SELECT COUNT(*), COALESCE(MAX(t.amount = ?6"
    "    AND (COALESCE(t.fitid_out, t.transaction_type IN " MONEY_OUT_TYPES_SQL ") = ?7"
    "         OR ((t.transaction_type IN " MONEY_OUT_TYPES_SQL ") = ?7"
    "             AND t.date = ?8 AND t.description = ?9))), 0)"
    "  FROM transactions t JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND t.fitid = ?3 AND " SAME_ACCOUNT("s", "?2", "?4", "?5");
/* A row without a FITID (OFX requires one; some banks leave it out)
 * imported before KEY_PLAIN keys were stored: known by what it says instead, an
 * earlier row of the account without one on the same date, of the same
 * amount, description and direction (its type the user may have changed
 * since, a debit to a fee, and the row is not to be imported again). */
static const char SQL_SEEN_PLAIN[] =
    "SELECT 1 FROM transactions t JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND " SAME_ACCOUNT("s", "?2", "?7", "?8")
    "   AND t.fitid IS NULL AND t.date = ?3"
    "   AND t.amount = ?4 AND t.description = ?6"
    "   AND (t.transaction_type IN " MONEY_OUT_TYPES_SQL ")"
    "       = (?5 IN " MONEY_OUT_TYPES_SQL ") LIMIT 1";
static const char SQL_SAME_STATEMENT[] =
    "SELECT 1 FROM statements s WHERE owner_id = ?1 AND " SAME_ACCOUNT("s", "?2", "?5", "?6")
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

/* The merchant a NAME gives: cut at a character to the MERCHANT_MAX bytes
 * a merchant may have (a longer one would be listed by the merchant
 * reports and refused by a merchant's history); the description keeps
 * the whole NAME. */
static const char *row_merchant(const struct ofx_txn *t, char *buf, size_t size)
{
    size_t n = strlen(t->name);

    if (t->name[0] == '\0')
        return NULL;
    if (n > MERCHANT_MAX) {
        n = MERCHANT_MAX;
        while (n > 0 && ((unsigned char)t->name[n] & 0xC0) == 0x80)
            n--;  /* not inside a character */
    }
    snprintf(buf, size, "%.*s", (int)n, t->name);
    return buf;
}

/* desc is t's description (row_description). */
static int seen_plain(ledger_db *db, int64_t me, const struct account_key *account,
                      const struct ofx_txn *t, const char *desc, int credit_card, int *yes,
                      ledger_error *err)
{
    return db_exists(db, err, "import", yes, SQL_SEEN_PLAIN, DB_INT(me), DB_TEXT(account->id),
                     DB_TEXT(t->date), DB_INT(t->amount < 0 ? -t->amount : t->amount),
                     DB_TEXT(row_type(t, credit_card)), DB_TEXT(desc), DB_TEXT(LEGACY(account)),
                     DB_TEXT(account->bank_name));
}

/* Whether the account has a row under this key (*yes), and one of t's
 * amount and direction (*same); desc is t's description. */
static int seen(ledger_db *db, int64_t me, const struct account_key *account, const char *fitid,
                const struct ofx_txn *t, const char *desc, int *yes, int *same, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_SEEN, err);
    int rc = SQLITE_ERROR;

    if (st == NULL)
        return LEDGER_ERR;
    if (db_bind_args(db, st, DB_ARGV(DB_INT(me), DB_TEXT(account->id), DB_TEXT(fitid),
                                     DB_TEXT(LEGACY(account)), DB_TEXT(account->bank_name),
                                     DB_INT(t->amount < 0 ? -t->amount : t->amount),
                                     DB_INT(t->amount < 0), DB_TEXT(t->date), DB_TEXT(desc))) == 0)
        rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    *same = rc == SQLITE_ROW && sqlite3_column_int(st, 1);
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "import");
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

/* The key the ledger keeps for a row as its FITID, and by which a second
 * import knows it:
 *   KEY_FITID   the bank's FITID;
 *   KEY_PLAIN   a row the bank gave none: "plain:<hash>.<n>", a hash of
 *               what the row says (date, OFX type, signed amount,
 *               description) and which of the file's rows saying the same
 *               it is.  A second import of the file makes the same keys,
 *               however the user edited the rows since; a later file with
 *               one more such row (two coffees, same day and price) adds
 *               that one;
 *   KEY_REUSED  a row whose FITID an earlier row of the file has, saying
 *               something else: "<FITID>#<hash>".  FITIDs are meant to be
 *               unique, but some banks give two purchases one, and the
 *               second is not a repeat of the first to drop (a debit would
 *               be lost from its statement);
 *   KEY_REPEAT  a row saying what an earlier row of the file with its
 *               FITID says: the one row listed twice, not imported.
 * The earliest row of a FITID keeps it bare, so files imported before
 * KEY_REUSED existed are still known. */
enum key_kind { KEY_FITID, KEY_PLAIN, KEY_REUSED, KEY_REPEAT };

struct row_key {
    uint64_t h;          /* what the row says */
    size_t nth;          /* KEY_PLAIN: which row saying it */
    enum key_kind kind;
};

#define KEY_TEXT_SIZE (sizeof ((struct ofx_txn *)0)->fitid + 24)

static uint64_t row_hash(const struct ofx_txn *t)
{
    char desc[800], amount[32];
    uint64_t h = HASH_START;

    row_description(t, desc, sizeof desc);
    snprintf(amount, sizeof amount, "%lld", (long long)t->amount);
    /* Each field ends with a byte no field holds. */
    h = hash_bytes(h, t->date, strlen(t->date) + 1);
    h = hash_bytes(h, t->trntype, strlen(t->trntype) + 1);
    h = hash_bytes(h, amount, strlen(amount) + 1);
    return hash_bytes(h, desc, strlen(desc) + 1);
}

/* Sorts row indexes by FITID, then what the rows say, then place in the
 * file. */
struct key_sort {
    const struct ofx_account *a;
    const struct row_key *keys;
};

static int by_key(const void *x, const void *y, void *ctx)
{
    const struct key_sort *ks = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(ks->a->txns[i].fitid, ks->a->txns[j].fitid);

    if (c)
        return c;
    if (ks->keys[i].h != ks->keys[j].h)
        return ks->keys[i].h < ks->keys[j].h ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The text of row i's key, in buf (KEY_TEXT_SIZE bytes) when made. */
static const char *key_text(const struct ofx_account *a, const struct row_key *keys, size_t i,
                            char *buf)
{
    const struct row_key *k = &keys[i];

    if (k->kind == KEY_PLAIN)
        snprintf(buf, KEY_TEXT_SIZE, "plain:%016llx.%zu", (unsigned long long)k->h, k->nth);
    else if (k->kind == KEY_REUSED)
        snprintf(buf, KEY_TEXT_SIZE, "%s#%016llx", a->txns[i].fitid, (unsigned long long)k->h);
    else
        return a->txns[i].fitid;
    return buf;
}

/* Every row's key, found by sorting rather than comparing each row with
 * every other; -1 when out of memory. */
static int row_keys(const struct ofx_account *a, struct row_key *keys)
{
    struct key_sort ks = { a, keys };
    size_t *idx = malloc((a->ntxns ? a->ntxns : 1) * sizeof *idx), i, g, e, first;

    if (idx == NULL)
        return -1;
    for (i = 0; i < a->ntxns; i++) {
        idx[i] = i;
        keys[i].h = row_hash(&a->txns[i]);
        keys[i].nth = 0;
        keys[i].kind = a->txns[i].fitid[0] ? KEY_FITID : KEY_PLAIN;
    }
    /* Sorted, the rows without a FITID come first (""), by what they say
     * and then in file order: the nth of a run saying the same is n. */
    qsort_r(idx, a->ntxns, sizeof *idx, by_key, &ks);
    for (g = 0; g < a->ntxns; g = e) {
        const char *fitid = a->txns[idx[g]].fitid;

        for (e = g + 1; e < a->ntxns && strcmp(a->txns[idx[e]].fitid, fitid) == 0; e++)
            ;
        if (fitid[0] == '\0') {
            for (i = g; i < e; i++)
                keys[idx[i]].nth = i > g && keys[idx[i]].h == keys[idx[i - 1]].h
                                   ? keys[idx[i - 1]].nth + 1 : 1;
            continue;
        }
        /* One FITID: its earliest row keeps it; of the others, the first
         * of those saying something new is KEY_REUSED, the rest repeats. */
        for (first = idx[g], i = g + 1; i < e; i++)
            if (idx[i] < first)
                first = idx[i];
        for (i = g; i < e; i++) {
            if (i > g && keys[idx[i]].h == keys[idx[i - 1]].h)
                keys[idx[i]].kind = KEY_REPEAT;
            else if (idx[i] != first)
                keys[idx[i]].kind = KEY_REUSED;
        }
    }
    free(idx);
    return 0;
}

/* The statement's period: its list's DTSTART and DTEND, widened to its
 * rows; without those, the date of its balance, else the file's DTSERVER.
 * Never the clock: the same file imported again gives the same period. */
static int min_max_dates(const struct ofx_doc *doc, const struct ofx_account *a, char *from,
                         char *to, ledger_error *err)
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
    if (from[0] == '\0' && to[0] != '\0')
        snprintf(from, 11, "%s", to);
    if (from[0] == '\0')
        snprintf(from, 11, "%s", a->ledger_balance_date[0] ? a->ledger_balance_date
                 : a->available_balance_date[0] ? a->available_balance_date : doc->server_date);
    if (from[0] == '\0')
        return error_field(err, "file", "line %d: <%s> has no transactions and the file gives "
                           "no date for its period (DTSTART, DTEND, DTASOF or DTSERVER)",
                           a->line, a->credit_card ? "CCSTMTRS" : "STMTRS");
    if (to[0] == '\0' || strcmp(from, to) > 0)
        snprintf(to, 11, "%s", from);
    return LEDGER_OK;
}

/* The account a's statement is kept under (struct account_key). */
static void account_key_of(const struct ofx_doc *doc, const struct ofx_account *a,
                           struct account_key *k)
{
    /* The bank as the file names it; not "Manual", the manual rows' name
     * in the list's bank_names[] filter. */
    k->bank_name = doc->org[0] && strcmp(doc->org, LEDGER_BANK_MANUAL) != 0 ? doc->org
                   : a->bank_id[0] && strcmp(a->bank_id, LEDGER_BANK_MANUAL) != 0 ? a->bank_id
                   : "Imported";
    k->legacy[0] = '\0';
    if (a->acct_id[0] == '\0') {
        /* No ACCTID: the account is what the file does say, its bank,
         * type and currency ("?" marks that this is no account id). */
        snprintf(k->id, sizeof k->id, "?fi:%.31s/%.100s/%.63s:%.31s/%.3s", doc->fid, doc->org, a->bank_id,
                 a->acct_type[0] ? a->acct_type : "OTHER", a->currency);
    } else if (a->bank_id[0] || (doc->fid[0] == '\0' && doc->org[0] == '\0')) {
        snprintf(k->id, sizeof k->id, "%s:%s", a->bank_id, a->acct_id);
    } else {
        snprintf(k->id, sizeof k->id, "fi:%s/%s:%s", doc->fid, doc->org, a->acct_id);
        snprintf(k->legacy, sizeof k->legacy, ":%s", a->acct_id);
    }
}

/* Which of a's rows are new (fresh[i]), before anything is written: their
 * count in *n_new, the others added to *skipped.  A row whose FITID is
 * seen on a row of another amount or direction becomes KEY_REUSED. */
static int find_new_rows(ledger_db *db, int64_t me, const struct account_key *account,
                         const struct ofx_account *a, struct row_key *keys, char *fresh,
                         size_t *n_new, int64_t *skipped, cJSON *warnings, ledger_error *err)
{
    char key[KEY_TEXT_SIZE];
    size_t i;
    int dup;

    for (i = 0; i < a->ntxns; i++) {
        const struct ofx_txn *t = &a->txns[i];
        char desc[800];
        int same = 0;

        row_description(t, desc, sizeof desc);
        dup = keys[i].kind == KEY_REPEAT;
        if (dup) {
            /* listed twice in the file: one row, and the answer says so */
            char w[160];

            snprintf(w, sizeof w, "line %d: <STMTTRN> repeats an earlier row of its statement "
                     "(the same FITID, date, amount and text): imported once", t->line);
            cJSON_AddItemToArray(warnings, cJSON_CreateString(w));
        } else if (keys[i].kind == KEY_PLAIN) {
            if (seen(db, me, account, key_text(a, keys, i, key), t, desc, &dup, &same, err)
                || (!dup && seen_plain(db, me, account, t, desc, a->credit_card, &dup, err)))
                return LEDGER_ERR;
        } else {
            /* The bank's FITID, imported before on a row of this amount and
             * direction: that row (another date or text is the bank's
             * correction of it).  On a row of another amount or direction
             * it is not that row: some banks reuse FITIDs across files (a
             * card's reward credit under its purchase's, ids numbered per
             * day), and the new row is not to be skipped as seen.  Such a
             * row is keyed as a FITID reused within a file is, by what it
             * says, so that the file imported again finds it. */
            if (seen(db, me, account, t->fitid, t, desc, &dup, &same, err))
                return LEDGER_ERR;
            if (dup && !same) {
                keys[i].kind = KEY_REUSED;
                dup = 0;
            }
            if (!dup && keys[i].kind == KEY_REUSED
                && seen(db, me, account, key_text(a, keys, i, key), t, desc, &dup, &same, err))
                return LEDGER_ERR;
        }
        fresh[i] = !dup;
        *n_new += !dup;
        *skipped += dup;
    }
    return LEDGER_OK;
}

/* Writes statement f with a's new rows (fresh[i]), its id in *id, counting
 * the rows in *imported: staged and written JOB_CHUNK_ROWS at a time
 * (statement_chunk_write, which commits each when job is not NULL). */
static int insert_rows(ledger_db *db, int64_t me, const struct statement_fields *f, int64_t *id,
                       const struct ofx_account *a, const struct row_key *keys,
                       const char *fresh, struct job *job, int64_t *imported, ledger_error *err)
{
    char key[KEY_TEXT_SIZE];
    size_t i, staged = 0;

    *id = 0;
    for (i = 0; i < a->ntxns; i++) {
        const struct ofx_txn *t = &a->txns[i];
        struct statement_row r;
        char desc[800], merchant[MERCHANT_MAX + 1];

        if (!fresh[i])
            continue;
        memset(&r, 0, sizeof r);
        row_description(t, desc, sizeof desc);
        r.date = t->date;
        r.description = desc;
        r.merchant = row_merchant(t, merchant, sizeof merchant);
        /* The bank's NAME stays the row's merchant; its listed merchant is
         * cleaned from NAME, else MEMO. */
        r.merchant_from = t->name[0] ? t->name : t->memo[0] ? t->memo : NULL;
        r.type = row_type(t, a->credit_card);
        /* A card payment is a transfer between the owner's accounts. */
        r.category = strcmp(r.type, "payment") == 0 ? "transfers" : NULL;
        r.amount = t->amount < 0 ? -t->amount : t->amount;
        r.has_fitid_out = 1;
        r.fitid_out = t->amount < 0;
        r.currency = t->currency[0] ? t->currency : a->currency[0] ? a->currency : NULL;
        r.fitid = key_text(a, keys, i, key);
        /* A row in another currency with a rate to the account's: the
         * home-currency amount when the account is in the home currency. */
        if (t->currency[0] && t->currate[0]
            && strcmp(a->currency[0] ? a->currency : ledger_home_currency(db), ledger_home_currency(db)) == 0
            && money_times_rate(r.amount, t->currate, &r.amount_aud) == 0) {
            r.has_amount_aud = 1;
            r.rate = t->currate;
        }
        if (statement_row_stage(db, me, &r, 0, err))
            return LEDGER_ERR;
        if (++staged == JOB_CHUNK_ROWS) {
            if (statement_chunk_write(db, me, f, id, job, NULL, imported, err))
                return LEDGER_ERR;
            staged = 0;
        }
    }
    /* The last rows, or the statement alone (a new period, nothing new). */
    if ((staged > 0 || *id == 0) && statement_chunk_write(db, me, f, id, job, NULL, imported, err))
        return LEDGER_ERR;
    return LEDGER_OK;
}

/* Imports one account; adds what it created to `created`.  A job is in a
 * read transaction here, in which it finds the account's new rows and
 * reads its statement back, and writes the rows in chunks between
 * (insert_rows). */
static int import_account(ledger_db *db, int64_t me, const struct ofx_doc *doc,
                          const struct ofx_account *a, struct job *job, cJSON *created,
                          int64_t *imported, int64_t *skipped, cJSON *warnings,
                          ledger_error *err)
{
    struct statement_fields f;
    struct account_key account;
    char name[80], from[11], to[11], *fresh;
    struct row_key *keys = NULL;
    int result = LEDGER_ERR;
    size_t n_new = 0, len = strlen(a->acct_id), tail, chars;
    int64_t id;
    cJSON *s = NULL;

    memset(&f, 0, sizeof f);
    account_key_of(doc, a, &account);
    fresh = calloc(a->ntxns ? a->ntxns : 1, 1);
    if (fresh == NULL || (keys = malloc((a->ntxns ? a->ntxns : 1) * sizeof *keys)) == NULL
        || row_keys(a, keys))
        goto oom;
    if (find_new_rows(db, me, &account, a, keys, fresh, &n_new, skipped, warnings, err))
        goto out;
    if (min_max_dates(doc, a, from, to, err))
        goto out;
    if (n_new == 0) {
        int same;

        /* Nothing new: a statement only when this period is new too. */
        if (a->ntxns > 0)
            goto done;
        if (db_exists(db, err, "import", &same, SQL_SAME_STATEMENT, DB_INT(me),
                      DB_TEXT(account.id), DB_TEXT(from), DB_TEXT(to), DB_TEXT(LEGACY(&account)),
                      DB_TEXT(account.bank_name)))
            goto out;
        if (same)
            goto done;
    }
    /* The account's last four characters (not bytes: the id is UTF-8). */
    for (tail = len, chars = 0; tail > 0 && chars < 4; tail--)
        chars += ((unsigned char)a->acct_id[tail - 1] & 0xC0) != 0x80;
    if (len == 0)
        snprintf(name, sizeof name, "%s %s", a->credit_card ? "CREDITCARD" : a->acct_type[0]
                 ? a->acct_type : "OTHER", a->currency[0] ? a->currency : ledger_home_currency(db));
    else
        snprintf(name, sizeof name, "%s%s", tail > 0 ? "..." : "", a->acct_id + tail);
    f.bank_name = account.bank_name;
    f.account_name = name;
    f.account_type = a->credit_card ? "CREDITCARD" : a->acct_type[0] ? a->acct_type : "OTHER";
    f.statement_type = a->credit_card ? "credit_card" : statement_type_from_text(f.account_type);
    f.period_start = from;
    f.period_end = to;
    f.account_id = account.id;
    if (a->has_opening_balance) {
        f.has_opening = 1;
        f.opening = strcmp(f.statement_type, "credit_card") == 0
                    || strcmp(f.statement_type, "loan") == 0 ? -a->opening_balance
                    : a->opening_balance;
    }
    if (a->has_ledger_balance || a->has_available_balance) {
        int64_t bal = a->has_ledger_balance ? a->ledger_balance : a->available_balance;

        f.has_closing = 1;
        f.closing = strcmp(f.statement_type, "credit_card") == 0
                    || strcmp(f.statement_type, "loan") == 0 ? -bal : bal;
    }
    if (insert_rows(db, me, &f, &id, a, keys, fresh, job, imported, err)
        || statement_get(db, me, id, &s, err))
        goto out;
    cJSON_AddItemToArray(created, s);
done:
    result = LEDGER_OK;
out:
    free(fresh);
    free(keys);
    return result;
oom:
    ledger_error_oom(err);
    goto out;
}

/* Reads the file in the format the caller names (params' format, else
 * the media type), else the one its content shows: QIF's "!" header,
 * CAMT.053's BkToCstmrStmt, else OFX. */
static int read_file(const char *buf, size_t len, const struct ledger_params *params,
                     const char *media_type, struct ofx_doc *doc, ledger_error *err)
{
    const char *format = params ? param_get(params, "format") : NULL;
    const char *order = params ? param_get(params, "date_order") : NULL;
    enum qif_order qo = QIF_ORDER_AUTO;

    if (order && strcmp(order, "mdy") == 0)
        qo = QIF_ORDER_MDY;
    else if (order && strcmp(order, "dmy") == 0)
        qo = QIF_ORDER_DMY;
    else if (order && *order)
        return error_field(err, "date_order", "date_order must be dmy (day first) or mdy "
                           "(month first)");
    if (format == NULL || *format == '\0')
        format = media_type && (strcasecmp(media_type, "application/qif") == 0
                                || strcasecmp(media_type, "application/x-qif") == 0)
                 ? "qif" : qif_sniff(buf, len) ? "qif" : camt_sniff(buf, len) ? "camt" : "ofx";
    if (strcmp(format, "qif") == 0)
        return qif_parse(buf, len, qo, doc, err);
    if (strcmp(format, "camt") == 0)
        return camt_parse(buf, len, doc, err);
    if (strcmp(format, "ofx") == 0)
        return ofx_parse(buf, len, doc, err);
    return error_field(err, "format", "format must be ofx, qif or camt");
}

int ledger_statement_import(ledger_db *db, int64_t me, const char *buf, size_t len,
                            cJSON **out, int *created, ledger_error *err)
{
    return ledger_statement_import_file(db, me, buf, len, NULL, NULL, out, created, err);
}

/* Called in a transaction, the import writes in that one.  Called in none,
 * it begins its own (ledger_begin_as), and a file of more rows than a
 * chunk runs as a job (job.c), whose last transaction takes the
 * suggestions. */
int ledger_statement_import_file(ledger_db *db, int64_t me, const char *buf, size_t len,
                                 const struct ledger_params *params, const char *media_type,
                                 cJSON **out, int *created, ledger_error *err)
{
    struct ofx_doc doc;
    struct job job_run, *job = NULL;
    cJSON *doc_out = NULL, *list, *warnings = NULL, *run = NULL;
    int64_t imported = 0, skipped = 0, before = 0;
    size_t i, rows = 0;
    int rc = LEDGER_ERR, own = 0;

    *created = 0;
    *out = NULL;
    if (len == 0)
        return error_field(err, "file", "the body must be a statement file: OFX, QFX, QIF or "
                           "CAMT.053");
    if (read_file(buf, len, params, media_type, &doc, err))
        return LEDGER_ERR;
    for (i = 0; i < doc.naccounts; i++)
        rows += doc.accounts[i].ntxns;
    if (job_begin(db, me, "statement", rows, &job_run, &job, &own, err)
        || statement_rows_begin(db, &before, err))
        goto out;
    doc_out = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(doc_out, "statements");
    /* Every value the reader dropped or read other than as written, then
     * the rows the import took as one. */
    warnings = cJSON_CreateArray();
    for (i = 0; i < doc.nwarnings; i++)
        cJSON_AddItemToArray(warnings, cJSON_CreateString(doc.warnings[i]));
    if (doc.more_warnings) {
        char more[64];

        snprintf(more, sizeof more, "and %zu more warnings", doc.more_warnings);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(more));
    }
    for (i = 0; i < doc.naccounts; i++)
        if (import_account(db, me, &doc, &doc.accounts[i], job, list, &imported, &skipped,
                           warnings, err))
            goto out;
    /* The new rows take the suggestions that pass the owner's threshold,
     * as one run the owner can revert. */
    if (job_yield(db, job, 1, err) || (imported && suggest_auto(db, me, before, &run, err)))
        goto out;
    cJSON_AddItemToObject(doc_out, "suggestion_run", run ? run : cJSON_CreateNull());
    run = NULL;
    cJSON_AddNumberToObject(doc_out, "imported", (double)imported);
    cJSON_AddNumberToObject(doc_out, "skipped_duplicates", (double)skipped);
    cJSON_AddItemToObject(doc_out, "warnings", warnings);
    warnings = NULL;
    if (job_done(db, job, err) || (own && ledger_commit(db, err)))
        goto out;
    *created = cJSON_GetArraySize(list) > 0;
    *out = doc_out;
    doc_out = NULL;
    rc = LEDGER_OK;
out:
    if (own && db->in_txn)
        ledger_rollback(db);
    if (job)
        job_end(db, job);
    cJSON_Delete(run);
    cJSON_Delete(warnings);
    cJSON_Delete(doc_out);
    ofx_doc_free(&doc);
    return rc;
}
