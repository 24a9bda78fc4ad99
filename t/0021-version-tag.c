/*
 * lib/version_tag.c: the tags a front end sends as ETags.  A state tag
 * names each thing an answer depends on (a request's tag that did not move
 * with one of them would have a client keep a stale answer), the date
 * among them, which an HTTP test cannot move; and the data version moves
 * with every committed write that changed a row, never with a read.
 */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "ledger.h"
#include "tap.h"

static struct ledger_tag_state base(void)
{
    struct ledger_tag_state s = { 42, 30, 7, "AUD", "GET", "/api/transactions?limit=5", "2026-03-31" };
    return s;
}

static void differs(const struct ledger_tag_state *s, const char *what)
{
    char a[LEDGER_TAG_SIZE], b[LEDGER_TAG_SIZE];
    struct ledger_tag_state s0 = base();

    ledger_tag_of_state(&s0, a);
    ledger_tag_of_state(s, b);
    ok(strcmp(a, b) != 0, "the tag moves with %s", what);
}

static int64_t version(ledger_db *db)
{
    ledger_error err;
    int64_t v = 0;
    int schema = 0;

    ledger_begin(db, 0, &err);
    if (ledger_data_version(db, &v, &schema, &err))
        printf("# data version: %s\n", err.message);
    ledger_commit(db, &err);
    is_int(schema, ledger_schema_latest(), "the schema version comes with it");
    return v;
}

int main(void)
{
    struct ledger_tag_state s = base();
    char a[LEDGER_TAG_SIZE], b[LEDGER_TAG_SIZE];
    ledger_db *db = NULL;
    ledger_error err;
    int64_t uid = 0, v;
    cJSON *body, *out = NULL;

    ledger_tag_of_state(&s, a);
    ledger_tag_of_state(&s, b);
    is_str(a, b, "the same state, the same tag");
    ok(strlen(a) == 18 && a[0] == '"' && a[17] == '"' && strspn(a + 1, "0123456789abcdef") == 16,
       "a quoted string of 16 hex digits: %s", a);
    s.date = "2026-04-01";
    differs(&s, "the date");
    s = base(); s.data_version = 43; differs(&s, "the data version");
    s = base(); s.schema = 31; differs(&s, "the schema version");
    s = base(); s.user_id = 8; differs(&s, "the user");
    s = base(); s.home_currency = "EUR"; differs(&s, "the home currency");
    s = base(); s.method = "POST"; differs(&s, "the method");
    s = base(); s.target = "/api/transactions?limit=6"; differs(&s, "the query string");
    s = base(); s.target = "/api/transactions?limit=5GET"; s.method = ""; differs(&s, "where one field ends");

    ledger_tag_of_bytes("{\"id\":1}", 8, a);
    ledger_tag_of_bytes("{\"id\":2}", 8, b);
    ok(strcmp(a, b) != 0, "a content tag moves with a byte");
    ledger_tag_of_bytes("{\"id\":1}", 8, b);
    is_str(a, b, "and is the same for the same bytes");

    if (ledger_open(":memory:", &db, &err)) {
        printf("# open: %s\n", err.message);
        return done_testing();
    }
    v = version(db);
    is_int(version(db), v, "a read leaves the data version");
    ok(ledger_user_resolve(db, "ann", NULL, NULL, &uid, &err) == LEDGER_OK, "a new user");
    ok(version(db) != v, "a user's first request moves it");
    v = version(db);
    ok(ledger_user_resolve(db, "ann", NULL, NULL, &uid, &err) == LEDGER_OK, "the user again");
    is_int(version(db), v, "which writes nothing and leaves it");

    body = cJSON_Parse("{\"name\":\"work\"}");
    ledger_begin(db, 1, &err);
    ok(ledger_tag_create(db, uid, body, &out, &err) == LEDGER_OK, "a write");
    ledger_rollback(db);
    cJSON_Delete(out);
    out = NULL;
    is_int(version(db), v, "rolled back, it leaves the version");
    ledger_begin(db, 1, &err);
    ledger_tag_create(db, uid, body, &out, &err);
    ok(ledger_commit(db, &err) == LEDGER_OK, "committed");
    cJSON_Delete(out);
    out = NULL;
    ok(version(db) != v, "it moves the version");
    v = version(db);
    ledger_begin(db, 1, &err);
    ok(ledger_commit(db, &err) == LEDGER_OK, "a write transaction that changes nothing");
    is_int(version(db), v, "leaves it");
    ledger_begin(db, 0, &err);
    ok(ledger_tag_list(db, uid, &out, &err) == LEDGER_OK, "a read of the tags");
    ledger_commit(db, &err);
    cJSON_Delete(out);
    is_int(version(db), v, "leaves it");
    ledger_begin(db, 0, &err);
    ok(ledger_tag_now(db, uid, "GET", "/api/tags", a, &err) == LEDGER_OK, "a tag of now");
    ledger_tag_now(db, uid, "GET", "/api/tags", b, &err);
    ledger_commit(db, &err);
    is_str(a, b, "twice the same");
    cJSON_Delete(body);
    ledger_close(db);
    return done_testing();
}
