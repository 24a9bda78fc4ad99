/*
 * What a trip cost and who owes whom for it.
 *
 * Analytics use the spend of Business rule D (SPEND_SQL): debit, fee and
 * interest count, refunds count negative, transfers, investment and income
 * are left out, amounts are COALESCE(amount_aud, amount), and an itemised
 * loan repayment counts at its interest.  Owed amounts are the split
 * obligations of the trip's rows (as balances count them) less the
 * payments scoped to the trip, in each direction separately: never netted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Rows of the trip that count as spend, with their spend. */
#define TRIP_ROWS \
    " FROM transactions t WHERE t.override_trip_id = ?1 AND t.reconciled_with_id IS NULL" \
    "   AND " SPEND_COUNTS_SQL("t")

static const char SQL_BY_CATEGORY[] =
    "SELECT " SPEND_CATEGORY_SQL("t") ", ledger_sum(" SPEND_SQL("t") ")" TRIP_ROWS
    " GROUP BY 1 ORDER BY 2 DESC, 1";
static const char SQL_BY_DAY[] =
    "SELECT t.date, ledger_sum(" SPEND_SQL("t") ")" TRIP_ROWS " GROUP BY 1 ORDER BY 1";
static const char SQL_BY_MERCHANT[] =
    "SELECT t.eff_merchant, ledger_sum(" SPEND_SQL("t") ")" TRIP_ROWS " GROUP BY 1 ORDER BY 2 DESC, 1";
/* Tags are private: only the viewer's own tags (?2) are reported. */
static const char SQL_BY_TAG[] =
    "SELECT g.id, g.name, ledger_sum(" SPEND_SQL("t") ")"
    "  FROM transactions t JOIN transaction_tags tt ON tt.transaction_id = t.id"
    "  JOIN tags g ON g.id = tt.tag_id AND g.owner_id = ?2"
    " WHERE t.override_trip_id = ?1 AND t.reconciled_with_id IS NULL AND " SPEND_COUNTS_SQL("t")
    " GROUP BY g.id ORDER BY 3 DESC, g.name";
static const char SQL_SPEND_ROWS[] =
    "SELECT t.id, t.owner_id, " SPEND_SQL("t") TRIP_ROWS;
static const char SQL_USER[] = "SELECT name, email FROM users WHERE id = ?";
/* Split rows of the trip that involve the viewer as owner or participant. */
static const char SQL_OWED_ROWS[] =
    "SELECT t.id, t.owner_id, COALESCE(t.amount_aud, t.amount),"
    "       t.transaction_type IN ('credit', 'refund', 'payment')"
    "  FROM transactions t"
    " WHERE t.override_trip_id = ?1 AND t.reconciled_with_id IS NULL"
    "   AND EXISTS (SELECT 1 FROM splits s WHERE s.transaction_id = t.id)"
    "   AND (t.owner_id = ?2 OR EXISTS (SELECT 1 FROM splits s"
    "        WHERE s.transaction_id = t.id AND s.participant_id = ?2))";
static const char SQL_OWED_PAYMENTS[] =
    "SELECT from_user_id, to_user_id, ledger_sum(amount) FROM split_payments"
    " WHERE trip_id = ?1 AND (from_user_id = ?2 OR to_user_id = ?2) GROUP BY 1, 2";

/* A small map from user id to a sum of amounts, in first-seen order. */
struct id_tally {
    int64_t *id;
    money_sum *amount;
    size_t n, cap;
};

static money_sum *id_tally_at(struct id_tally *t, int64_t id)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (t->id[i] == id)
            return &t->amount[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        int64_t *ni = realloc(t->id, cap * sizeof *ni);
        money_sum *na;

        if (ni == NULL)
            return NULL;
        t->id = ni;
        if ((na = realloc(t->amount, cap * sizeof *na)) == NULL)
            return NULL;
        t->amount = na;
        t->cap = cap;
    }
    t->id[t->n] = id;
    t->amount[t->n] = 0;
    return &t->amount[t->n++];
}

static void id_tally_free(struct id_tally *t)
{
    free(t->id);
    free(t->amount);
}

/* Rows collected before their splits are read, so no two uses of the
 * statement cache overlap. */
struct row4 {
    int64_t id, owner, amount, negative;
};

static int collect(ledger_db *db, const char *sql, int64_t a, int64_t b, int cols,
                   struct row4 **out, size_t *n, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    struct row4 *v = NULL;
    size_t cap = 0;
    int rc;

    *n = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, a);
    sqlite3_bind_int64(st, 2, b);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            struct row4 *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);

            if (nv == NULL)
                break;
            v = nv;
        }
        v[*n].id = sqlite3_column_int64(st, 0);
        v[*n].owner = sqlite3_column_int64(st, 1);
        v[*n].amount = sqlite3_column_int64(st, 2);
        v[*n].negative = cols > 3 ? sqlite3_column_int64(st, 3) : 0;
        (*n)++;
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        free(v);
        return rc == SQLITE_ROW ? ledger_error_set(err, 500, "internal", NULL, "out of memory")
                                : db_error(db, err, "trip rows");
    }
    *out = v;
    return LEDGER_OK;
}

/* Adds each participant's apportioned part of amount to the tally (the
 * owner takes all of an unsplit row). */
static int apportion_into(ledger_db *db, struct split_buf *sb, const struct row4 *r, int64_t amount,
                          struct id_tally *t, int64_t only, ledger_error *err)
{
    size_t i;

    if (split_load(db, r->id, sb, err))
        return LEDGER_ERR;
    if (sb->n == 0) {
        if (split_buf_room(sb, 1))
            return ledger_error_set(err, 500, "internal", NULL, "out of memory");
        sb->v[0].participant_id = r->owner;
        sb->v[0].share = 10000;
        sb->n = 1;
    }
    /* Negative spend (a refund) is apportioned as a magnitude, then signed. */
    split_apportion(amount < 0 ? -amount : amount, sb->v, sb->n, r->owner, sb->cents);
    for (i = 0; i < sb->n; i++) {
        money_sum *slot;

        if (only && sb->v[i].participant_id == only)
            continue;
        if ((slot = id_tally_at(t, sb->v[i].participant_id)) == NULL)
            return ledger_error_set(err, 500, "internal", NULL, "out of memory");
        *slot += amount < 0 ? -sb->cents[i] : sb->cents[i];
    }
    return LEDGER_OK;
}

static int grouped(ledger_db *db, const char *sql, int64_t trip, int64_t me, cJSON *arr,
                   const char *key, int with_id, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, trip);
    if (with_id)
        sqlite3_bind_int64(st, 2, me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = cJSON_CreateObject();
        int c = 0;

        if (with_id)
            cJSON_AddNumberToObject(o, "tag_id", (double)sqlite3_column_int64(st, c++));
        cJSON_AddStringToObject(o, key, (const char *)sqlite3_column_text(st, c++));
        cJSON_AddItemToObject(o, "total", money_sum_to_json(money_sum_column(st, c)));
        cJSON_AddItemToArray(arr, o);
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "trip analytics");
}

static void add_user_names(ledger_db *db, cJSON *o, int64_t id, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_USER, err);

    if (st == NULL)
        return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *email = (const char *)sqlite3_column_text(st, 1);

        if (name || email)
            cJSON_AddStringToObject(o, "name", name ? name : email);
        else
            cJSON_AddNullToObject(o, "name");
    }
    db_stmt_done(st);
}

int ledger_trip_analytics(ledger_db *db, int64_t me, int64_t trip, cJSON **out,
                          ledger_error *err)
{
    cJSON *doc = NULL, *part;
    struct row4 *rows = NULL;
    struct id_tally t = { 0 };
    struct split_buf sb = { NULL, NULL, 0, 0 };
    money_sum total = 0;
    size_t n = 0, i;
    int participant;

    if (access_trip(db, me, trip, &participant, err)) {
        err->field[0] = '\0';
        return LEDGER_ERR;
    }
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", NULL, "you do not take part in this trip");
    doc = cJSON_CreateObject();
    if (grouped(db, SQL_BY_CATEGORY, trip, me, cJSON_AddArrayToObject(doc, "by_category"),
                "category", 0, err)
        || grouped(db, SQL_BY_DAY, trip, me, cJSON_AddArrayToObject(doc, "by_day"), "date", 0, err)
        || grouped(db, SQL_BY_MERCHANT, trip, me, cJSON_AddArrayToObject(doc, "by_merchant"),
                   "merchant", 0, err)
        || grouped(db, SQL_BY_TAG, trip, me, cJSON_AddArrayToObject(doc, "by_tag"), "name", 1, err)
        || collect(db, SQL_SPEND_ROWS, trip, 0, 3, &rows, &n, err))
        goto fail;
    for (i = 0; i < n; i++) {
        total += rows[i].amount;
        if (apportion_into(db, &sb, &rows[i], rows[i].amount, &t, 0, err))
            goto fail;
    }
    cJSON_AddItemToObject(doc, "total", money_sum_to_json(total));
    part = cJSON_AddArrayToObject(doc, "by_participant");
    for (i = 0; i < t.n; i++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "participant_id", (double)t.id[i]);
        add_user_names(db, o, t.id[i], err);
        cJSON_AddItemToObject(o, "total", money_sum_to_json(t.amount[i]));
        cJSON_AddItemToArray(part, o);
    }
    free(rows);
    id_tally_free(&t);
    split_buf_free(&sb);
    *out = doc;
    return LEDGER_OK;
fail:
    free(rows);
    id_tally_free(&t);
    split_buf_free(&sb);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

static cJSON *tally_json(const struct id_tally *t)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = 0; i < t->n; i++) {
        cJSON *o;

        if (t->amount[i] == 0)
            continue;
        o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "participant_id", (double)t->id[i]);
        cJSON_AddItemToObject(o, "amount", money_sum_to_json(t->amount[i]));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

int ledger_trip_owed(ledger_db *db, int64_t me, int64_t trip, cJSON **out, ledger_error *err)
{
    struct row4 *rows = NULL;
    struct id_tally to_me = { 0 }, by_me = { 0 };
    struct split_buf sb = { NULL, NULL, 0, 0 };
    sqlite3_stmt *st;
    size_t n = 0, i;
    int participant, rc;

    if (access_trip(db, me, trip, &participant, err)) {
        err->field[0] = '\0';
        return LEDGER_ERR;
    }
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", NULL, "you do not take part in this trip");
    if (collect(db, SQL_OWED_ROWS, trip, me, 4, &rows, &n, err))
        goto fail;
    for (i = 0; i < n; i++) {
        int64_t amount = rows[i].negative ? -rows[i].amount : rows[i].amount;

        if (rows[i].owner == me) {
            /* What each other participant owes the viewer on this row. */
            if (apportion_into(db, &sb, &rows[i], amount, &to_me, me, err))
                goto fail;
        } else {
            struct id_tally mine = { 0 };
            size_t k;

            if (apportion_into(db, &sb, &rows[i], amount, &mine, 0, err)) {
                id_tally_free(&mine);
                goto fail;
            }
            for (k = 0; k < mine.n; k++)
                if (mine.id[k] == me) {
                    money_sum *slot = id_tally_at(&by_me, rows[i].owner);

                    if (slot)
                        *slot += mine.amount[k];
                }
            id_tally_free(&mine);
        }
    }
    /* Payments scoped to the trip reduce the direction they settle. */
    if ((st = db_stmt(db, SQL_OWED_PAYMENTS, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, trip);
    sqlite3_bind_int64(st, 2, me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t from = sqlite3_column_int64(st, 0), to = sqlite3_column_int64(st, 1);
        money_sum *slot = to == me ? id_tally_at(&to_me, from) : id_tally_at(&by_me, to);

        if (slot)
            *slot -= money_sum_column(st, 2);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "trip owed");
        goto fail;
    }
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "trip_id", (double)trip);
    cJSON_AddItemToObject(*out, "owed_to_me", tally_json(&to_me));
    cJSON_AddItemToObject(*out, "owed_by_me", tally_json(&by_me));
    free(rows);
    id_tally_free(&to_me);
    split_buf_free(&sb);
    id_tally_free(&by_me);
    return LEDGER_OK;
fail:
    free(rows);
    id_tally_free(&to_me);
    split_buf_free(&sb);
    id_tally_free(&by_me);
    return LEDGER_ERR;
}
