/*
 * The journal export: the caller's ledger as an hledger (and Ledger)
 * journal, in the home currency, one transaction per row and per payment,
 * each balanced to the cent:
 *
 *   the account the money moved in   a statement's account, assets: or
 *                                    liabilities: by its type; a manual
 *                                    row's assets:manual
 *   spend (rule D)                   expenses:<category>, the caller's part
 *                                    as basis=mine counts it (spend.c), so
 *                                    `hledger bal ^expenses -M` is
 *                                    /api/analytics/monthly?basis=mine
 *   income                           income:<category>
 *   transfers, investment            equity:transfers, assets:investment
 *   the others' parts of a split     assets:receivable:<participant>
 *   the caller's part of a row
 *   someone else paid                liabilities:payable:<owner>
 *   what is left of a row            equity:others-share (the rest of an
 *                                    override share; an itemised
 *                                    repayment's principal goes to
 *                                    equity:transfers)
 *   payments                         receivable/payable against
 *                                    equity:transfers, where the bank rows
 *                                    of the same money land
 *
 * A row shared with the caller (someone else's) posts only the caller's
 * part: its expense or income against what they owe its owner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "export.h"
#include "spend.h"
#include "txn.h"

/* An account name's longest segment, in bytes. */
#define SEGMENT_MAX 160
#define ACCOUNT_MAX 512

static const char SQL_PAYMENTS[] =
    "SELECT p.id, p.date, p.from_user_id, p.to_user_id, p.amount, p.notes,"
    "       (SELECT name FROM trips WHERE id = p.trip_id)"
    "  FROM split_payments p WHERE p.from_user_id = ?1 OR p.to_user_id = ?1"
    " ORDER BY p.date, p.id";

/* Whether the code point starting at s (of n bytes) is one hledger reads
 * as a space (Haskell's isSpace: Unicode's space separators) or shows as
 * nothing (controls, zero-width characters, the byte-order mark). */
static int unicode_blank(const unsigned char *s, size_t n)
{
    unsigned cp;

    if (n == 2)
        cp = (unsigned)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
    else if (n == 3)
        cp = (unsigned)(s[0] & 0x0f) << 12 | (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    else
        return 0;
    return cp < 0xa1 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f)
           || (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f)
           || cp == 0x3000 || cp == 0xfeff;
}

/* Length of the UTF-8 sequence led by byte c (the database holds valid
 * UTF-8; a stray byte counts as one). */
static size_t utf8_len(unsigned char c)
{
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* One segment of an account name (or a tag's name or value) from free
 * text: letters, digits and - _ . @ & ' / kept, other characters
 * (the separator ':', the comment ';', brackets, tabs, Unicode spaces) a
 * space, spaces never two in a row nor at either end, where hledger
 * would end the name or read it otherwise; "unnamed" when nothing is
 * left.  With `tight`, for a tag's name, a space becomes '-'. */
static void segment(char *out, size_t len, const char *in, int tight)
{
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    size_t o = 0;
    int space = 0;

    while (*p && o + 5 < len) {
        size_t n = utf8_len(*p), i;
        int keep;

        for (i = 1; i < n; i++)
            if (p[i] == '\0')
                n = i;
        keep = *p >= 0x80 ? !unicode_blank(p, n)
                          : ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                             || (*p >= '0' && *p <= '9') || strchr("-_.@&'/", *p) != NULL);
        if (!keep) {
            space = o > 0;
            p += n;
            continue;
        }
        if (space) {
            out[o++] = tight ? '-' : ' ';
            space = 0;
        }
        memcpy(out + o, p, n);
        o += n;
        p += n;
    }
    out[o] = '\0';
    if (o == 0)
        snprintf(out, len, "unnamed");
}

/* prefix:<segment of name>, e.g. expenses:groceries. */
static void account(char *out, size_t len, const char *prefix, const char *name)
{
    char seg[SEGMENT_MAX];

    segment(seg, sizeof seg, name, 0);
    snprintf(out, len, "%s:%s", prefix, seg);
}

/* A participant's account: their name and id, so two people of one name
 * keep two accounts. */
static int person(struct export *x, char *out, size_t len, const char *prefix, int64_t id)
{
    const char *name = export_name(x, id);
    char seg[SEGMENT_MAX];

    if (name == NULL)
        return -1;
    segment(seg, sizeof seg, name, 0);
    snprintf(out, len, "%s:%s-%lld", prefix, seg, (long long)id);
    return 0;
}

/* "    account  -12.34 AUD\n": two spaces end the account name. */
static void posting(struct export *x, const char *acct, int64_t cents)
{
    char buf[32];

    export_put(x, "    ", 4);
    export_puts(x, acct);
    export_put(x, "  ", 2);
    export_puts(x, ledger_decimal2_format(cents, buf, sizeof buf));
    export_put(x, " ", 1);
    export_puts(x, ledger_home_currency(x->db));
    export_put(x, "\n", 1);
}

/* Free text on the transaction line: no line break, no ';' (a comment
 * would start), no '|' but the one between payee and note. */
static void line_text(struct export *x, const char *s)
{
    char seg[512];
    size_t o = 0;
    int space = 0;

    for (; s && *s && o + 2 < sizeof seg; s++) {
        unsigned char c = (unsigned char)*s;

        if (c < 0x20 || c == 0x7f || c == ';' || c == '|' || c == ' ') {
            space = o > 0;
            continue;
        }
        if (space)
            seg[o++] = ' ';
        space = 0;
        seg[o++] = (char)c;
    }
    seg[o] = '\0';
    export_puts(x, seg);
}

/* A tag "name:value" for the comment line; the value ends at a comma. */
static void tag(struct export *x, int *first, const char *name, const char *value)
{
    char seg[SEGMENT_MAX];

    export_puts(x, *first ? "    ; " : ", ");
    *first = 0;
    segment(seg, sizeof seg, name, 1);
    export_puts(x, seg);
    export_put(x, ":", 1);
    if (value) {
        segment(seg, sizeof seg, value, 0);
        export_puts(x, seg);
    }
}

/* The account the row's money moved in. */
static void funding_account(char *out, size_t len, sqlite3_stmt *st)
{
    const char *type = export_text(st, X_STATEMENT_TYPE), *acct = export_text(st, X_ACCOUNT);
    char bank[SEGMENT_MAX], name[SEGMENT_MAX];

    if (sqlite3_column_type(st, TXN_STATEMENT) == SQLITE_NULL) {
        snprintf(out, len, "assets:manual");
        return;
    }
    segment(bank, sizeof bank, export_text(st, TXN_BANK), 0);
    segment(name, sizeof name, *acct ? acct : type, 0);
    snprintf(out, len, "%s:%s:%s",
             strcmp(type, "credit_card") == 0 || strcmp(type, "loan") == 0 ? "liabilities" : "assets",
             bank, name);
}

/* Where a row that is not spend counts, by its category. */
static void other_account(char *out, size_t len, const char *category)
{
    if (strcmp(category, "transfers") == 0)
        snprintf(out, len, "equity:transfers");
    else if (strcmp(category, "investment") == 0)
        snprintf(out, len, "assets:investment");
    else if (strcmp(category, "income") == 0)
        snprintf(out, len, "income");
    else
        account(out, len, "income", *category ? category : "uncategorised");
}

/* The transaction line and its comment: date, cleared for a statement
 * row, the row's id as the code, payee | description; the category, trip,
 * tags and any other currency as tags. */
static void header(struct export *x, sqlite3_stmt *st)
{
    const char *merchant = export_text(st, X_EFF_MERCHANT), *tags;
    char buf[32];
    int first = 1;

    export_puts(x, export_text(st, TXN_DATE));
    if (sqlite3_column_type(st, TXN_STATEMENT) != SQLITE_NULL)
        export_put(x, " *", 2);
    export_put(x, " (", 2);
    export_puts(x, export_text(st, TXN_ID));
    export_put(x, ") ", 2);
    if (*merchant) {
        line_text(x, merchant);
        export_put(x, " | ", 3);
    }
    line_text(x, export_text(st, TXN_DESCRIPTION));
    export_put(x, "\n", 1);
    tag(x, &first, "type", export_text(st, TXN_TYPE));
    if (sqlite3_column_type(st, X_EFF_CATEGORY) != SQLITE_NULL)
        tag(x, &first, "category", export_text(st, X_EFF_CATEGORY));
    if (sqlite3_column_type(st, X_TRIP_NAME) != SQLITE_NULL)
        tag(x, &first, "trip", export_text(st, X_TRIP_NAME));
    if (strcmp(export_text(st, TXN_CURRENCY), ledger_home_currency(x->db)) != 0) {
        char orig[64];

        snprintf(orig, sizeof orig, "%s %s",
                 ledger_decimal2_format(sqlite3_column_int64(st, TXN_AMOUNT), buf, sizeof buf),
                 export_text(st, TXN_CURRENCY));
        tag(x, &first, "original", orig);
    }
    for (tags = (const char *)sqlite3_column_text(st, X_TAG_NAMES); tags && *tags;) {
        size_t n = strcspn(tags, ";");
        char name[SEGMENT_MAX];

        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), tags);
        tag(x, &first, name, NULL);
        tags += n + (tags[n] == ';');
    }
    export_put(x, "\n", 1);
}

/* Whether a row of this type is money out of its account (API.md 1:
 * debit, fee, interest; every other type is money in). */
static int money_out(const char *type)
{
    return strcmp(type, "debit") == 0 || strcmp(type, "fee") == 0 || strcmp(type, "interest") == 0;
}

/* The parts of a row: the caller's (mine) on side, every other
 * participant's (sb, signed as sign) on their receivable, the money
 * moved (moved) on the funding account, and what is left on rest. */
static int row(struct export *x, sqlite3_stmt *st, void *ctx)
{
    int64_t owner = sqlite3_column_int64(st, TXN_OWNER), spend = sqlite3_column_int64(st, X_SPEND);
    int counts = sqlite3_column_int(st, X_SPEND_COUNTS), in;
    int itemised = sqlite3_column_type(st, TXN_PRINCIPAL) != SQLITE_NULL
                   && sqlite3_column_type(st, TXN_INTEREST) != SQLITE_NULL;
    int64_t mine, moved, sign, left;
    char side[ACCOUNT_MAX], acct[ACCOUNT_MAX];
    size_t k;

    (void)ctx;
    if (export_shares(x, st))
        return ledger_error_oom(x->err);
    in = !money_out(export_text(st, TXN_TYPE));
    moved = in ? x->home : -x->home;
    if (counts) {
        /* basis=mine's own count, and the others' parts of the same
         * spend. */
        if (spend_mine_part(x->me, owner, spend, sqlite3_column_type(st, TXN_O_SHARE) != SQLITE_NULL,
                            sqlite3_column_int64(st, TXN_O_SHARE),
                            (const char *)sqlite3_column_text(st, X_SPLIT_TEXT), &x->sb, &mine))
            return ledger_error_oom(x->err);
        sign = spend < 0 ? -1 : 1;
        account(side, sizeof side, "expenses", export_text(st, X_SPEND_CATEGORY));
    } else {
        /* The row's value on its side is the money moved, turned round. */
        sign = in ? -1 : 1;
        mine = sign * x->my_amount;
        other_account(side, sizeof side, export_text(st, X_EFF_CATEGORY));
    }
    header(x, st);
    posting(x, side, mine);
    if (owner != x->me) {
        if (person(x, acct, sizeof acct, "liabilities:payable", owner))
            return -1;
        posting(x, acct, -mine);
        export_put(x, "\n", 1);
        return 0;
    }
    funding_account(acct, sizeof acct, st);
    posting(x, acct, moved);
    left = -(moved + mine);
    for (k = 0; k < x->sb.n; k++) {
        if (x->sb.v[k].participant_id == x->me)
            continue;
        if (person(x, acct, sizeof acct, "assets:receivable", x->sb.v[k].participant_id))
            return -1;
        posting(x, acct, sign * x->sb.cents[k]);
        left -= sign * x->sb.cents[k];
    }
    if (left != 0)
        posting(x, itemised ? "equity:transfers" : "equity:others-share", left);
    export_put(x, "\n", 1);
    return 0;
}

/* A payment between the caller and someone: it settles what one owes
 * the other, against equity:transfers. */
static int payment(struct export *x, sqlite3_stmt *st)
{
    int64_t from = sqlite3_column_int64(st, 2), to = sqlite3_column_int64(st, 3);
    int64_t amount = sqlite3_column_int64(st, 4);
    int paid = from == x->me;
    char acct[ACCOUNT_MAX];
    int first = 1;

    if (person(x, acct, sizeof acct, paid ? "liabilities:payable" : "assets:receivable",
               paid ? to : from))
        return -1;
    export_puts(x, export_text(st, 1));
    export_puts(x, " * (payment ");
    export_puts(x, export_text(st, 0));
    export_puts(x, ") Payment ");
    export_puts(x, paid ? "to " : "from ");
    line_text(x, export_name(x, paid ? to : from));
    if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
        export_put(x, " | ", 3);
        line_text(x, export_text(st, 5));
    }
    export_put(x, "\n", 1);
    if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
        tag(x, &first, "trip", export_text(st, 6));
        export_put(x, "\n", 1);
    }
    posting(x, acct, paid ? amount : -amount);
    posting(x, "equity:transfers", paid ? -amount : amount);
    export_put(x, "\n", 1);
    return export_flush(x, EXPORT_CHUNK);
}

static int payments(struct export *x)
{
    sqlite3_stmt *st = db_stmt(x->db, SQL_PAYMENTS, x->err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, x->me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (payment(x, st))
            break;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return LEDGER_ERR;
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(x->db, x->err, "export payments");
}

int export_journal(struct export *x)
{
    const char *cur = ledger_home_currency(x->db);

    export_puts(x, "; The ledger service's export: every amount in ");
    export_puts(x, cur);
    export_puts(x, ", spend at the exporting user's part.\n"
                   "commodity 1000.00 ");
    export_puts(x, cur);
    export_puts(x, "\n\n");
    if (export_rows(x, row, NULL))
        return LEDGER_ERR;
    return payments(x);
}
