/*
 * What makes a job expensive is bounded, each bound named in its 400:
 * tags per user (TAGS_PER_USER_MAX), by either way a tag is made; the
 * rows one rule run changes (RULE_RUN_ROWS_MAX), by apply (a 400, nothing
 * written) and by apply-all (the rule passed over, the others run); and
 * the rows one trip holds (TRIP_ROWS_MAX), by assigning rows and by a
 * trip from a tag, whose rows change in one transaction.
 * Unit-tested, as the bounds take more rows and tags than an HTTP test
 * can make in its time.
 */
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "fields.h"
#include "rule.h"
#include "sqltest.h"
#include "tap.h"
#include "txn.h"

static int refused(int rc, const ledger_error *err, const char *field, const char *named)
{
    return rc == LEDGER_ERR && err->status == 400 && strcmp(err->code, "invalid_field") == 0
           && strcmp(err->field, field) == 0 && strstr(err->message, named) != NULL;
}

static void tags(ledger_db *db, int64_t me)
{
    ledger_error err;
    cJSON *body, *out = NULL;
    char sql[256];
    int64_t row;
    int rc;

    snprintf(sql, sizeof sql,
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
             " INSERT INTO tags (owner_id, name) SELECT %lld, 'tag ' || i FROM k",
             TAGS_PER_USER_MAX - 1, (long long)me);
    sql_exec(db, sql);
    body = cJSON_Parse("{\"name\": \"the last one\"}");
    ok(ledger_tag_create(db, me, body, &out, &err) == LEDGER_OK, "the %dth tag is made", TAGS_PER_USER_MAX);
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;
    body = cJSON_Parse("{\"name\": \"one too many\"}");
    ledger_error_clear(&err);
    rc = ledger_tag_create(db, me, body, &out, &err);
    ok(refused(rc, &err, "", "tags per user"), "one more is a 400 naming the limit (%s)", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;

    /* Tagging a row by a new name makes a tag too. */
    sql_exec(db, "INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                 " VALUES (1, '2026-01-02', 'debit', 100, 'dining')");
    row = sqlite3_last_insert_rowid(db->sql);
    body = cJSON_Parse("{\"name\": \"by name\"}");
    ledger_error_clear(&err);
    rc = ledger_txn_tag_add(db, me, row, body, &out, &err);
    ok(rc == LEDGER_ERR && err.status == 400 && strstr(err.message, "tags per user") != NULL,
       "as is a tag made by naming it on a row (%s)", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;
    body = cJSON_Parse("{\"name\": \"tag 7\"}");
    ok(ledger_txn_tag_add(db, me, row, body, &out, &err) == LEDGER_OK, "an existing tag is still put on by name");
    cJSON_Delete(body);
    cJSON_Delete(out);
    is_int(sql_int(db, "SELECT COUNT(*) FROM tags WHERE owner_id = 1"), TAGS_PER_USER_MAX, "no tag over the limit");
}

static void runs(ledger_db *db, int64_t me)
{
    ledger_error err;
    cJSON *body, *out = NULL, *skipped;
    char sql[512];
    int rc;

    snprintf(sql, sizeof sql,
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
             " INSERT INTO transactions (owner_id, date, transaction_type, amount, category, description)"
             " SELECT %lld, '2026-02-01', 'debit', 100 + i, 'dining', 'many ' || i FROM k",
             RULE_RUN_ROWS_MAX + 1, (long long)me);
    sql_exec(db, sql);
    body = cJSON_Parse("{\"name\": \"many\", \"conditions\": [{\"field\": \"description\","
                       " \"operator\": \"starts_with\", \"value\": \"many \"}],"
                       " \"actions\": [{\"type\": \"set_merchant\", \"merchant_normalized\": \"Many\"}]}");
    ok(ledger_rule_create(db, me, body, &out, &err) == LEDGER_OK, "a rule over every row");
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;
    ledger_error_clear(&err);
    rc = ledger_rule_apply(db, me, 1, &out, &err);
    ok(refused(rc, &err, "conditions", "rows per run"), "applied to %d rows: a 400 naming the limit (%s)",
       RULE_RUN_ROWS_MAX + 1, err.message);
    cJSON_Delete(out);
    out = NULL;
    is_int(sql_int(db, "SELECT COUNT(*) FROM rule_runs"), 0, "no run is recorded");
    is_int(sql_int(db, "SELECT COUNT(*) FROM transactions WHERE override_merchant_normalized IS NOT NULL"), 0,
           "no row is changed");
    ok(ledger_rule_apply_all(db, me, &out, &err) == LEDGER_OK, "apply-all answers");
    skipped = cJSON_GetObjectItem(out, "skipped");
    ok(cJSON_GetArraySize(skipped) == 1
       && strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(skipped, 0), "reason")->valuestring, "rows per run"),
       "and passes over the rule, saying why");
    cJSON_Delete(out);
    out = NULL;
    sql_exec(db, "DELETE FROM transactions WHERE description = 'many 1'");
    ok(ledger_rule_apply(db, me, 1, &out, &err) == LEDGER_OK, "at %d rows the rule runs (%s)",
       RULE_RUN_ROWS_MAX, err.message);
    cJSON_Delete(out);
    is_int(sql_int(db, "SELECT COUNT(*) FROM transactions WHERE override_merchant_normalized = 'Many'"),
           RULE_RUN_ROWS_MAX, "and changes every row");
}

/* A call in a transaction of its own, as a request's: rolled back when
 * it fails. */
static int in_txn(ledger_db *db, int rc, ledger_error *err)
{
    if (rc == LEDGER_OK)
        return ledger_commit(db, err);
    ledger_rollback(db);
    return rc;
}

static void trips(ledger_db *db, int64_t me)
{
    ledger_error err;
    cJSON *body, *out = NULL;
    char sql[512], text[128];
    int64_t trip = 0, extra, tag, bob = 0;
    int rc;

    body = cJSON_Parse("{\"name\": \"the long one\"}");
    if (ledger_begin(db, 1, &err) == LEDGER_OK
        && in_txn(db, ledger_trip_create(db, me, body, &out, &err), &err) == LEDGER_OK)
        trip = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
    ok(trip > 0, "a trip (%s)", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
             " INSERT INTO transactions (owner_id, date, transaction_type, amount, description,"
             " override_trip_id) SELECT %lld, '2026-03-01', 'debit', 100 + i, 'away ' || i, %lld FROM k",
             TRIP_ROWS_MAX, (long long)me, (long long)trip);
    sql_exec(db, sql);
    sql_exec(db, "INSERT INTO transactions (owner_id, date, transaction_type, amount, description)"
                 " VALUES (1, '2026-03-02', 'debit', 5, 'one more')");
    extra = sqlite3_last_insert_rowid(db->sql);
    snprintf(text, sizeof text, "{\"transaction_ids\": [%lld, %lld]}", (long long)extra,
             (long long)sql_int(db, "SELECT id FROM transactions WHERE description = 'away 1'"));
    body = cJSON_Parse(text);
    ledger_error_clear(&err);
    rc = ledger_begin(db, 1, &err) ? LEDGER_ERR
                                    : in_txn(db, ledger_trip_rows(db, me, trip, body, 1, &out, &err), &err);
    ok(refused(rc, &err, "transaction_ids", "rows per trip"),
       "a row more than %d in a trip is a 400 naming the limit (%s)", TRIP_ROWS_MAX, err.message);
    cJSON_Delete(out);
    out = NULL;
    is_int(sql_int(db, "SELECT COUNT(*) FROM transactions WHERE override_trip_id IS NOT NULL"),
           TRIP_ROWS_MAX, "and is not put in it");
    cJSON_Delete(body);
    /* The row's access is checked first: another user's row is a 403, as
     * without the limit, whatever the trip holds. */
    ledger_user_resolve(db, "bob", "bob@example.org", NULL, &bob, &err);
    snprintf(sql, sizeof sql, "INSERT INTO transactions (owner_id, date, transaction_type, amount,"
                              " description) VALUES (%lld, '2026-03-02', 'debit', 5, 'bob''s')",
             (long long)bob);
    sql_exec(db, sql);
    snprintf(text, sizeof text, "{\"transaction_ids\": [%lld]}",
             (long long)sqlite3_last_insert_rowid(db->sql));
    body = cJSON_Parse(text);
    ledger_error_clear(&err);
    rc = ledger_begin(db, 1, &err) ? LEDGER_ERR
                                    : in_txn(db, ledger_trip_rows(db, me, trip, body, 1, &out, &err), &err);
    ok(rc == LEDGER_ERR && err.status == 403, "another user's row is 403 before the limit (%d %s)",
       err.status, err.message);
    cJSON_Delete(out);
    out = NULL;
    cJSON_Delete(body);
    snprintf(text, sizeof text, "{\"transaction_ids\": [%lld]}",
             (long long)sql_int(db, "SELECT id FROM transactions WHERE description = 'away 1'"));
    body = cJSON_Parse(text);
    ledger_error_clear(&err);
    ok(ledger_begin(db, 1, &err) == LEDGER_OK
       && in_txn(db, ledger_trip_rows(db, me, trip, body, 1, &out, &err), &err) == LEDGER_OK,
       "a row already in the full trip is put in it again (%s)", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    out = NULL;

    /* A trip from a tag (one on no row yet) on one row more than a trip
     * holds. */
    tag = sql_int(db, "SELECT id FROM tags WHERE name = 'tag 8'");
    snprintf(sql, sizeof sql, "INSERT INTO transaction_tags (transaction_id, tag_id)"
                              " SELECT id, %lld FROM transactions WHERE description LIKE 'many %%'"
                              " ORDER BY id LIMIT %d", (long long)tag, TRIP_ROWS_MAX + 1);
    sql_exec(db, sql);
    snprintf(text, sizeof text, "{\"tag_id\": %lld}", (long long)tag);
    body = cJSON_Parse(text);
    ledger_error_clear(&err);
    rc = ledger_begin(db, 1, &err) ? LEDGER_ERR
                                    : in_txn(db, ledger_trip_from_tag(db, me, body, &out, &err), &err);
    ok(refused(rc, &err, "tag_id", "rows per trip"),
       "a trip from a tag on %d rows is a 400 naming the limit (%s)", TRIP_ROWS_MAX + 1, err.message);
    cJSON_Delete(out);
    out = NULL;
    is_int(sql_int(db, "SELECT COUNT(*) FROM trips"), 1, "no trip is made");
    is_int(sql_int(db, "SELECT COUNT(*) FROM transaction_tags WHERE tag_id = (SELECT id FROM tags"
                       " WHERE name = 'tag 8')"), TRIP_ROWS_MAX + 1, "and the tag stays on its rows");
    snprintf(sql, sizeof sql, "DELETE FROM transaction_tags WHERE tag_id = %lld AND transaction_id ="
                              " (SELECT max(transaction_id) FROM transaction_tags WHERE tag_id = %lld)",
             (long long)tag, (long long)tag);
    sql_exec(db, sql);
    ledger_error_clear(&err);
    ok(ledger_begin(db, 1, &err) == LEDGER_OK
       && in_txn(db, ledger_trip_from_tag(db, me, body, &out, &err), &err) == LEDGER_OK,
       "on %d rows it is made (%s)", TRIP_ROWS_MAX, err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    is_int(sql_int(db, "SELECT COUNT(*) FROM transactions WHERE override_trip_id ="
                       " (SELECT max(id) FROM trips)"), TRIP_ROWS_MAX, "holding them all");
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me = 0;

    ok(ledger_open(":memory:", &db, &err) == LEDGER_OK, "an in-memory database");
    ledger_user_resolve(db, "alice", "alice@example.org", NULL, &me, &err);
    tags(db, me);
    runs(db, me);
    trips(db, me);
    ledger_close(db);
    return done_testing();
}
