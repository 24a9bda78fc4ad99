/*
 * The search indexes (schema 0017): which of a user's rows may hold the
 * search terms.
 *
 * transactions_search keeps every trigram of each row's description and
 * merchant, and merchants_search of its normalized merchant, folded to
 * lower case, under the rowid owner * 2^40 + id, so the rows of one owner
 * are one rowid range.  A row holding a term in a text holds each of its
 * trigrams in that text's index, so the rows either index gives for all
 * the trigrams of every term are a superset of the matches, found without
 * reading the rows; the list then tests each of them exactly
 * (ledger_contains).  The indexes keep no positions, so "coffee" is the
 * four trigrams cof, off, ffe and fee anywhere in the text, not one after
 * another: a superset again.  Rows written since the last flush are not
 * indexed yet (search_pending, flushed by a commit once SEARCH_FLUSH_ROWS
 * are waiting) and are candidates too.
 *
 * Only three ASCII characters in a row make a trigram here ("caf" of
 * "café").  Beyond ASCII the index folds case by SQLite's tables and the
 * exact test by utf8_lower's, and a trigram one folds differently from the
 * other would miss rows; ASCII they fold alike, and utf8_lower never turns
 * another character into an ASCII one (it keeps every character's length
 * in bytes), so a row whose lowered text holds an ASCII trigram holds it
 * in the index too.  A term shorter than three bytes has no trigram.  When
 * no term has any, the index does not help and the list tests every row.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The index leaves out rows whose id does not fit its rowid (see schema
 * 0017); while there is one, it answers "too many" (the lowest and the
 * highest id are each one seek). */
static const char SQL_CANDIDATES[] =
    "SELECT CASE WHEN (SELECT MIN(id) FROM transactions) < 1"
    "              OR (SELECT MAX(id) FROM transactions) >= ?5 THEN ?4"
    "       ELSE (SELECT COUNT(*) FROM (SELECT 1 FROM transactions_search"
    "                                    WHERE transactions_search MATCH ?1"
    "                                      AND rowid BETWEEN ?2 AND ?3 LIMIT ?4))"
    "          + (SELECT COUNT(*) FROM (SELECT 1 FROM merchants_search"
    "                                    WHERE merchants_search MATCH ?1"
    "                                      AND rowid BETWEEN ?2 AND ?3 LIMIT ?4))"
    "          + (SELECT COUNT(*) FROM (SELECT 1 FROM search_pending LIMIT ?4)) END";

int64_t search_rowid_low(int64_t owner)
{
    return owner >= 1 && owner < SEARCH_OWNER_MAX ? owner * SEARCH_OWNER_SPAN : 0;
}

static int is_ascii_trigram(const char *s)
{
    return (unsigned char)s[0] < 0x80 && (unsigned char)s[1] < 0x80 && (unsigned char)s[2] < 0x80;
}

char *search_match(const cJSON *terms)
{
    const cJSON *term;
    size_t len = 1, n;
    char *match, *p;

    /* Each trigram is at most 3 quotes doubled inside 2 more, and " AND ". */
    cJSON_ArrayForEach(term, terms) {
        n = cJSON_IsString(term) ? strlen(term->valuestring) : 0;
        if (n >= 3)
            len += (n - 2) * (8 + 5);
    }
    if (len == 1 || (match = malloc(len)) == NULL)
        return NULL;
    p = match;
    cJSON_ArrayForEach(term, terms) {
        const char *s;
        size_t i, j;

        if (!cJSON_IsString(term))
            continue;
        s = term->valuestring;
        n = strlen(s);
        for (i = 0; i + 3 <= n; i++) {
            if (!is_ascii_trigram(s + i))
                continue;
            if (p != match) {
                memcpy(p, " AND ", 5);
                p += 5;
            }
            *p++ = '"';
            for (j = i; j < i + 3; j++) {
                if (s[j] == '"')
                    *p++ = '"';
                *p++ = s[j];
            }
            *p++ = '"';
        }
    }
    *p = '\0';
    if (p == match) {  /* no ASCII trigram */
        free(match);
        return NULL;
    }
    return match;
}

/* See schema 0017: the rows written since the last flush, indexed at
 * once; nothing to do (one lookup of at most min_rows) when fewer are
 * waiting. */
static const char SQL_PENDING_COUNT[] =
    "SELECT COUNT(*) FROM (SELECT 1 FROM search_pending LIMIT ?1)";
static const char *const SQL_FLUSH[] = {
    SEARCH_ENTRIES_ADD " WHERE id IN (SELECT id FROM search_pending)",
    "INSERT INTO merchants_search (rowid, merchant_normalized)"
    " SELECT entry, merchant_normalized FROM merchant_search_entries"
    "  WHERE id IN (SELECT id FROM search_pending)",
    "DELETE FROM search_pending",
};

int search_flush(ledger_db *db, int64_t min_rows, ledger_error *err)
{
    sqlite3_stmt *st;
    int64_t waiting = 0;
    size_t i;
    int rc;

    /* Only a transaction that wrote can have added rows: a read (a GET)
     * must not start writing, even for rows another program left. */
    if (sqlite3_txn_state(db->sql, "main") != SQLITE_TXN_WRITE)
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_PENDING_COUNT, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, min_rows);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        waiting = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "search index");
    if (waiting == 0 || waiting < min_rows)
        return LEDGER_OK;
    for (i = 0; i < sizeof SQL_FLUSH / sizeof SQL_FLUSH[0]; i++) {
        if ((st = db_stmt(db, SQL_FLUSH[i], err)) == NULL)
            return LEDGER_ERR;
        rc = sqlite3_step(st);
        db_stmt_done(st);
        if (rc != SQLITE_DONE)
            return db_error(db, err, "search index");
    }
    return LEDGER_OK;
}

int search_candidates(ledger_db *db, int64_t me, const char *match, int64_t cap, int64_t *n,
                      ledger_error *err)
{
    sqlite3_stmt *st;
    int rc;

    *n = cap + 1;
    if (search_rowid_low(me) == 0)  /* an owner the index leaves out */
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_CANDIDATES, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, search_rowid_low(me));
    sqlite3_bind_int64(st, 3, search_rowid_low(me) + SEARCH_OWNER_SPAN - 1);
    sqlite3_bind_int64(st, 4, cap + 1);
    sqlite3_bind_int64(st, 5, SEARCH_OWNER_SPAN);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *n = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "search index");
}
