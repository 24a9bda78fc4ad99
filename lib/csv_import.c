/*
 * CSV import: preview a bank export with a column mapping, then commit the
 * (possibly edited) preview rows as manual transactions.
 *
 * The preview writes nothing and never fails on a bad row: each row carries
 * its own errors, and duplicate_of names an existing row with the same
 * date, amount and description.  The commit is all or nothing; every row
 * it creates is the caller's, has statement_id NULL, belongs to one
 * csv_imports batch and carries the tag csv-import.  Duplicates of
 * existing rows are skipped unless allow_duplicates.  Column-mapping
 * presets live with the client (contrib/csv-presets/), as the
 * specification says: the server keeps no state between the two calls.
 *
 * This file reads the mapping and builds the preview; csv.c reads the
 * file, csv_duplicate.c finds the duplicates and csv_commit.c writes the
 * rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "merchant_clean.h"
#include "txn.h"
#include "suggest.h"
#include "fields.h"
#include "csv.h"
#include "csv_import.h"
#include "text.h"

/* ---- the mapping ------------------------------------------------------------------------- */

/* A column given as a name (string) or a 0-based index (number, and then
 * *number is set); the index's text goes into buf.  field is key's name
 * in an error, "mapping.<key>". */
static int mapping_column(const cJSON *m, const char *key, const char *field, char *buf,
                          size_t len, const char **out, int *number, ledger_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    int64_t idx;

    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return LEDGER_OK;
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return LEDGER_OK;
    }
    if (cJSON_IsNumber(v) && (v->valuestring && strcmp(v->valuestring, "0") == 0 ? 1 : json_id(v, &idx) == 0)) {
        snprintf(buf, len, "%s", v->valuestring ? v->valuestring : "0");
        *out = buf;
        *number = 1;
        return LEDGER_OK;
    }
    return error_field(err, field, "%s must be a column name or a 0-based index", field);
}

/* The mapping's column keys, in csv_mapping's numbers order; "memo" is
 * another name for "notes" (the word exports use). */
#define MAPPING_COLUMNS 9

struct mapping_text {
    char idx[MAPPING_COLUMNS + CSV_MAX_DESC - 1][24];
};

/* A list of words (debit_values, credit_values): an array of 1 to
 * CSV_MAX_WORDS non-empty strings. */
static int mapping_words(const cJSON *m, const char *key, const char *field,
                         const char **words, int *n, ledger_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key), *w;

    *n = 0;
    if (v == NULL || cJSON_IsNull(v))
        return LEDGER_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > CSV_MAX_WORDS)
        return error_field(err, field, "%s must be a list of 1 to %d values such as [\"D\", \"DR\"]",
                           field, CSV_MAX_WORDS);
    cJSON_ArrayForEach(w, v) {
        if (!cJSON_IsString(w) || w->valuestring[0] == '\0')
            return error_field(err, field, "%s must list non-empty strings", field);
        words[(*n)++] = w->valuestring;
    }
    return LEDGER_OK;
}

/* The mapping from a JSON object ({date, description (one column or a
 * list), amount | debit + credit, direction, debit_values, credit_values,
 * merchant, category, notes (or memo), date_format, has_header, delimiter,
 * negate, decimal, skip_lines, encoding}). */
static int mapping_from_json(const cJSON *m, struct csv_mapping *out, struct mapping_text *t,
                             ledger_error *err)
{
    static const char *const cols[MAPPING_COLUMNS] = {
        "date", "description", "amount", "debit", "credit", "direction", "merchant", "category",
        "notes"
    };
    static const char *const fields[MAPPING_COLUMNS] = {
        "mapping.date", "mapping.description", "mapping.amount", "mapping.debit",
        "mapping.credit", "mapping.direction", "mapping.merchant", "mapping.category",
        "mapping.notes"
    };
    const char **slots[MAPPING_COLUMNS] = {
        &out->date, &out->description, &out->amount, &out->debit, &out->credit, &out->direction,
        &out->merchant, &out->category, &out->notes
    };
    const cJSON *v, *desc;
    size_t i;

    memset(out, 0, sizeof *out);
    out->has_header = -1;
    if (!cJSON_IsObject(m))
        return error_field(err, "mapping",
                           "mapping must be an object: {date, description, amount} or "
                           "{date, description, debit, credit}");
    desc = cJSON_GetObjectItemCaseSensitive(m, "description");
    for (i = 0; i < MAPPING_COLUMNS; i++) {
        const cJSON *from = m;
        const char *key = cols[i];
        cJSON *one = NULL;
        int number = 0, rc;

        if (i == 8 && cJSON_GetObjectItemCaseSensitive(m, "notes") == NULL)
            key = "memo";
        if (i == 1 && cJSON_IsArray(desc)) {
            /* A list: its first column here, the others below. */
            if (cJSON_GetArraySize(desc) < 1 || cJSON_GetArraySize(desc) > CSV_MAX_DESC)
                return error_field(err, "mapping.description",
                                   "mapping.description must be a column or a list of 1 to %d "
                                   "columns", CSV_MAX_DESC);
            from = one = cJSON_CreateObject();
            if (one == NULL || !cJSON_AddItemReferenceToObject(one, key, desc->child)) {
                cJSON_Delete(one);
                return ledger_error_oom(err);
            }
        }
        rc = mapping_column(from, key, fields[i], t->idx[i], sizeof t->idx[i], slots[i], &number,
                            err);
        cJSON_Delete(one);
        if (rc)
            return LEDGER_ERR;
        out->numbers |= (unsigned)number << i;
    }
    if (cJSON_IsArray(desc)) {
        const cJSON *c = desc->child ? desc->child->next : NULL;

        for (i = 0; c; c = c->next, i++) {
            cJSON *one = cJSON_CreateObject();
            char field[48];
            int number = 0, rc;

            if (one == NULL || !cJSON_AddItemReferenceToObject(one, "c", (cJSON *)c)) {
                cJSON_Delete(one);
                return ledger_error_oom(err);
            }
            snprintf(field, sizeof field, "mapping.description[%zu]", i + 1);
            rc = mapping_column(one, "c", field, t->idx[MAPPING_COLUMNS + i],
                                sizeof t->idx[0], &out->description_more[i], &number, err);
            cJSON_Delete(one);
            if (rc)
                return LEDGER_ERR;
            out->numbers |= (unsigned)number << (MAPPING_COLUMNS + i);
        }
    }
    if (mapping_words(m, "debit_values", "mapping.debit_values", out->debit_values,
                      &out->ndebit_values, err)
        || mapping_words(m, "credit_values", "mapping.credit_values", out->credit_values,
                         &out->ncredit_values, err))
        return LEDGER_ERR;
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "date_format")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v))
            return error_field(err, "mapping.date_format",
                               "mapping.date_format must be a string such as \"DD/MM/YYYY\"");
        out->date_format = v->valuestring;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "has_header")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            return error_field(err, "mapping.has_header",
                               "mapping.has_header must be true or false");
        out->has_header = cJSON_IsTrue(v);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "negate")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            return error_field(err, "mapping.negate", "mapping.negate must be true or false");
        out->negate = cJSON_IsTrue(v);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "delimiter")) && !cJSON_IsNull(v)) {
        const char *d = cJSON_IsString(v) ? v->valuestring : "";

        if (strcmp(d, "\\t") == 0 || strcmp(d, "tab") == 0)
            d = "\t";
        if (strlen(d) != 1)
            return error_field(err, "mapping.delimiter",
                               "mapping.delimiter must be one of , ; | or tab");
        out->delimiter = d[0];
    }
    /* The decimal mark, for when the guess was wrong: "." or ",". */
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "decimal")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) || (strcmp(v->valuestring, ".") != 0 && strcmp(v->valuestring, ",") != 0))
            return error_field(err, "mapping.decimal", "mapping.decimal must be \".\" or \",\"");
        out->decimal = v->valuestring[0];
    }
    /* The bytes' charset (csv_read.c), one of the names charset.c reads. */
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "encoding")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) || charset_find(v->valuestring, strlen(v->valuestring)) < 0)
            return error_field(err, "mapping.encoding",
                               "mapping.encoding must be one of " CHARSET_NAMES);
        out->encoding = v->valuestring;
    }
    /* Lines above the header (csv_read.c): a JSON number, whole, as the
     * service read it ("3", not "3.0" or "3e0"), or as the query's
     * digits became one. */
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "skip_lines")) && !cJSON_IsNull(v)) {
        int64_t k = -1;

        if (cJSON_IsNumber(v) && v->valuestring)
            parse_whole(v->valuestring, 0, CSV_MAX_SKIP, &k);
        else if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= CSV_MAX_SKIP
                 && v->valuedouble == (double)(int)v->valuedouble)
            k = (int)v->valuedouble;
        if (k < 0)
            return error_field(err, "mapping.skip_lines",
                               "mapping.skip_lines must be a whole number of lines from 0 to 1000");
        out->skip_lines = (int)k;
    }
    return LEDGER_OK;
}

/* The first of keys but "encoding" the query gives, or NULL. */
static const char *key_given(const struct ledger_params *p, const char *const *keys)
{
    for (; *keys; keys++)
        if (strcmp(*keys, "encoding") != 0 && param_get(p, *keys))
            return *keys;
    return NULL;
}

/* The whole mapping as JSON in the query's "mapping" (for what one key
 * per column cannot say: a list of description columns, the direction's
 * words), with no other mapping key beside it but the encoding, which
 * the body's charset may give. */
static int mapping_from_query_json(const struct ledger_params *p, const char *json,
                                   const char *const *keys, cJSON **m, ledger_error *err)
{
    static const char *const more[] = { "skip_lines", "has_header", "negate", NULL };
    const char *enc = param_get(p, "encoding"), *k;
    char why[sizeof err->message];

    if ((k = key_given(p, keys)) || (k = key_given(p, more)))
        return error_field(err, "mapping", "give the mapping as mapping= or as its keys "
                           "(%s=...), not both", k);
    if (ledger_json_parse(json, strlen(json), m, err)) {
        snprintf(why, sizeof why, "%s", err->message);
        return error_field(err, "mapping", "mapping= must be the mapping as a JSON object (%s)",
                           why);
    }
    if (enc && cJSON_IsObject(*m) && !cJSON_HasObjectItem(*m, "encoding")
        && cJSON_AddStringToObject(*m, "encoding", enc) == NULL) {
        cJSON_Delete(*m);
        *m = NULL;
        return ledger_error_oom(err);
    }
    return LEDGER_OK;
}

/* The same from query parameters (for a text/csv body): the mapping's
 * keys one by one, or the whole mapping as JSON in "mapping". */
static int mapping_from_params(const struct ledger_params *p, cJSON **m, ledger_error *err)
{
    static const char *const keys[] = { "date", "description", "amount", "debit", "credit",
                                        "direction", "merchant", "category", "notes", "memo",
                                        "date_format", "delimiter", "decimal", "encoding", NULL };
    const char *v, *json = param_get(p, "mapping");
    int i;

    *m = NULL;
    if (json)
        return mapping_from_query_json(p, json, keys, m, err);
    *m = cJSON_CreateObject();
    for (i = 0; keys[i]; i++)
        if ((v = param_get(p, keys[i])) && *v)
            cJSON_AddStringToObject(*m, keys[i], v);
    /* Digits become the number the JSON body gives; anything else is
     * refused as the body's would be. */
    if ((v = param_get(p, "skip_lines")) && *v) {
        int64_t k;

        if (parse_whole(v, 0, CSV_MAX_SKIP, &k)) {
            cJSON_Delete(*m);
            *m = NULL;
            return error_field(err, "mapping.skip_lines",
                               "mapping.skip_lines must be a whole number of lines from 0 to 1000");
        }
        cJSON_AddNumberToObject(*m, "skip_lines", (double)k);
    }
    for (i = 0; i < 2; i++) {
        const char *k = i ? "negate" : "has_header";
        const char *field = i ? "mapping.negate" : "mapping.has_header";

        if ((v = param_get(p, k))) {
            if (strcmp(v, "1") && strcmp(v, "true") && strcmp(v, "0") && strcmp(v, "false")) {
                cJSON_Delete(*m);
                *m = NULL;
                return error_field(err, field, "%s must be true or false", field);
            }
            cJSON_AddBoolToObject(*m, k, v[0] == '1' || v[0] == 't');
        }
    }
    return LEDGER_OK;
}

/* ---- preview ----------------------------------------------------------------------------- */

static void add_text_or_null(cJSON *o, const char *key, const char *text)
{
    if (text)
        cJSON_AddStringToObject(o, key, text);
    else
        cJSON_AddNullToObject(o, key);
}

/* A warning for each currency other than home that the file's amounts
 * name ("12.50 USD"): the amounts are read as written, and a row keeps
 * the home currency unless the commit is sent its currency, so the
 * figures would be another currency's without this. */
static void warn_currencies(cJSON *warnings, const struct csv_result *res, const char *home)
{
    enum { MAX_CODES = 8 };
    struct { char code[4]; int line; size_t n; } seen[MAX_CODES];
    size_t i, k, nseen = 0;

    for (i = 0; i < res->nrows; i++) {
        const struct csv_row *r = &res->rows[i];

        if (!r->currency[0] || strcmp(r->currency, home) == 0)
            continue;
        for (k = 0; k < nseen && strcmp(seen[k].code, r->currency) != 0; k++)
            ;
        if (k == nseen && nseen == MAX_CODES)
            continue;
        if (k == nseen) {
            memcpy(seen[k].code, r->currency, 4);
            seen[k].line = r->line;
            seen[k].n = 0;
            nseen++;
        }
        seen[k].n++;
    }
    for (k = 0; k < nseen; k++) {
        char msg[400];

        snprintf(msg, sizeof msg, "line %d: %zu amount%s written in %s, not %s (the home "
                 "currency): kept as written, and in %s unless each row is committed with its "
                 "currency and its home amount (amount_aud) or exchange_rate_to_aud",
                 seen[k].line, seen[k].n, seen[k].n == 1 ? " is" : "s are", seen[k].code, home,
                 home);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
    }
}

/* Adds row r's category suggestion to its preview o, when there is one:
 * merchant is the row's merchant as the preview shows it (the mapped
 * column's, else the one its description names), NULL for none. */
static int preview_suggestion(ledger_db *db, int64_t me, struct suggest_memo *memo, cJSON *o,
                              const struct csv_row *r, const char *merchant, ledger_error *err)
{
    struct suggestion s;
    int found;

    if (suggest_row_memo(db, me, memo, r->description, merchant,
                         r->amount < 0 ? "debit" : "credit", &s, &found, err))
        return LEDGER_ERR;
    if (!found)
        return LEDGER_OK;
    cJSON_DeleteItemFromObjectCaseSensitive(o, "category");
    return suggestion_add_json(o, &s) ? ledger_error_oom(err) : LEDGER_OK;
}

int ledger_csv_preview(ledger_db *db, int64_t me, const char *csv, size_t len,
                       const cJSON *body, const struct ledger_params *params, cJSON **out,
                       ledger_error *err)
{
    struct csv_mapping map;
    struct mapping_text text;
    struct csv_result res;
    struct dup_key *keys = NULL;
    int64_t *dups = NULL;
    cJSON *own_mapping = NULL, *doc = NULL, *arr, *detected;
    const cJSON *mapping;
    char delim[3];
    struct suggest_memo memo = { NULL, 0, 0 };
    size_t i;

    /* A JSON body {csv, mapping}, or the file itself with the mapping in
     * the query string. */
    if (body) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(body, "csv");

        if (field_require_object(body, err))
            return LEDGER_ERR;
        if (!cJSON_IsString(c))
            return error_field(err, "csv", "csv must be the file's text");
        csv = c->valuestring;
        len = strlen(csv);
        mapping = cJSON_GetObjectItemCaseSensitive(body, "mapping");
    } else {
        if (mapping_from_params(params, &own_mapping, err))
            return LEDGER_ERR;
        mapping = own_mapping;
    }
    if (mapping_from_json(mapping, &map, &text, err)) {
        cJSON_Delete(own_mapping);
        return LEDGER_ERR;
    }
    /* A JSON body's csv is text already, decoded by the client: reading
     * its UTF-8 as a code page's bytes would garble every accent. */
    if (body && map.encoding && charset_find(map.encoding, strlen(map.encoding)) != CHARSET_UTF8)
        return error_field(err, "mapping.encoding",
                           "mapping.encoding is for a file sent as text/csv: a JSON body's csv "
                           "is text, so decode the file as %s before sending it", map.encoding);
    if (csv_parse(csv, len, &map, &res, err)) {
        cJSON_Delete(own_mapping);
        return LEDGER_ERR;
    }
    /* A header and nothing under it is not a statement: nothing to show
     * and nothing the commit could take. */
    if (res.nrows == 0) {
        ledger_error_set(err, 400, "invalid_field", "csv",
                         res.header_line > 0
                         ? "line %d: the file has a header and no rows under it: nothing to import"
                         : "the file has no rows: nothing to import", res.header_line);
        csv_result_free(&res);
        cJSON_Delete(own_mapping);
        return LEDGER_ERR;
    }
    doc = cJSON_CreateObject();
    arr = cJSON_AddArrayToObject(doc, "columns");
    for (i = 0; i < res.ncolumns; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(res.columns[i]));
    /* What the commit would refuse is an error here already; the other
     * rows are looked for among the caller's. */
    keys = calloc(res.nrows ? res.nrows : 1, sizeof *keys);
    dups = calloc(res.nrows ? res.nrows : 1, sizeof *dups);
    if (keys == NULL || dups == NULL) {
        ledger_error_oom(err);
        goto fail;
    }
    for (i = 0; i < res.nrows; i++) {
        struct csv_row *r = &res.rows[i];

        if (!r->error[0] && r->description[0] == '\0')
            snprintf(r->error, sizeof r->error, "the description is empty");
        if (!r->error[0] && strlen(r->description) > CSV_DESCRIPTION_MAX)
            snprintf(r->error, sizeof r->error,
                     "the description is longer than %d bytes", CSV_DESCRIPTION_MAX);
        if (r->error[0] || !r->date[0] || !r->has_amount)
            continue;
        keys[i].date = r->date;
        keys[i].description = r->description;
        keys[i].amount = r->amount < 0 ? -r->amount : r->amount;
        keys[i].out = r->amount < 0;
    }
    if (csv_find_duplicates(db, me, keys, res.nrows, dups, err))
        goto fail;
    arr = cJSON_AddArrayToObject(doc, "rows");
    for (i = 0; i < res.nrows; i++) {
        struct csv_row *r = &res.rows[i];
        cJSON *o = cJSON_CreateObject(), *errors = cJSON_CreateArray();
        int64_t dup = dups[i], mag = r->amount < 0 ? -r->amount : r->amount;
        char derived[MERCHANT_CLEAN_MAX];
        const char *merchant;

        cJSON_AddNumberToObject(o, "line", r->line);
        if (r->date[0])
            cJSON_AddStringToObject(o, "date", r->date);
        else
            cJSON_AddNullToObject(o, "date");
        cJSON_AddStringToObject(o, "description", r->description);
        /* A mapped merchant column wins; else the merchant the
         * description names (merchant_name.c), null when it names none. */
        merchant = r->merchant;
        if (!(map.merchant && r->merchant && r->merchant[0])) {
            if (merchant_derive(db, me, r->description, derived, err)) {
                cJSON_Delete(o);
                cJSON_Delete(errors);
                goto fail;
            }
            merchant = derived[0] ? derived : NULL;
        }
        add_text_or_null(o, "merchant", merchant);
        if (map.category)
            add_text_or_null(o, "category", r->category);
        if (map.notes)
            add_text_or_null(o, "notes", r->notes);
        /* No category in the file: the owner's suggestion, marked as one
         * (category_suggested); the commit takes what the client sends. */
        if ((r->category == NULL || !r->category[0]) && !r->error[0]
            && preview_suggestion(db, me, &memo, o, r, merchant, err)) {
            cJSON_Delete(o);
            cJSON_Delete(errors);
            goto fail;
        }
        if (r->has_amount) {
            cJSON_AddItemToObject(o, "amount", ledger_money_to_json(mag));
            cJSON_AddStringToObject(o, "transaction_type", r->amount < 0 ? "debit" : "credit");
        } else {
            cJSON_AddNullToObject(o, "amount");
            cJSON_AddNullToObject(o, "transaction_type");
        }
        if (r->error[0])
            cJSON_AddItemToArray(errors, cJSON_CreateString(r->error));
        if (dup)
            cJSON_AddNumberToObject(o, "duplicate_of", (double)dup);
        else
            cJSON_AddNullToObject(o, "duplicate_of");
        cJSON_AddItemToObject(o, "errors", errors);
        cJSON_AddItemToArray(arr, o);
    }
    detected = cJSON_AddObjectToObject(doc, "detected");
    if (res.delimiter == '\t')
        snprintf(delim, sizeof delim, "\\t");
    else
        snprintf(delim, sizeof delim, "%c", res.delimiter);
    cJSON_AddStringToObject(detected, "delimiter", delim);
    cJSON_AddBoolToObject(detected, "has_header", res.has_header);
    if (res.header_line > 0)
        cJSON_AddNumberToObject(detected, "header_line", res.header_line);
    else
        cJSON_AddNullToObject(detected, "header_line");
    cJSON_AddStringToObject(detected, "date_format", res.date_format);
    snprintf(delim, sizeof delim, "%c", res.decimal);
    cJSON_AddStringToObject(detected, "decimal", delim);
    cJSON_AddStringToObject(detected, "encoding", charset_name(res.charset));
    arr = cJSON_AddArrayToObject(doc, "warnings");
    if (res.no_negative)
        cJSON_AddItemToArray(arr, cJSON_CreateString(
            "no amount in the file is money out: if it writes amounts without a sign, map its "
            "direction column (mapping.direction) or its debit and credit columns"));
    warn_currencies(arr, &res, ledger_home_currency(db));
    csv_result_free(&res);
    cJSON_Delete(own_mapping);
    free(keys);
    free(dups);
    suggest_memo_free(&memo);
    *out = doc;
    return LEDGER_OK;
fail:
    suggest_memo_free(&memo);
    csv_result_free(&res);
    cJSON_Delete(own_mapping);
    cJSON_Delete(doc);
    free(keys);
    free(dups);
    return LEDGER_ERR;
}
