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

/* Every split of the rows one of the two owns that the other has a split
 * on, a row's splits together and by participant, as split_load reads
 * them: one statement, not one more for each row (a five-year household
 * ledger has thousands of such rows a pair, and those lookups were half
 * of the balances' time). */
#define PAIR_ROWS(owner, other)                                                                 \
    "SELECT t.id, t.owner_id AS owner, COALESCE(t.amount_aud, t.amount) AS amount,"            \
    "       t.transaction_type IN ('credit', 'refund', 'payment') AS negative"                  \
    "  FROM splits s JOIN transactions t ON t.id = s.transaction_id"                            \
    " WHERE s.participant_id = " other " AND t.owner_id = " owner " AND t.reconciled_with_id IS NULL"
static const char SQL_PAIR_SPLITS[] =
    "SELECT p.id, p.owner, p.amount, p.negative, s.participant_id, s.share_percent"
    "  FROM (" PAIR_ROWS("?1", "?2") " UNION ALL " PAIR_ROWS("?2", "?1") ") p"
    "  JOIN splits s ON s.transaction_id = p.id"
    " ORDER BY p.id, s.participant_id";
static const char SQL_PAIR_PAYMENTS[] =
    "SELECT COALESCE(ledger_sum(CASE WHEN from_user_id = ?2 THEN amount END), 0),"
    "       COALESCE(ledger_sum(CASE WHEN from_user_id = ?1 THEN amount END), 0)"
    "  FROM split_payments"
    " WHERE (from_user_id = ?1 AND to_user_id = ?2) OR (from_user_id = ?2 AND to_user_id = ?1)";
static const char SQL_USER_NAME[] = "SELECT email, name FROM users WHERE id = ?";

/* One row's splits, gathered from SQL_PAIR_SPLITS. */
struct pair_row {
    int64_t id, owner, amount;
    int negative;
    struct split_buf splits;
};

/* Adds the row's debt between me and other to b: apportioned as every
 * read shows its splits, counted negative for money in. */
static void pair_row_add(struct pair_row *r, int64_t me, int64_t other, struct balance *b)
{
    int mine = r->owner == me;
    int64_t who = mine ? other : me, cents = 0;
    size_t i;

    split_apportion(r->amount, r->splits.v, r->splits.n, r->owner, r->splits.cents);
    for (i = 0; i < r->splits.n; i++)
        if (r->splits.v[i].participant_id == who)
            cents = r->splits.cents[i];
    if (r->negative)
        cents = -cents;
    if (mine)
        b->owed_to_me += cents;
    else
        b->owed_by_me += cents;
}

static int balance_pair(ledger_db *db, int64_t me, int64_t other, struct balance *b,
                        ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PAIR_SPLITS, err);
    struct pair_row r;
    int rc;

    memset(b, 0, sizeof *b);
    memset(&r, 0, sizeof r);
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, other);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);

        if (r.splits.n > 0 && id != r.id) {
            pair_row_add(&r, me, other, b);
            r.splits.n = 0;
        }
        if (split_buf_room(&r.splits, r.splits.n + 1))
            break;
        r.id = id;
        r.owner = sqlite3_column_int64(st, 1);
        r.amount = sqlite3_column_int64(st, 2);
        r.negative = sqlite3_column_int(st, 3);
        r.splits.v[r.splits.n].participant_id = sqlite3_column_int64(st, 4);
        r.splits.v[r.splits.n++].share = sqlite3_column_int64(st, 5);
    }
    if (rc == SQLITE_DONE && r.splits.n > 0)
        pair_row_add(&r, me, other, b);
    db_stmt_done(st);
    split_buf_free(&r.splits);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_ROW ? ledger_error_set(err, 500, "internal", NULL, "out of memory")
                                : db_error(db, err, "balance");
    if ((st = db_stmt(db, SQL_PAIR_PAYMENTS, err)) == NULL)
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
    int known;

    if (other == me)
        return ledger_error_set(err, 400, "invalid_field", NULL, "that is your own id");
    if (participant_known(db, me, other, &known, err))
        return LEDGER_ERR;
    if (!known)
        return ledger_error_set(err, 404, "not_found", NULL, "no such participant of yours");
    if (balance_pair(db, me, other, &b, err))
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
    cJSON *doc, *items;

    if (participant_ids(db, me, &ids, &n, err))
        return LEDGER_ERR;
    if (n && (r = calloc(n, sizeof *r)) == NULL) {
        free(ids);
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    }
    for (i = 0; i < n; i++) {
        r[i].id = ids[i];
        if (balance_pair(db, me, ids[i], &r[i].b, err)) {
            free(ids);
            free(r);
            return LEDGER_ERR;
        }
    }
    free(ids);
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
}
