/*
 * The rows of a statement on their way in, for a statement posted as JSON
 * (statement.c) and a statement file's import (statement_import.c): each
 * row is staged in temp.statement_rows (made by ledger_open), then a chunk
 * of them is written with one INSERT ... SELECT.
 *
 * Staging does the part of a row's work that writes nothing of the
 * ledger's: its merchant derived from its bank text (merchant_name.c) and
 * its values copied out of the request.  A job (job.c) stages each chunk
 * in a read transaction, so it holds the write lock only to write it; and
 * one INSERT for the chunk pays once what every statement that fires
 * triggers pays (its statement journal, its trigger frames).
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "job.h"
#include "merchant_clean.h"
#include "statement.h"
#include "txn.h"

static const char SQL_MAX_ID[] = "SELECT COALESCE(MAX(id), 0) FROM transactions";
static const char SQL_CLEAR[] = "DELETE FROM temp.statement_rows";
static const char SQL_STAGED[] = "SELECT count(*) FROM temp.statement_rows";
static const char SQL_STAGE[] =
    "INSERT INTO temp.statement_rows (date, description, merchant, category, type, amount,"
    " currency, amount_aud, rate, principal, interest, fitid, payment_method, fitid_out,"
    " merchant_normalized, refund)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
static const char SQL_ID_BASE[] = "SELECT " ROW_ID_BASE("transactions");
/* The ids come after ?3, the base (rows_id_base): the staged rows' seq
 * counts from 1, as the table is emptied after each chunk, so row k's id
 * is ?3 + k.  The effective values are those
 * transactions_effective_insert gives. */
static const char SQL_WRITE[] =
    "INSERT INTO transactions (id, statement_id, owner_id, date, description, merchant, category,"
    " transaction_type, amount, currency, amount_aud, exchange_rate_to_aud, principal_amount,"
    " interest_amount, fitid, payment_method, eff_category, eff_merchant, fitid_out,"
    " merchant_normalized)"
    " SELECT ?3 + seq, ?1, ?2, date, description, merchant, category, type, amount, currency,"
    "        amount_aud, rate, principal, interest, fitid, payment_method, category,"
    "        COALESCE(merchant_normalized, merchant, ''), fitid_out, merchant_normalized"
    "   FROM temp.statement_rows ORDER BY seq";
static const char SQL_REFUNDS[] =
    "SELECT ?1 + seq, merchant FROM temp.statement_rows WHERE refund ORDER BY seq";

void refund_rows_free(struct refund_rows *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->v[i].merchant);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

static int rows_clear(ledger_db *db, ledger_error *err)
{
    return db_step_once(db, SQL_CLEAR, "statement rows", err);
}

int statement_rows_begin(ledger_db *db, int64_t *before, ledger_error *err)
{
    if (db_int(db, err, "statement rows", before, 0, SQL_MAX_ID))
        return LEDGER_ERR;
    return rows_clear(db, err);
}

/* A row without a merchant of its own (none in the JSON; an OFX row names
 * the raw text in merchant_from) gets one from its bank text: see
 * merchant_name.c for why it goes in merchant_normalized. */
int statement_row_stage(ledger_db *db, int64_t me, const struct statement_row *r, int refund,
                        ledger_error *err)
{
    char derived[MERCHANT_CLEAN_MAX] = "";
    const char *raw = r->merchant_from;

    if (raw == NULL && (r->merchant == NULL || r->merchant[0] == '\0'))
        raw = r->description;
    if (raw && merchant_derive(db, me, raw, derived, err))
        return LEDGER_ERR;
    return db_exec(db, err, "statement row", SQL_STAGE, DB_TEXT(r->date), DB_TEXT(r->description),
                   DB_TEXT(r->merchant), DB_TEXT(r->category), DB_TEXT(r->type), DB_INT(r->amount),
                   DB_TEXT(r->currency ? r->currency : ledger_home_currency(db)),
                   DB_INT_OR_NULL(r->has_amount_aud, r->amount_aud), DB_TEXT(r->rate),
                   DB_INT_OR_NULL(r->has_principal, r->principal),
                   DB_INT_OR_NULL(r->has_interest, r->interest), DB_TEXT(r->fitid),
                   DB_TEXT(r->payment_method), DB_INT_OR_NULL(r->has_fitid_out, r->fitid_out),
                   DB_TEXT(derived[0] ? derived : NULL), DB_INT(refund != 0));
}

/* The staged refund rows, written with ids from base + 1, added to
 * refunds with a copy of their merchant. */
static int refunds_add(ledger_db *db, int64_t base, struct refund_rows *refunds, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_REFUNDS, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, base);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct refund_row *v = realloc(refunds->v, (refunds->n + 1) * sizeof *v);

        if (v == NULL)
            break;
        refunds->v = v;
        v[refunds->n].id = sqlite3_column_int64(st, 0);
        v[refunds->n].merchant = NULL;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL
            && (v[refunds->n].merchant = db_column_dup(st, 1)) == NULL)
            break;
        refunds->n++;
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_oom(err);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "statement rows");
}

int rows_id_base(ledger_db *db, int64_t n, int64_t *base, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ID_BASE, err);
    int rc;

    *base = -1;
    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER
        && sqlite3_column_int64(st, 0) >= 0 && sqlite3_column_int64(st, 0) <= INT64_MAX - n)
        *base = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(db, err, "row ids");
    return LEDGER_OK;
}

int rows_ids_taken(ledger_db *db, int64_t base, int64_t n, ledger_error *err)
{
    if (sqlite3_changes(db->sql) != n || sqlite3_last_insert_rowid(db->sql) != base + n)
        return ledger_error_set(err, 500, "internal", NULL,
                                "the rows written did not take the ids expected");
    return LEDGER_OK;
}

/* Writes the staged rows to statement id, and empties the stage; their
 * count is added to *written. */
static int rows_write(ledger_db *db, int64_t me, int64_t id, struct refund_rows *refunds,
                      int64_t *written, ledger_error *err)
{
    int64_t base, staged;

    if (db_int(db, err, "statement rows", &staged, 0, SQL_STAGED))
        return LEDGER_ERR;
    if (staged == 0)
        return LEDGER_OK;
    if (rows_id_base(db, staged, &base, err))
        return LEDGER_ERR;
    /* Ids run out only past 2^63 rows written: no room is a refusal,
     * not rows given ids that are not theirs. */
    if (base < 0)
        return ledger_error_set(err, 507, "insufficient_storage", NULL,
                                "the ledger has no row ids left for %lld rows", (long long)staged);
    if (db_exec(db, err, "statement rows", SQL_WRITE, DB_INT(id), DB_INT(me), DB_INT(base))
        || rows_ids_taken(db, base, staged, err))
        return LEDGER_ERR;
    if ((refunds && refunds_add(db, base, refunds, err)) || rows_clear(db, err))
        return LEDGER_ERR;
    *written += staged;
    return LEDGER_OK;
}

int statement_chunk_write(ledger_db *db, int64_t me, const struct statement_fields *f,
                          int64_t *id, struct job *job, struct refund_rows *refunds,
                          int64_t *written, ledger_error *err)
{
    if (job_switch(db, job, 1, err))
        return LEDGER_ERR;
    if (*id == 0
        && (statement_insert(db, me, f, id, err) || job_note(db, job, 0, 0, *id, *id, err)))
        return LEDGER_ERR;
    if (rows_write(db, me, *id, refunds, written, err))
        return LEDGER_ERR;
    if (job && (job_pause(db, job, 0, err) || ledger_begin(db, 0, err)))
        return LEDGER_ERR;
    return LEDGER_OK;
}
