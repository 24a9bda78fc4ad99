/*
 * Splits (Business rule A): the shares of one transaction total exactly
 * 100%.  What the named participants leave is written as a row for the
 * transaction's OWNER, never for whoever is looking, on every write path.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "share.h"
#include "txn.h"

#define FULL 10000  /* 100.00% in hundredths */
#define MAX_PARTICIPANTS 100

static const char SQL_SPLIT_UPSERT[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (transaction_id, participant_id) DO UPDATE SET share_percent = excluded.share_percent";
static const char SQL_SPLIT_PRUNE[] =
    "DELETE FROM splits WHERE transaction_id = ?1"
    "   AND participant_id NOT IN (SELECT value FROM json_each(?2))";
/* The row's trip when the trip is the row owner's own, whose split
 * people take part in it (trip.c). */
static const char SQL_OWNERS_TRIP[] =
    "SELECT tr.id FROM transactions t"
    "  JOIN trips tr ON tr.id = t.override_trip_id AND tr.owner_id = t.owner_id"
    " WHERE t.id = ?";

void split_set_free(struct split_set *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

int split_parse(ledger_db *db, const cJSON *arr, const char *field, int64_t owner,
                int64_t caller, struct split_set *out, ledger_error *err)
{
    const cJSON *item;
    int64_t total = 0;
    int owner_named = 0;
    size_t n, i;

    memset(out, 0, sizeof *out);
    if (!cJSON_IsArray(arr))
        return error_field(err, field,
                           "%s must be an array of {participant_id, share_percent}", field);
    n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0)
        return error_field(err, field, "%s must name at least one participant (clearing splits is "
                           "DELETE /api/transactions/{id}/splits)", field);
    if (n > MAX_PARTICIPANTS)
        return error_field(err, field,
                           "%s names more than %d participants", field, MAX_PARTICIPANTS);
    out->v = calloc(n + 1, sizeof *out->v);  /* +1: the owner's remainder */
    if (out->v == NULL)
        return ledger_error_oom(err);
    cJSON_ArrayForEach(item, arr) {
        struct split_share *s = &out->v[out->n];

        if (!cJSON_IsObject(item)) {
            error_field(err, field, "each entry of %s must be an object", field);
            goto fail;
        }
        if (field_id(item, "participant_id", 1, 0, &s->participant_id, NULL, err)
            || ledger_percent_from_json(cJSON_GetObjectItemCaseSensitive(item, "share_percent"),
                                        "share_percent", &s->share, err))
            goto fail;
        if (s->share <= 0) {
            error_field(err, "share_percent", "share_percent must be more than 0");
            goto fail;
        }
        for (i = 0; i < out->n; i++)
            if (out->v[i].participant_id == s->participant_id) {
                error_field(err, field,
                            "participant %lld is named twice", (long long)s->participant_id);
                goto fail;
            }
        /* Only people the owner shares with (participant.c): an id alone
         * names nobody. */
        if (participant_check(db, owner, s->participant_id, "participant_id", caller == owner, err))
            goto fail;
        owner_named |= s->participant_id == owner;
        total += s->share;
        out->n++;
    }
    if (total > FULL) {
        error_field(err, field, "the shares total more than 100%%");
        goto fail;
    }
    if (owner_named && total != FULL) {
        error_field(err, field, "the owner is named, so the shares must total exactly 100%%");
        goto fail;
    }
    /* The owner alone at 100% shares the row with nobody: a split of one
     * would list it as split (has_split) all the same. */
    if (owner_named && out->n == 1) {
        error_field(err, field, "%s must name someone besides the owner (clearing splits is "
                    "DELETE /api/transactions/{id}/splits)", field);
        goto fail;
    }
    if (total < FULL) {
        out->v[out->n].participant_id = owner;
        out->v[out->n].share = FULL - total;
        out->n++;
    }
    return LEDGER_OK;
fail:
    split_set_free(out);
    return LEDGER_ERR;
}

/* Upserts each share and removes only participants no longer named, so the
 * settled flags of those who stay survive. */
int split_write(ledger_db *db, int64_t txn_id, const struct split_set *s, ledger_error *err)
{
    cJSON *keep = cJSON_CreateArray();
    char *text = NULL;
    size_t i;
    int rc = LEDGER_ERR;

    if (keep == NULL)
        return ledger_error_oom(err);
    for (i = 0; i < s->n; i++) {
        if (db_exec(db, err, "split", SQL_SPLIT_UPSERT, DB_INT(txn_id),
                    DB_INT(s->v[i].participant_id), DB_INT(s->v[i].share)))
            goto out;
        /* One left out of keep would have its share pruned below. */
        if (!cJSON_AddItemToArray(keep, cJSON_CreateNumber((double)s->v[i].participant_id)))
            goto oom;
    }
    if ((text = cJSON_PrintUnformatted(keep)) == NULL)
        goto oom;
    rc = db_exec(db, err, "split", SQL_SPLIT_PRUNE, DB_INT(txn_id), DB_TEXT(text));
    goto out;
oom:
    ledger_error_oom(err);
out:
    free(text);
    cJSON_Delete(keep);
    return rc;
}

void split_apportion(int64_t amount, struct split_share *v, size_t n, int64_t owner,
                     int64_t *cents)
{
    int64_t left = amount;
    size_t i, k;
    int64_t *rem = calloc(n ? n : 1, sizeof *rem);

    for (i = 0; i < n; i++) {
        __int128 exact = (__int128)amount * v[i].share;

        cents[i] = (int64_t)(exact / FULL);
        if (rem)
            rem[i] = (int64_t)(exact % FULL);
        left -= cents[i];
    }
    /* Largest remainder: the cents left over go one each to the largest
     * fractional parts; ties to the owner's row, then the lowest id. */
    for (k = 0; rem && left > 0 && k < n; k++, left--) {
        size_t best = n;

        for (i = 0; i < n; i++) {
            if (rem[i] < 0)
                continue;
            if (best == n || rem[i] > rem[best]
                || (rem[i] == rem[best]
                    && (v[i].participant_id == owner
                        || (v[best].participant_id != owner
                            && v[i].participant_id < v[best].participant_id))))
                best = i;
        }
        if (best == n)
            break;
        cents[best]++;
        rem[best] = -1;
    }
    free(rem);
}

static const char SQL_SPLIT_CLEAR[] = "DELETE FROM splits WHERE transaction_id = ?";
/* The owner settles every participant's row; a participant only their own. */
static const char SQL_SPLIT_SETTLE[] =
    "UPDATE splits SET settled = ?3"
    " WHERE transaction_id = ?1"
    "   AND CASE WHEN ?4 THEN participant_id <> ?2 ELSE participant_id = ?2 END";
static const char SQL_SPLIT_COUNT[] = "SELECT COUNT(*) FROM splits WHERE transaction_id = ?";

/* {items: the row's splits, total}: read from the row, so the amounts are
 * the same apportioned cents every transaction read shows. */
static int splits_doc(ledger_db *db, int64_t me, int64_t txn_id, cJSON **out, ledger_error *err)
{
    cJSON *row = NULL, *items;

    if (txn_get(db, me, txn_id, &row, err))
        return LEDGER_ERR;
    items = cJSON_DetachItemFromObject(row, "splits");
    cJSON_Delete(row);
    *out = cJSON_CreateObject();
    cJSON_AddItemToObject(*out, "items", items);
    cJSON_AddNumberToObject(*out, "total", cJSON_GetArraySize(items));
    return LEDGER_OK;
}

int ledger_split_get(ledger_db *db, int64_t me, int64_t txn_id, cJSON **out, ledger_error *err)
{
    struct txn_access a;

    if (access_txn(db, me, txn_id, &a, err))
        return LEDGER_ERR;
    return splits_doc(db, me, txn_id, out, err);
}

/* A participant may set the owner's shares, but on a row in the owner's
 * trip a new person in the split would take part in the trip, and only its
 * owner brings people in: each person named must take part already. */
static int check_trip_people(ledger_db *db, int64_t txn_id, const struct split_set *ss,
                             ledger_error *err)
{
    int64_t trip;
    size_t i;
    int participant;

    if (db_int(db, err, "splits", &trip, 0, SQL_OWNERS_TRIP, DB_INT(txn_id)))
        return LEDGER_ERR;
    for (i = 0; trip && i < ss->n; i++) {
        if (access_trip(db, ss->v[i].participant_id, trip, &participant, err))
            return LEDGER_ERR;
        if (!participant)
            return ledger_error_set(err, 403, "forbidden", "participant_id",
                                    "user %lld does not take part in trip %lld, which this row is"
                                    " in, and only its owner brings people in",
                                    (long long)ss->v[i].participant_id, (long long)trip);
    }
    return LEDGER_OK;
}

int ledger_split_set(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                     cJSON **out, ledger_error *err)
{
    struct txn_access a;
    struct split_set ss;
    int rc;

    if (access_txn(db, me, txn_id, &a, err))
        return LEDGER_ERR;
    if (!cJSON_IsArray(body))
        return ledger_error_set(err, 400, "invalid_json", NULL,
                                "the body must be a JSON array of {participant_id, share_percent}");
    /* Completed for the transaction's owner, whoever is asking. */
    if (split_parse(db, body, "splits", a.owner_id, me, &ss, err))
        return LEDGER_ERR;
    rc = (!a.is_owner && check_trip_people(db, txn_id, &ss, err)) || split_write(db, txn_id, &ss, err);
    split_set_free(&ss);
    return rc ? LEDGER_ERR : splits_doc(db, me, txn_id, out, err);
}

int ledger_split_clear(ledger_db *db, int64_t me, int64_t txn_id, ledger_error *err)
{
    struct txn_access a;

    if (access_txn(db, me, txn_id, &a, err))
        return LEDGER_ERR;
    return db_exec(db, err, "splits", SQL_SPLIT_CLEAR, DB_INT(txn_id));
}

int ledger_split_settle(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                        cJSON **out, ledger_error *err)
{
    struct txn_access a;
    const cJSON *settled;
    int64_t n;

    if (access_txn(db, me, txn_id, &a, err) || field_require_object(body, err))
        return LEDGER_ERR;
    settled = cJSON_GetObjectItemCaseSensitive(body, "settled");
    if (!cJSON_IsBool(settled))
        return error_field(err, "settled", "settled must be true or false");
    if (db_int(db, err, "splits", &n, 0, SQL_SPLIT_COUNT, DB_INT(txn_id)))
        return LEDGER_ERR;
    if (n == 0)
        return ledger_error_set(err, 409, "conflict", NULL, "the transaction is not split");
    if (db_exec(db, err, "settle", SQL_SPLIT_SETTLE, DB_INT(txn_id), DB_INT(me),
                DB_INT(cJSON_IsTrue(settled)), DB_INT(a.is_owner)))
        return LEDGER_ERR;
    return splits_doc(db, me, txn_id, out, err);
}

int split_buf_room(struct split_buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 8;
    struct split_share *v;
    int64_t *cents;

    if (n <= b->cap)
        return 0;
    while (cap < n)
        cap *= 2;
    if ((v = realloc(b->v, cap * sizeof *v)) == NULL)
        return -1;
    b->v = v;
    if ((cents = realloc(b->cents, cap * sizeof *cents)) == NULL)
        return -1;
    b->cents = cents;
    b->cap = cap;
    return 0;
}

void split_buf_free(struct split_buf *b)
{
    free(b->v);
    free(b->cents);
    memset(b, 0, sizeof *b);
}

int split_buf_parse(struct split_buf *b, const char *text)
{
    const char *p = text;
    char *end;

    b->n = 0;
    while (p && *p) {
        long long who = strtoll(p, &end, 10), share;

        if (end == p || *end != ',')
            return -1;
        p = end + 1;
        share = strtoll(p, &end, 10);
        if (end == p || (*end != ';' && *end != '\0') || split_buf_room(b, b->n + 1))
            return -1;
        b->v[b->n].participant_id = who;
        b->v[b->n++].share = share;
        p = *end ? end + 1 : end;
    }
    return 0;
}
