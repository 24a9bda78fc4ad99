/*
 * Balances between participants (Business rule B).  For the caller and one
 * participant:
 *
 *   owed_to_me   the participant's split share of the caller's rows
 *   owed_by_me   the caller's split share of the participant's rows
 *   net = owed_to_me - owed_by_me - payments_to_me + payments_from_me
 *
 * net > 0 means the participant owes the caller.  Shares are the
 * apportioned cents every transaction read shows, of COALESCE(amount_aud,
 * amount); credits, refunds and payments count negative.  The owner's own
 * split row is never a debt, payments never settle splits, and the settled
 * flag never changes a balance.  Rows hidden by reconciliation do not
 * count: their splits were copied to the statement row they matched.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Sums of many rows: past int64 cents they wrapped, and the debt pointed
 * the wrong way (an audit, with rows of the largest amounts). */
struct balance {
    money_sum owed_to_me, owed_by_me, payments_to_me, payments_from_me;
};

/* The rows the caller's balances come from, each with every split it has,
 * a row's splits together and by participant (as split_load reads them):
 * the caller's own split rows (schema 0027's index of them) and the rows
 * others own that the caller has a split of; with ?2 only those between
 * the caller and ?2.  Both arms come in id order from their indexes (the
 * second names its id from its index for SQLite to see that), so only a
 * row's participants are sorted.  One statement for every participant,
 * not one for each and one more for each row: a five-year household
 * ledger has thousands of such rows a pair, those lookups were half of
 * the balances' time, and each participant walked all of theirs again. */
#define BALANCE_ROW(id)                                                                       \
    "SELECT " id ", t.owner_id AS owner, COALESCE(t.amount_aud, t.amount) AS amount,"         \
    "       t.transaction_type IN ('credit', 'refund', 'payment') AS negative"
#define BALANCE_SPLITS(own_rows, their_rows)                                                  \
    "SELECT p.id, p.owner, p.amount, p.negative, s.participant_id, s.share_percent"           \
    "  FROM (" BALANCE_ROW("t.id") "  FROM transactions t"                                    \
    "         WHERE t.owner_id = ?1 AND t.has_split AND t.reconciled_with_id IS NULL" own_rows \
    "        UNION ALL " BALANCE_ROW("m.transaction_id")                                       \
    "          FROM splits m JOIN transactions t ON t.id = m.transaction_id"                   \
    "         WHERE m.participant_id = ?1 AND t.reconciled_with_id IS NULL" their_rows ") p"    \
    "  JOIN splits s ON s.transaction_id = p.id"                                              \
    " ORDER BY p.id, s.participant_id"
static const char SQL_BALANCE_SPLITS[] = BALANCE_SPLITS("", " AND t.owner_id <> ?1");
static const char SQL_PAIR_SPLITS[] = BALANCE_SPLITS(
    " AND EXISTS (SELECT 1 FROM splits o WHERE o.transaction_id = t.id AND o.participant_id = ?2)",
    " AND t.owner_id = ?2");
static const char SQL_PAIR_PAYMENTS[] =
    "SELECT COALESCE(ledger_sum(CASE WHEN from_user_id = ?2 THEN amount END), 0),"
    "       COALESCE(ledger_sum(CASE WHEN from_user_id = ?1 THEN amount END), 0)"
    "  FROM split_payments"
    " WHERE (from_user_id = ?1 AND to_user_id = ?2) OR (from_user_id = ?2 AND to_user_id = ?1)";
static const char SQL_USER_NAME[] = "SELECT email, name FROM users WHERE id = ?";

/* The caller's balances with each of n others, by id (ascending: found by
 * bsearch). */
struct balances {
    int64_t me;
    const int64_t *ids;
    struct balance *b;
    size_t n;
};

static struct balance *balance_of(const struct balances *all, int64_t id)
{
    const int64_t *at = bsearch(&id, all->ids, all->n, sizeof *all->ids, cmp_int64);

    return at ? &all->b[at - all->ids] : NULL;
}

/* One row's debts, apportioned as every read shows its splits, counted
 * negative for money in: on the caller's row each other participant owes
 * their part; on another's row the caller owes the owner theirs. */
static void row_add(const struct balances *all, int64_t owner, int64_t amount, int negative,
                    struct split_buf *sb)
{
    struct balance *b;
    size_t i;

    split_apportion(amount, sb->v, sb->n, owner, sb->cents);
    for (i = 0; i < sb->n; i++) {
        int64_t who = sb->v[i].participant_id, cents = negative ? -sb->cents[i] : sb->cents[i];

        if (owner == all->me && who != all->me && (b = balance_of(all, who)))
            b->owed_to_me += cents;
        else if (owner != all->me && who == all->me && (b = balance_of(all, owner)))
            b->owed_by_me += cents;
    }
}

/* The split debts of every balance in all: with other 0, of each; else of
 * that one alone. */
static int balance_splits(ledger_db *db, const struct balances *all, int64_t other,
                          ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, other ? SQL_PAIR_SPLITS : SQL_BALANCE_SPLITS, err);
    struct split_buf sb = { NULL, NULL, 0, 0 };
    int64_t id = 0, owner = 0, amount = 0;
    int negative = 0, rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, all->me);
    if (other)
        sqlite3_bind_int64(st, 2, other);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sb.n > 0 && sqlite3_column_int64(st, 0) != id) {
            row_add(all, owner, amount, negative, &sb);
            sb.n = 0;
        }
        if (split_buf_room(&sb, sb.n + 1))
            break;
        id = sqlite3_column_int64(st, 0);
        owner = sqlite3_column_int64(st, 1);
        amount = sqlite3_column_int64(st, 2);
        negative = sqlite3_column_int(st, 3);
        sb.v[sb.n].participant_id = sqlite3_column_int64(st, 4);
        sb.v[sb.n++].share = sqlite3_column_int64(st, 5);
    }
    if (rc == SQLITE_DONE && sb.n > 0)
        row_add(all, owner, amount, negative, &sb);
    db_stmt_done(st);
    split_buf_free(&sb);
    if (rc == SQLITE_DONE)
        return LEDGER_OK;
    return rc == SQLITE_ROW ? ledger_error_set(err, 500, "internal", NULL, "out of memory")
                            : db_error(db, err, "balance");
}

/* The payments between the caller and other. */
static int balance_payments(ledger_db *db, int64_t me, int64_t other, struct balance *b,
                            ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PAIR_PAYMENTS, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, other);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        b->payments_to_me = money_sum_column(st, 0);
        b->payments_from_me = money_sum_column(st, 1);
    }
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "balance");
}

static money_sum net_of(const struct balance *b)
{
    return b->owed_to_me - b->owed_by_me - b->payments_to_me + b->payments_from_me;
}

static cJSON *balance_json(int64_t other, const struct balance *b)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "participant_id", (double)other);
    cJSON_AddItemToObject(o, "net", money_sum_to_json(net_of(b)));
    cJSON_AddItemToObject(o, "owed_to_me", money_sum_to_json(b->owed_to_me));
    cJSON_AddItemToObject(o, "owed_by_me", money_sum_to_json(b->owed_by_me));
    cJSON_AddItemToObject(o, "payments_to_me", money_sum_to_json(b->payments_to_me));
    cJSON_AddItemToObject(o, "payments_from_me", money_sum_to_json(b->payments_from_me));
    return o;
}

int ledger_balance_get(ledger_db *db, int64_t me, int64_t other, cJSON **out, ledger_error *err)
{
    struct balance b;
    struct balances one = { me, &other, &b, 1 };
    int known;

    if (other == me)
        return ledger_error_set(err, 400, "invalid_field", NULL, "that is your own id");
    if (participant_known(db, me, other, &known, err))
        return LEDGER_ERR;
    if (!known)
        return ledger_error_set(err, 404, "not_found", NULL, "no such participant of yours");
    memset(&b, 0, sizeof b);
    if (balance_splits(db, &one, other, err) || balance_payments(db, me, other, &b, err))
        return LEDGER_ERR;
    *out = balance_json(other, &b);
    return LEDGER_OK;
}

struct ranked {
    int64_t id;
    struct balance b;
};

static int by_size(const void *x, const void *y)
{
    const struct ranked *a = x, *c = y;
    money_sum na = net_of(&a->b), nc = net_of(&c->b);

    na = na < 0 ? -na : na;
    nc = nc < 0 ? -nc : nc;

    if (na != nc)
        return na > nc ? -1 : 1;
    return a->id < c->id ? -1 : a->id > c->id;
}

int ledger_balance_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    int64_t *ids = NULL;
    size_t n = 0, i;
    struct ranked *r = NULL;
    struct balance *b = NULL;
    struct balances all;
    cJSON *doc, *items;

    if (participant_ids(db, me, &ids, &n, err))
        return LEDGER_ERR;
    if (n && ((r = calloc(n, sizeof *r)) == NULL || (b = calloc(n, sizeof *b)) == NULL)) {
        free(ids);
        free(r);
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    }
    if (n)
        qsort(ids, n, sizeof *ids, cmp_int64);
    all.me = me;
    all.ids = ids;
    all.b = b;
    all.n = n;
    if (n && balance_splits(db, &all, 0, err))
        goto fail;
    for (i = 0; i < n; i++) {
        if (balance_payments(db, me, ids[i], &b[i], err))
            goto fail;
        r[i].id = ids[i];
        r[i].b = b[i];
    }
    free(ids);
    free(b);
    /* Largest first: by the size of the net, whichever way it runs. */
    if (n)
        qsort(r, n, sizeof *r, by_size);
    doc = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(doc, "items");
    for (i = 0; i < n; i++) {
        cJSON *row = balance_json(r[i].id, &r[i].b);
        sqlite3_stmt *st = db_stmt(db, SQL_USER_NAME, err);

        if (st) {
            sqlite3_bind_int64(st, 1, r[i].id);
            if (sqlite3_step(st) == SQLITE_ROW) {
                const char *email = (const char *)sqlite3_column_text(st, 0);
                const char *name = (const char *)sqlite3_column_text(st, 1);

                if (name)
                    cJSON_AddStringToObject(row, "name", name);
                else
                    cJSON_AddNullToObject(row, "name");
                if (email)
                    cJSON_AddStringToObject(row, "email", email);
                else
                    cJSON_AddNullToObject(row, "email");
            }
            db_stmt_done(st);
        }
        cJSON_AddItemToArray(items, row);
    }
    free(r);
    cJSON_AddNumberToObject(doc, "total", cJSON_GetArraySize(items));
    *out = doc;
    return LEDGER_OK;
fail:
    free(ids);
    free(b);
    free(r);
    return LEDGER_ERR;
}
