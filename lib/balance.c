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

#include "db.h"
#include "fields.h"
#include "share.h"
#include "txn.h"

/* Sums of many rows: past int64 cents they would wrap, and the debt
 * point the wrong way (rows of the largest amounts reach that). */
struct balance {
    money_sum owed_to_me, owed_by_me, payments_to_me, payments_from_me;
};

/* The rows the caller's balances come from, each with every split it has,
 * a row's splits together and by participant: the caller's own split rows
 * (transactions_owner_split indexes them) and the rows others own that the caller
 * has a split of; with ?2 only those between the caller and ?2.  Both
 * arms come in id order from their indexes (the second names its id from
 * its index for SQLite to see that), so only a row's participants are
 * sorted.  One statement for every participant, not one for each and one
 * more for each row: a household ledger has thousands of such rows a
 * pair, lookups of each would cost more than the sums, and each
 * participant would walk all of theirs again. */
#define BALANCE_ROW(id)                                                                       \
    "SELECT " id ", t.owner_id AS owner, COALESCE(t.amount_aud, t.amount) AS amount,"         \
    "       t.transaction_type IN " MONEY_IN_TYPES_SQL " AS negative"
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
/* The payments between the caller (?1) and each other user, or with ?2
 * only that one: to the caller, then from them. */
#define PAYMENTS(where)                                                                        \
    "SELECT CASE WHEN from_user_id = ?1 THEN to_user_id ELSE from_user_id END,"               \
    "       COALESCE(ledger_sum(CASE WHEN to_user_id = ?1 THEN amount END), 0),"              \
    "       COALESCE(ledger_sum(CASE WHEN from_user_id = ?1 THEN amount END), 0)"             \
    "  FROM split_payments WHERE " where " GROUP BY 1"
static const char SQL_ALL_PAYMENTS[] = PAYMENTS("from_user_id = ?1 OR to_user_id = ?1");
static const char SQL_PAIR_PAYMENTS[] = PAYMENTS(
    "(from_user_id = ?1 AND to_user_id = ?2) OR (from_user_id = ?2 AND to_user_id = ?1)");

/* One other user's balance with the caller, and their participant entry
 * (a list's; NULL for a single balance). */
struct ranked {
    int64_t id;  /* first: found by cmp_int64 */
    struct balance b;
    const cJSON *who;
};

/* The caller's balances with each of n others, by id (ascending: found by
 * bsearch). */
struct balances {
    int64_t me;
    struct ranked *r;
    size_t n;
};

static struct balance *balance_of(const struct balances *all, int64_t id)
{
    struct ranked *at = bsearch(&id, all->r, all->n, sizeof *all->r, cmp_int64);

    return at ? &at->b : NULL;
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
    return rc == SQLITE_ROW ? ledger_error_oom(err)
                            : db_error(db, err, "balance");
}

/* The payments of every balance in all: with other 0, of each; else of
 * that one alone. */
static int balance_payments(ledger_db *db, const struct balances *all, int64_t other,
                            ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, other ? SQL_PAIR_PAYMENTS : SQL_ALL_PAYMENTS, err);
    struct balance *b;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, all->me);
    if (other)
        sqlite3_bind_int64(st, 2, other);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if ((b = balance_of(all, sqlite3_column_int64(st, 0)))) {
            b->payments_to_me = money_sum_column(st, 1);
            b->payments_from_me = money_sum_column(st, 2);
        }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "balance");
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
    struct ranked r = { other, { 0, 0, 0, 0 }, NULL };
    struct balances one = { me, &r, 1 };
    int known;

    if (other == me)
        return error_field(err, NULL, "that is your own id");
    if (participant_known(db, me, other, &known, err))
        return LEDGER_ERR;
    if (!known)
        return ledger_error_set(err, 404, "not_found", NULL, "no such participant of yours");
    if (balance_splits(db, &one, other, err) || balance_payments(db, &one, other, err))
        return LEDGER_ERR;
    *out = balance_json(other, &r.b);
    return LEDGER_OK;
}

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

/* A participant entry's email or name into a balance's object. */
static void who_text(cJSON *row, const cJSON *who, const char *k)
{
    const cJSON *v = json_get(who, k);

    if (cJSON_IsString(v))
        cJSON_AddStringToObject(row, k, v->valuestring);
    else
        cJSON_AddNullToObject(row, k);
}

int ledger_balance_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    cJSON *people = NULL, *doc = NULL, *items, *p;
    struct balances all = { me, NULL, 0 };
    size_t n, i = 0;
    int rc = LEDGER_ERR;

    /* The participants with their names: one read for every balance. */
    if (ledger_participant_list(db, me, &people, err))
        return LEDGER_ERR;
    n = (size_t)cJSON_GetArraySize(json_get(people, "items"));
    if (n && (all.r = calloc(n, sizeof *all.r)) == NULL)
        goto oom;
    cJSON_ArrayForEach(p, json_get(people, "items")) {
        const cJSON *id = json_get(p, "id");

        if (!cJSON_IsNumber(id))  /* memory ran out making the list */
            goto oom;
        all.r[i].id = (int64_t)id->valuedouble;
        all.r[i++].who = p;
    }
    all.n = n;
    if (n)
        qsort(all.r, n, sizeof *all.r, cmp_int64);
    if (n && (balance_splits(db, &all, 0, err) || balance_payments(db, &all, 0, err)))
        goto out;
    /* Largest first: by the size of the net, whichever way it runs. */
    if (n)
        qsort(all.r, n, sizeof *all.r, by_size);
    doc = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(doc, "items");
    for (i = 0; i < n; i++) {
        cJSON *row = balance_json(all.r[i].id, &all.r[i].b);

        who_text(row, all.r[i].who, "name");
        who_text(row, all.r[i].who, "email");
        cJSON_AddItemToArray(items, row);
    }
    cJSON_AddNumberToObject(doc, "total", (double)n);
    *out = doc;
    doc = NULL;
    rc = LEDGER_OK;
    goto out;
oom:
    ledger_error_oom(err);
out:
    free(all.r);
    cJSON_Delete(people);
    cJSON_Delete(doc);
    return rc;
}
