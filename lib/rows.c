/* Result rows to JSON: the column readers and the {items, total} list that
 * every simple listing shares. */
#include <string.h>

#include "db.h"
#include "json_out.h"

void json_add(cJSON *o, const char *k, cJSON *item)
{
    cJSON_AddItemToObjectCS(o, k, item);
}

void json_text_col(cJSON *o, const char *k, sqlite3_stmt *st, int col)
{
    const char *v = (const char *)sqlite3_column_text(st, col);

    json_add(o, k, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

void json_money_col(cJSON *o, const char *k, sqlite3_stmt *st, int col)
{
    json_add(o, k, sqlite3_column_type(st, col) == SQLITE_NULL
                   ? cJSON_CreateNull() : ledger_money_to_json(sqlite3_column_int64(st, col)));
}

void json_id_col(cJSON *o, const char *k, sqlite3_stmt *st, int col)
{
    json_add(o, k, sqlite3_column_type(st, col) == SQLITE_NULL
                   ? cJSON_CreateNull() : cJSON_CreateNumber((double)sqlite3_column_int64(st, col)));
}

void list_pick(cJSON **list, const char *key, int64_t id, const char *text)
{
    cJSON *items = cJSON_GetObjectItemCaseSensitive(*list, "items"), *o, *v, *found = NULL;

    cJSON_ArrayForEach(o, items) {
        v = cJSON_GetObjectItemCaseSensitive(o, key);
        if (text ? cJSON_IsString(v) && strcmp(v->valuestring, text) == 0
                 : cJSON_IsNumber(v) && v->valuedouble == (double)id) {
            found = cJSON_DetachItemViaPointer(items, o);
            break;
        }
    }
    cJSON_Delete(*list);
    *list = found;
}

int db_list(ledger_db *db, sqlite3_stmt *st, cJSON *(*row)(sqlite3_stmt *), cJSON **out,
            ledger_error *err)
{
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items"), *o;
    int rc = SQLITE_ROW;

    /* Each row added, or out of memory: never a list with rows left out. */
    while (items && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((o = row(st)) == NULL)
            break;
        if (!cJSON_AddItemToArray(items, o)) {
            cJSON_Delete(o);
            break;
        }
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        cJSON_Delete(doc);
        return rc == SQLITE_ROW ? ledger_error_oom(err) : db_error(db, err, "list");
    }
    cJSON_AddNumberToObject(doc, "total", cJSON_GetArraySize(items));
    *out = doc;
    return LEDGER_OK;
}
