/*
 * The search indexes (transactions_search, merchants_search): which of a user's rows may hold the
 * search terms.
 *
 * transactions_search keeps every trigram of each row's description and
 * merchant, and merchants_search of its normalized merchant, folded to
 * lower case, under the rowid owner * 2^40 + id, so the rows of one owner
 * are one rowid range.  A row holding a term in a text holds each of its
 * trigrams in that text's index, so the rows either index gives for all
 * the trigrams of one term are a superset of the matches, found without
 * reading the rows; the list takes the term with the fewest and tests
 * each row exactly (ledger_contains) for every term.  Not the rows one
 * index gives for all the terms' trigrams: a row may hold one term in its
 * description and another in its normalized merchant, and then neither
 * index holds both, and such a row would be missed.  The indexes keep
 * no positions, so "coffee" is the four trigrams cof, off, ffe and fee
 * anywhere in the text, not one after another: a superset again.  Rows
 * written since the last flush are not indexed yet (search_pending,
 * flushed by a commit once SEARCH_FLUSH_ROWS are waiting) and are
 * candidates too.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "txn.h"

/* The ids of the caller's rows whose texts may hold one term: those the
 * index gives for its trigrams in either table (a term is found in one
 * text, so one table holds all its trigrams), and the rows waiting to be
 * indexed.  A row holding every term is in each term's set, so any one
 * set is a superset of the matches; the list reads the smallest. */
#define TERM_IDS                                                                       \
    "SELECT rowid - :search_lo AS id FROM transactions_search"                         \
    " WHERE transactions_search MATCH :search_match"                                   \
    "   AND rowid BETWEEN :search_lo AND :search_hi"                                   \
    " UNION ALL SELECT rowid - :search_lo FROM merchants_search"                       \
    " WHERE merchants_search MATCH :search_match"                                      \
    "   AND rowid BETWEEN :search_lo AND :search_hi"                                   \
    " UNION ALL SELECT id FROM search_pending"

/* The size of a term's set, counted up to :search_cap (a row in both
 * tables twice: an upper bound).  The index leaves out rows whose id does
 * not fit its rowid (see the schema's search index); while there is one, it answers
 * "too many" (the lowest and the highest id are each one seek). */
static const char SQL_CANDIDATES[] =
    "SELECT CASE WHEN (SELECT MIN(id) FROM transactions) < 1"
    "              OR (SELECT MAX(id) FROM transactions) >= :search_span THEN :search_cap"
    "       ELSE (SELECT COUNT(*) FROM (" TERM_IDS " LIMIT :search_cap)) END";

int64_t search_rowid_low(int64_t owner)
{
    return owner >= 1 && owner < SEARCH_OWNER_MAX ? owner * SEARCH_OWNER_SPAN : 0;
}

static int is_ascii_trigram(const char *s)
{
    return (unsigned char)s[0] < 0x80 && (unsigned char)s[1] < 0x80 && (unsigned char)s[2] < 0x80;
}

/* The FTS5 query of one term: each of its ASCII trigrams, quoted (a quote
 * doubled), all of them; NULL when it has none. */
static char *term_match(const char *s)
{
    size_t n = strlen(s), i, j;
    char *match, *p;

    /* Each trigram is at most 3 quotes doubled inside 2 more, and " AND ". */
    if (n < 3 || (match = malloc((n - 2) * (8 + 5) + 1)) == NULL)
        return NULL;
    p = match;
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
    *p = '\0';
    if (p == match) {  /* no ASCII trigram */
        free(match);
        return NULL;
    }
    return match;
}

void search_query_init(struct search_query *sq, const cJSON *terms)
{
    const cJSON *term;

    memset(sq, 0, sizeof *sq);
    cJSON_ArrayForEach(term, terms)
        if (sq->n < SEARCH_TERMS_MAX && cJSON_IsString(term)
            && (sq->match[sq->n] = term_match(term->valuestring)) != NULL)
            sq->n++;
}

void search_query_free(struct search_query *sq)
{
    int i;

    for (i = 0; i < sq->n; i++)
        free(sq->match[i]);
    sq->n = 0;
}

const char *search_ids_sql(void)
{
    return TERM_IDS;
}

void search_bind(sqlite3_stmt *st, int64_t me, const struct search_query *sq)
{
    int idx;

    if ((idx = sqlite3_bind_parameter_index(st, ":search_lo")))
        sqlite3_bind_int64(st, idx, search_rowid_low(me));
    if ((idx = sqlite3_bind_parameter_index(st, ":search_hi")))
        sqlite3_bind_int64(st, idx, search_rowid_low(me) + SEARCH_OWNER_SPAN - 1);
    if ((idx = sqlite3_bind_parameter_index(st, ":search_match")) && sq->n)
        sqlite3_bind_text(st, idx, sq->match[sq->best], -1, SQLITE_STATIC);
}

/* See the schema's search_pending: the rows written since the last flush, indexed at
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
    int64_t waiting;
    size_t i;

    /* Only a transaction that wrote can have added rows: a read (a GET)
     * must not start writing, even for rows another program left. */
    if (sqlite3_txn_state(db->sql, "main") != SQLITE_TXN_WRITE)
        return LEDGER_OK;
    if (db_int(db, err, "search index", &waiting, 0, SQL_PENDING_COUNT, DB_INT(min_rows)))
        return LEDGER_ERR;
    if (waiting == 0 || waiting < min_rows)
        return LEDGER_OK;
    for (i = 0; i < sizeof SQL_FLUSH / sizeof SQL_FLUSH[0]; i++)
        if (db_exec(db, err, "search index", SQL_FLUSH[i]))
            return LEDGER_ERR;
    return LEDGER_OK;
}

int search_candidates(ledger_db *db, int64_t me, struct search_query *sq, int64_t cap,
                      int64_t *n, ledger_error *err)
{
    sqlite3_stmt *st;
    int order[SEARCH_TERMS_MAX];
    int i, k, best = 0, rc = SQLITE_ROW;

    *n = cap + 1;
    sq->best = 0;
    if (search_rowid_low(me) == 0)  /* an owner the index leaves out */
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_CANDIDATES, err)) == NULL)
        return LEDGER_ERR;
    /* The terms with the most trigrams first (by the length of their
     * queries): they are most often the rarest.  Each is counted only as
     * far as the smallest set so far, as past it it cannot be the one to
     * read: for "debit coffee", coffee's rows are counted first, then
     * debit's only as far as coffee's count, not the other way round,
     * which would count a common word's rows up to the cap. */
    for (i = 0; i < sq->n; i++) {
        for (k = i; k > 0 && strlen(sq->match[order[k - 1]]) < strlen(sq->match[i]); k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (k = 0; k < sq->n && rc == SQLITE_ROW; k++) {
        int64_t count;

        sq->best = order[k];
        search_bind(st, me, sq);
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":search_cap"), *n);
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":search_span"), SEARCH_OWNER_SPAN);
        if ((rc = sqlite3_step(st)) == SQLITE_ROW && (count = sqlite3_column_int64(st, 0)) < *n) {
            *n = count;
            best = order[k];
        }
        sqlite3_reset(st);
    }
    sq->best = best;
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "search index");
}
