/*
 * One row's category suggestion from its owner's own history, and the
 * counts it reads (schema/0029_category_suggestions.sql):
 *
 * 1. merchant memory: the category the owner gives the row's effective
 *    merchant most often ("12 of your 14 rows at Blue Bottle Coffee are
 *    dining"), confidence top / (rows + 1);
 * 2. for a merchant never categorised, multinomial naive Bayes over the
 *    row's words and direction, trained on the owner's categorised rows
 *    ("words: coffee, roasters"), confidence the top class's posterior;
 * 3. for a row none of whose words the owner's history holds, the
 *    built-in prior (suggest_words.c), with low confidence.
 *
 * The counts are only ever read for one owner: another user's rows never
 * move a suggestion.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "suggest.h"

/* The rows whose counts change: the old contribution of each pending row
 * (-1, when it was counted and its owner still exists) and the new one
 * (+1, when it has a category now), each row's words cut once into
 * temp.suggest_delta (made by ledger_open), from which the three tables'
 * changes are summed.  The pending rows are read first, each row found by
 * its key (CROSS JOIN keeps that order): with no statistics SQLite would
 * otherwise walk every row of transactions for a few pending ones, at
 * each commit. */
#define COUNTED_CATEGORY(c) "(" c " IS NOT NULL AND " c " NOT IN ('', 'uncategorised'))"
#define DELTA_WORDS \
    "WITH w AS (SELECT d.owner_id, j.value AS word, d.category, SUM(d.k) AS n" \
    "  FROM temp.suggest_delta d, json_each(d.words) j" \
    " GROUP BY 1, 2, 3 HAVING SUM(d.k) <> 0)"
#define DELTA_CLASSES \
    "WITH c AS (SELECT owner_id, category, SUM(k) AS rows, SUM(k * nwords) AS words" \
    "  FROM temp.suggest_delta GROUP BY 1, 2 HAVING SUM(k) <> 0 OR SUM(k * nwords) <> 0)"
#define DELTA_MERCHANTS \
    "WITH m AS (SELECT owner_id, merchant, category, SUM(k) AS n FROM temp.suggest_delta" \
    " WHERE merchant <> '' GROUP BY 1, 2, 3 HAVING SUM(k) <> 0)"
static const char *const SQL_FLUSH[] = {
    "DELETE FROM temp.suggest_delta",
    "INSERT INTO temp.suggest_delta (owner_id, category, merchant, words, nwords, k)"
    " SELECT owner_id, category, merchant, words, json_array_length(words), k FROM"
    " (SELECT owner_id, category, merchant, ledger_words(description, merchant, type) AS words, k"
    "    FROM (SELECT owner_id, category, description, merchant, type, -1 AS k FROM suggest_pending"
    "           WHERE counted AND " COUNTED_CATEGORY("category")
    "             AND owner_id IN (SELECT id FROM users)"
    "          UNION ALL"
    "          SELECT t.owner_id, t.eff_category, t.description, t.eff_merchant,"
    "                 t.transaction_type, 1"
    "            FROM suggest_pending p CROSS JOIN transactions t ON t.id = p.id"
    "           WHERE " COUNTED_CATEGORY("t.eff_category") "))",
    DELTA_WORDS
    " INSERT INTO suggest_words (owner_id, word, category, n) SELECT * FROM w WHERE true"
    " ON CONFLICT (owner_id, word, category) DO UPDATE SET n = n + excluded.n",
    DELTA_CLASSES
    " INSERT INTO suggest_classes (owner_id, category, rows, words) SELECT * FROM c WHERE true"
    " ON CONFLICT (owner_id, category) DO UPDATE"
    " SET rows = rows + excluded.rows, words = words + excluded.words",
    DELTA_MERCHANTS
    " INSERT INTO suggest_merchants (owner_id, merchant, category, n) SELECT * FROM m WHERE true"
    " ON CONFLICT (owner_id, merchant, category) DO UPDATE SET n = n + excluded.n",
    /* A cell back at 0 goes, found by its key, so the state stays the
     * pairs in use. */
    DELTA_WORDS
    " DELETE FROM suggest_words WHERE n = 0 AND (owner_id, word, category) IN"
    " (SELECT owner_id, word, category FROM w)",
    DELTA_CLASSES
    " DELETE FROM suggest_classes WHERE rows = 0 AND (owner_id, category) IN"
    " (SELECT owner_id, category FROM c)",
    DELTA_MERCHANTS
    " DELETE FROM suggest_merchants WHERE n = 0 AND (owner_id, merchant, category) IN"
    " (SELECT owner_id, merchant, category FROM m)",
    "DELETE FROM suggest_pending",
    "DELETE FROM temp.suggest_delta",
};
static const char SQL_PENDING[] = "SELECT EXISTS (SELECT 1 FROM suggest_pending)";

static const char SQL_MEMORY[] =
    "SELECT category, n, SUM(n) OVER () FROM suggest_merchants"
    " WHERE owner_id = ?1 AND merchant = ?2 AND n > 0"
    " ORDER BY n DESC, category LIMIT 1";
static const char SQL_CLASSES[] =
    "SELECT category, rows, words FROM suggest_classes WHERE owner_id = ?1 AND rows > 0"
    " ORDER BY category";
static const char SQL_WORD[] =
    "SELECT category, n FROM suggest_words WHERE owner_id = ?1 AND word = ?2 AND n > 0";

/* The model's smoothing: a word's probability in a class is its count
 * there plus MU times its share of all the owner's words, over the
 * class's words plus MU (Dirichlet smoothing), so a word a class has
 * never held still counts as much as it is common overall. */
#define MU 4.0
/* No suggestion by words is surer than this: naive Bayes overstates. */
#define WORDS_CONFIDENCE_MAX 95
/* How many words a reason names. */
#define REASON_WORDS 3

int suggest_flush(ledger_db *db, ledger_error *err)
{
    int64_t waiting;
    size_t i;

    /* A read must not start writing, even for rows another program left. */
    if (sqlite3_txn_state(db->sql, "main") != SQLITE_TXN_WRITE)
        return LEDGER_OK;
    if (db_int(db, err, "suggestions", &waiting, 0, SQL_PENDING))
        return LEDGER_ERR;
    for (i = 0; waiting && i < sizeof SQL_FLUSH / sizeof SQL_FLUSH[0]; i++)
        if (db_exec(db, err, "suggestions", SQL_FLUSH[i]))
            return LEDGER_ERR;
    return LEDGER_OK;
}

/* Merchant memory; *found 0 when the owner never categorised merchant. */
static int by_merchant(ledger_db *db, int64_t owner, const char *merchant, struct suggestion *out,
                       int *found, ledger_error *err)
{
    sqlite3_stmt *st;
    int rc;

    if (merchant == NULL || *merchant == '\0')
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_MEMORY, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, owner);
    db_bind_text(db, st, 2, merchant);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t top = sqlite3_column_int64(st, 1), all = sqlite3_column_int64(st, 2);

        snprintf(out->category, sizeof out->category, "%s", (const char *)sqlite3_column_text(st, 0));
        out->confidence = (int)(100 * top / (all + 1));
        if (out->confidence < 1)
            out->confidence = 1;
        out->source = SUGGEST_MERCHANT;
        snprintf(out->reason, sizeof out->reason, "%lld of your %lld rows at %.120s are %.100s",
                 (long long)top, (long long)all, merchant, out->category);
        *found = 1;
    }
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "suggestions");
}

struct nb_class {
    char category[LEDGER_CATEGORY_MAX];
    int64_t rows, words;
    int64_t n[SUGGEST_WORDS_MAX + 1];      /* each query word's count here */
    double score;
};

struct nb {
    struct nb_class *c;
    size_t nc, cap;
    int64_t rows, words;
    int64_t total[SUGGEST_WORDS_MAX + 1];  /* each query word's count in all classes */
};

static int nb_classes(ledger_db *db, int64_t owner, struct nb *m, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_CLASSES, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, owner);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct nb_class *k;

        if (m->nc == m->cap) {
            void *nv = realloc(m->c, (m->cap = m->cap ? 2 * m->cap : 32) * sizeof *m->c);

            if (nv == NULL)
                break;
            m->c = nv;
        }
        k = &m->c[m->nc++];
        memset(k, 0, sizeof *k);
        snprintf(k->category, sizeof k->category, "%s", (const char *)sqlite3_column_text(st, 0));
        k->rows = sqlite3_column_int64(st, 1);
        k->words = sqlite3_column_int64(st, 2);
        m->rows += k->rows;
        m->words += k->words;
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_oom(err);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "suggestions");
}

static int nb_word(ledger_db *db, int64_t owner, struct nb *m, int i, int32_t id, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_WORD, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, owner);
    sqlite3_bind_int64(st, 2, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *cat = (const char *)sqlite3_column_text(st, 0);
        size_t k;

        /* The classes are few (the owner's categories): a walk finds one. */
        for (k = 0; k < m->nc; k++)
            if (strcmp(m->c[k].category, cat) == 0) {
                m->c[k].n[i] = sqlite3_column_int64(st, 1);
                m->total[i] += m->c[k].n[i];
                break;
            }
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "suggestions");
}

/* log P(word i | class k), smoothed (MU). */
static double nb_log_p(const struct nb *m, const struct nb_class *k, int i)
{
    double q = ((double)m->total[i] + 0.5) / ((double)m->words + 1.0);

    return log(((double)k->n[i] + MU * q) / ((double)k->words + MU));
}

/* Naive Bayes over w; *found 0 when the owner has no categorised row or
 * none of w's words (the direction alone says too little). */
static int by_words(ledger_db *db, int64_t owner, const struct suggest_words *w,
                    struct suggestion *out, int *found, ledger_error *err)
{
    struct nb m;
    size_t k, best = 0;
    double sum = 0;
    int i, known = 0, rc = LEDGER_ERR;

    memset(&m, 0, sizeof m);
    if (nb_classes(db, owner, &m, err))
        goto out;
    rc = LEDGER_OK;
    if (m.nc == 0)
        goto out;
    for (i = 0; i <= w->n; i++) {
        if (nb_word(db, owner, &m, i, w->id[i], err)) {
            rc = LEDGER_ERR;
            goto out;
        }
        known += i < w->n && m.total[i] > 0;
    }
    if (known == 0)
        goto out;
    for (k = 0; k < m.nc; k++) {
        struct nb_class *c = &m.c[k];

        c->score = log(((double)c->rows + 1.0) / ((double)m.rows + (double)m.nc));
        /* Words no class holds weigh alike in every class: left out. */
        for (i = 0; i <= w->n; i++)
            if (m.total[i] > 0)
                c->score += nb_log_p(&m, c, i);
        if (c->score > m.c[best].score)
            best = k;
    }
    for (k = 0; k < m.nc; k++)
        sum += exp(m.c[k].score - m.c[best].score);
    snprintf(out->category, sizeof out->category, "%s", m.c[best].category);
    out->confidence = (int)(100.0 / sum);
    if (out->confidence > WORDS_CONFIDENCE_MAX)
        out->confidence = WORDS_CONFIDENCE_MAX;
    if (out->confidence < 1)
        out->confidence = 1;
    out->source = SUGGEST_WORDS;
    {
        /* The words that speak most for the class chosen: those most of
         * whose rows are in it, the most used first. */
        int used[SUGGEST_WORDS_MAX] = { 0 }, r;
        size_t len = (size_t)snprintf(out->reason, sizeof out->reason, "words:");

        for (r = 0; r < REASON_WORDS; r++) {
            int pick = -1;
            int64_t most = 0;

            for (i = 0; i < w->n; i++)
                if (!used[i] && 2 * m.c[best].n[i] > m.total[i] && m.c[best].n[i] > most) {
                    most = m.c[best].n[i];
                    pick = i;
                }
            if (pick < 0)
                break;
            used[pick] = 1;
            if (len < sizeof out->reason)
                len += (size_t)snprintf(out->reason + len, sizeof out->reason - len, "%s %s",
                                        r ? "," : "", w->text[pick]);
        }
        if (r == 0)
            snprintf(out->reason, sizeof out->reason, "your rows with words like these are %.100s",
                     out->category);
    }
    *found = 1;
out:
    free(m.c);
    return rc;
}

int suggest_memory(ledger_db *db, int64_t owner, const char *merchant, struct suggestion *out,
                   int *found, ledger_error *err)
{
    *found = 0;
    memset(out, 0, sizeof *out);
    if (suggest_flush(db, err))
        return LEDGER_ERR;
    return by_merchant(db, owner, merchant, out, found, err);
}

/* The sources in turn, for a row whose words are w. */
static int suggest_words_row(ledger_db *db, int64_t owner, const char *merchant,
                             const struct suggest_words *w, struct suggestion *out, int *found,
                             ledger_error *err)
{
    *found = 0;
    memset(out, 0, sizeof *out);
    if (by_merchant(db, owner, merchant, out, found, err))
        return LEDGER_ERR;
    if (*found)
        return LEDGER_OK;
    if (by_words(db, owner, w, out, found, err))
        return LEDGER_ERR;
    if (!*found)
        *found = suggest_builtin(w, out);
    return LEDGER_OK;
}

int suggest_row(ledger_db *db, int64_t owner, const char *description, const char *merchant,
                const char *type, struct suggestion *out, int *found, ledger_error *err)
{
    struct suggest_words w;

    *found = 0;
    memset(out, 0, sizeof *out);
    /* What this transaction wrote counts too. */
    if (suggest_flush(db, err))
        return LEDGER_ERR;
    suggest_cut(description, merchant, type, &w);
    return suggest_words_row(db, owner, merchant, &w, out, found, err);
}

/* ---- a memo of suggestions, for the rows of one file -------------------------
 * A suggestion depends on the row's merchant and its words alone (numbers,
 * the part of a description that differs from one line of a payee's to
 * the next, are no words), and the counts do not change while a file is
 * read: the rows of a file, which repeat their payees, each ask once. */
struct suggest_memo_entry {
    char *key;                /* merchant, then the words and the direction */
    struct suggestion s;
    int found;
};

/* The memo holds at most this many entries; past it rows ask the counts. */
#define MEMO_MAX 65536

static uint64_t memo_hash(const char *s)
{
    uint64_t h = 1469598103934665603u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The key of a row: merchant, its words and direction, each ended by
 * 0x1f (which no cleaned word holds). */
static char *memo_key(const char *merchant, const struct suggest_words *w)
{
    size_t n = (merchant ? strlen(merchant) : 0) + 16, k = 0;
    char *key;
    int i;

    n += (size_t)w->n * (SUGGEST_WORD_LEN + 1);
    if ((key = malloc(n)) == NULL)
        return NULL;
    k += (size_t)snprintf(key + k, n - k, "%s\x1f", merchant ? merchant : "");
    for (i = 0; i < w->n; i++)
        k += (size_t)snprintf(key + k, n - k, "%s\x1f", w->text[i]);
    snprintf(key + k, n - k, "%ld", (long)w->id[w->n]);
    return key;
}

int suggest_row_memo(ledger_db *db, int64_t owner, struct suggest_memo *memo,
                     const char *description, const char *merchant, const char *type,
                     struct suggestion *out, int *found, ledger_error *err)
{
    struct suggest_words w;
    struct suggest_memo_entry *e = NULL;
    char *key;
    size_t i;

    if (suggest_flush(db, err))
        return LEDGER_ERR;
    suggest_cut(description, merchant, type, &w);
    if ((key = memo_key(merchant, &w)) == NULL)
        return ledger_error_oom(err);
    if (memo->n * 10 >= memo->cap * 7 && memo->n < MEMO_MAX) {
        size_t cap = memo->cap ? 2 * memo->cap : 256;
        struct suggest_memo_entry *t = calloc(cap, sizeof *t);

        if (t == NULL) {
            free(key);
            return ledger_error_oom(err);
        }
        for (i = 0; i < memo->cap; i++)
            if (memo->e[i].key) {
                size_t j = memo_hash(memo->e[i].key) & (cap - 1);

                while (t[j].key)
                    j = (j + 1) & (cap - 1);
                t[j] = memo->e[i];
            }
        free(memo->e);
        memo->e = t;
        memo->cap = cap;
    }
    for (i = memo_hash(key) & (memo->cap - 1); memo->e[i].key; i = (i + 1) & (memo->cap - 1))
        if (strcmp(memo->e[i].key, key) == 0) {
            *out = memo->e[i].s;
            *found = memo->e[i].found;
            free(key);
            return LEDGER_OK;
        }
    if (memo->n * 10 < memo->cap * 7)
        e = &memo->e[i];
    if (suggest_words_row(db, owner, merchant, &w, out, found, err)) {
        free(key);
        return LEDGER_ERR;
    }
    if (e == NULL) {
        free(key);
        return LEDGER_OK;
    }
    e->key = key;
    e->s = *out;
    e->found = *found;
    memo->n++;
    return LEDGER_OK;
}

void suggest_memo_free(struct suggest_memo *memo)
{
    size_t i;

    for (i = 0; i < memo->cap; i++)
        free(memo->e[i].key);
    free(memo->e);
    memset(memo, 0, sizeof *memo);
}

int suggestion_add_json(cJSON *o, const struct suggestion *s)
{
    if (!cJSON_AddStringToObject(o, "category", s->category)
        || !cJSON_AddTrueToObject(o, "category_suggested")
        || !cJSON_AddNumberToObject(o, "confidence", s->confidence / 100.0)
        || !cJSON_AddStringToObject(o, "suggestion_source", s->source)
        || !cJSON_AddStringToObject(o, "reason", s->reason))
        return -1;
    return 0;
}

int suggest_passes(const struct suggestion *s, int has_threshold, int64_t threshold)
{
    if (!has_threshold)
        return strcmp(s->source, SUGGEST_MERCHANT) == 0 && s->confidence >= 50;
    return s->confidence >= threshold;
}
