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

#include "db.h"
#include "share.h"
#include "txn.h"
#include "spend.h"

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
/* Each counted row with its splits (SPLITS_TEXT_SQL: NULL when unsplit),
 * read with the row rather than by a query of their own for each. */
static const char SQL_SPEND_ROWS[] =
    "SELECT t.id, t.owner_id, " SPEND_SQL("t") ", 0,"
    "       CASE WHEN t.has_split THEN " SPLITS_TEXT_SQL("t.id") " END" TRIP_ROWS;
/* The names of the participants listed in ?1 (a JSON array of ids) as
 * the viewer ?2 sees them in trip ?3's report: a user's name, or without
 * one their email, when they are the viewer, the trip's owner or have
 * turned to the viewer (share.h); else the viewer's own label for them,
 * or the address as the viewer typed it. */
#define REPORT_SEEN \
    "(u.id = ?2 OR u.id = (SELECT owner_id FROM trips WHERE id = ?3) OR " PERSON_TURNED_SQL("u.id", "?2") ")"
static const char SQL_USERS[] =
    "SELECT u.id, CASE WHEN " REPORT_SEEN " THEN COALESCE(u.name, u.email)"
    "                  ELSE COALESCE(c.label, c.email, u.email) END"
    "  FROM json_each(?1) j JOIN users u ON u.id = j.value"
    "  LEFT JOIN user_contacts c ON c.user_id = ?2 AND c.contact_id = u.id";
/* Split rows of the trip that involve the viewer as owner or participant. */
static const char SQL_OWED_ROWS[] =
    "SELECT t.id, t.owner_id, COALESCE(t.amount_aud, t.amount),"
    "       t.transaction_type IN " MONEY_IN_TYPES_SQL ", " SPLITS_TEXT_SQL("t.id")
    "  FROM transactions t"
    " WHERE t.override_trip_id = ?1 AND t.reconciled_with_id IS NULL AND t.has_split"
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

/* One row as SQL_SPEND_ROWS and SQL_OWED_ROWS give it. */
struct trip_row {
    int64_t id, owner, amount, negative;
    const char *splits;  /* the statement's; valid until its next step */
};

static void trip_row_read(sqlite3_stmt *st, struct trip_row *r)
{
    r->id = sqlite3_column_int64(st, 0);
    r->owner = sqlite3_column_int64(st, 1);
    r->amount = sqlite3_column_int64(st, 2);
    r->negative = sqlite3_column_int64(st, 3);
    r->splits = (const char *)sqlite3_column_text(st, 4);
}

/* Each participant's apportioned part of amount's magnitude into
 * sb->cents, by sb->v (the owner takes all of an unsplit row). */
static int apportion(struct split_buf *sb, const struct trip_row *r, int64_t amount,
                     ledger_error *err)
{
    if (split_buf_parse(sb, r->splits))
        return ledger_error_oom(err);
    if (sb->n == 0) {
        if (split_buf_room(sb, 1))
            return ledger_error_oom(err);
        sb->v[0].participant_id = r->owner;
        sb->v[0].share = 10000;
        sb->n = 1;
    }
    split_apportion(amount < 0 ? -amount : amount, sb->v, sb->n, r->owner, sb->cents);
    return LEDGER_OK;
}

/* Adds amount to id's sum in t. */
static int id_tally_add(struct id_tally *t, int64_t id, money_sum amount, ledger_error *err)
{
    money_sum *slot = id_tally_at(t, id);

    if (slot == NULL)
        return ledger_error_oom(err);
    *slot += amount;
    return LEDGER_OK;
}

/* Every participant's part of a row of spend (a refund's part negative). */
static int spend_row_add(struct split_buf *sb, const struct trip_row *r, struct id_tally *t,
                         ledger_error *err)
{
    size_t i;

    if (apportion(sb, r, r->amount, err))
        return LEDGER_ERR;
    for (i = 0; i < sb->n; i++)
        if (id_tally_add(t, sb->v[i].participant_id,
                         r->amount < 0 ? -sb->cents[i] : sb->cents[i], err))
            return LEDGER_ERR;
    return LEDGER_OK;
}

/* What a split row makes owed between the viewer and the others: on the
 * viewer's own row, each other participant's part to the viewer; on
 * another's, the viewer's part to its owner. */
static int owed_row_add(struct split_buf *sb, const struct trip_row *r, int64_t me,
                        struct id_tally *to_me, struct id_tally *by_me, ledger_error *err)
{
    int64_t amount = r->negative ? -r->amount : r->amount;
    size_t i;

    if (apportion(sb, r, amount, err))
        return LEDGER_ERR;
    for (i = 0; i < sb->n; i++) {
        int64_t part = amount < 0 ? -sb->cents[i] : sb->cents[i];

        if (r->owner == me && sb->v[i].participant_id != me) {
            if (id_tally_add(to_me, sb->v[i].participant_id, part, err))
                return LEDGER_ERR;
        } else if (r->owner != me && sb->v[i].participant_id == me) {
            if (id_tally_add(by_me, r->owner, part, err))
                return LEDGER_ERR;
        }
    }
    return LEDGER_OK;
}

/* The sums a walk over a trip's rows keeps: the spend (total, and each
 * participant's part in a) or what is owed (a to the viewer, b by them). */
struct trip_sums {
    int64_t me;
    money_sum total;
    struct id_tally a, b;
    struct split_buf sb;
};

static void trip_sums_free(struct trip_sums *t)
{
    id_tally_free(&t->a);
    id_tally_free(&t->b);
    split_buf_free(&t->sb);
}

/* Steps sql (?1 the trip, ?2 the viewer) and adds each row to t, as spend
 * or, with owed, as what it makes owed. */
static int walk_rows(ledger_db *db, const char *sql, int owed, int64_t trip, struct trip_sums *t,
                     ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    struct trip_row r;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, trip);
    sqlite3_bind_int64(st, 2, t->me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        trip_row_read(st, &r);
        if (!owed)
            t->total += r.amount;
        if (owed ? owed_row_add(&t->sb, &r, t->me, &t->a, &t->b, err)
                 : spend_row_add(&t->sb, &r, &t->a, err))
            break;
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return LEDGER_ERR;
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "trip rows");
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

/* Names each object of part (by its participant_id, its "name" null until
 * then): one statement for them all.  A user with neither name nor email
 * stays null. */
static int add_user_names(ledger_db *db, int64_t me, int64_t trip, cJSON *part, ledger_error *err)
{
    cJSON *ids = cJSON_CreateArray(), *o;
    sqlite3_stmt *st = NULL;
    char *list = NULL;
    int rc = LEDGER_ERR, step;

    if (ids == NULL)
        goto oom;
    cJSON_ArrayForEach(o, part) {
        if (!cJSON_AddItemToArray(ids, cJSON_CreateNumber(
                 cJSON_GetNumberValue(cJSON_GetObjectItem(o, "participant_id")))))
            goto oom;
    }
    if ((list = cJSON_PrintUnformatted(ids)) == NULL)
        goto oom;
    if ((st = db_stmt(db, SQL_USERS, err)) == NULL)
        goto out;
    sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, me);
    sqlite3_bind_int64(st, 3, trip);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);

        if (name == NULL)
            continue;
        cJSON_ArrayForEach(o, part)
            if ((int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "participant_id")) == id
                && !cJSON_ReplaceItemInObject(o, "name", cJSON_CreateString(name)))
                goto oom;
    }
    if (step != SQLITE_DONE) {
        db_error(db, err, "trip participants");
        goto out;
    }
    rc = LEDGER_OK;
    goto out;
oom:
    ledger_error_oom(err);
out:
    db_stmt_done(st);
    free(list);
    cJSON_Delete(ids);
    return rc;
}

int ledger_trip_analytics(ledger_db *db, int64_t me, int64_t trip, cJSON **out,
                          ledger_error *err)
{
    cJSON *doc = NULL, *part;
    struct trip_sums t = { .me = me };
    size_t i;
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
        || walk_rows(db, SQL_SPEND_ROWS, 0, trip, &t, err))
        goto fail;
    cJSON_AddItemToObject(doc, "total", money_sum_to_json(t.total));
    part = cJSON_AddArrayToObject(doc, "by_participant");
    for (i = 0; i < t.a.n; i++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "participant_id", (double)t.a.id[i]);
        cJSON_AddNullToObject(o, "name");
        cJSON_AddItemToObject(o, "total", money_sum_to_json(t.a.amount[i]));
        cJSON_AddItemToArray(part, o);
    }
    if (add_user_names(db, me, trip, part, err))
        goto fail;
    trip_sums_free(&t);
    *out = doc;
    return LEDGER_OK;
fail:
    trip_sums_free(&t);
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
    struct trip_sums t = { .me = me };
    sqlite3_stmt *st;
    int participant, rc;

    if (access_trip(db, me, trip, &participant, err)) {
        err->field[0] = '\0';
        return LEDGER_ERR;
    }
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", NULL, "you do not take part in this trip");
    if (walk_rows(db, SQL_OWED_ROWS, 1, trip, &t, err))
        goto fail;
    /* Payments scoped to the trip reduce the direction they settle. */
    if ((st = db_stmt(db, SQL_OWED_PAYMENTS, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, trip);
    sqlite3_bind_int64(st, 2, me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t from = sqlite3_column_int64(st, 0), to = sqlite3_column_int64(st, 1);

        money_sum paid = money_sum_column(st, 2);

        if (to == me ? id_tally_add(&t.a, from, -paid, err) : id_tally_add(&t.b, to, -paid, err))
            break;
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        goto fail;
    if (rc != SQLITE_DONE) {
        db_error(db, err, "trip owed");
        goto fail;
    }
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "trip_id", (double)trip);
    cJSON_AddItemToObject(*out, "owed_to_me", tally_json(&t.a));
    cJSON_AddItemToObject(*out, "owed_by_me", tally_json(&t.b));
    trip_sums_free(&t);
    return LEDGER_OK;
fail:
    trip_sums_free(&t);
    return LEDGER_ERR;
}
