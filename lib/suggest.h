/* Category suggestions, private to libledger: the words a row is cut into
 * (suggest_words.c), the counts kept from the owner's categorised rows and
 * one row's suggestion (suggest.c), and the lists and runs that show and
 * apply them (suggest_apply.c).  schema/0029_category_suggestions.sql
 * holds the counts. */
#ifndef LEDGER_SUGGEST_H
#define LEDGER_SUGGEST_H

#include "db.h"

/* Word ids: a word hashes to one of SUGGEST_BUCKETS buckets, so a user's
 * model has at most SUGGEST_WORD_IDS cells per category however many
 * different words their rows hold; the amount's direction is one more
 * word of two. */
#define SUGGEST_BUCKETS 65536
#define SUGGEST_WORD_IN SUGGEST_BUCKETS
#define SUGGEST_WORD_OUT (SUGGEST_BUCKETS + 1)
#define SUGGEST_WORD_IDS (SUGGEST_BUCKETS + 2)
/* A row gives at most this many words (its first distinct ones), each cut
 * to SUGGEST_WORD_LEN bytes. */
#define SUGGEST_WORDS_MAX 16
#define SUGGEST_WORD_LEN 24

struct suggest_words {
    int n;                                            /* words, direction not counted */
    int32_t id[SUGGEST_WORDS_MAX + 1];                /* then the direction, at id[n] */
    char text[SUGGEST_WORDS_MAX][SUGGEST_WORD_LEN + 1];
};

/* The cleaned words of a row: ASCII letters lowered, split at anything
 * but a letter, a digit or a byte past ASCII; a token holding a digit
 * (card, store, reference numbers), one shorter than 3 bytes and the
 * bank's filler words (card, purchase, pty...) are left out; each word
 * once.  type gives the direction (credit and refund are money in). */
void suggest_cut(const char *description, const char *merchant, const char *type,
                 struct suggest_words *w);
/* The SQL function ledger_words(description, merchant, type): the ids of
 * suggest_cut's words and direction as a JSON array. */
void suggest_sql_words(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* Suggestion sources, strongest first. */
#define SUGGEST_MERCHANT "merchant"
#define SUGGEST_WORDS "words"
#define SUGGEST_BUILTIN "builtin"

struct suggestion {
    char category[LEDGER_CATEGORY_MAX];
    int confidence;           /* hundredths, 1..99 */
    const char *source;       /* one of the sources above */
    char reason[256];
};

/* Counts the rows written since the last flush (schema: suggest_pending):
 * does nothing outside a writing transaction. */
int suggest_flush(ledger_db *db, ledger_error *err);
/* owner's suggestion for a row with these texts: *found 0 when there is
 * none.  Reads only owner's counts. */
/* suggest_row for the rows of one file, remembering each answer by the
 * row's merchant and words (suggest.c): memo starts zeroed, and is freed
 * by suggest_memo_free. */
struct suggest_memo {
    struct suggest_memo_entry *e;
    size_t cap, n;
};
int suggest_row_memo(ledger_db *db, int64_t owner, struct suggest_memo *memo,
                     const char *description, const char *merchant, const char *type,
                     struct suggestion *out, int *found, ledger_error *err);
void suggest_memo_free(struct suggest_memo *memo);
/* Merchant memory alone (the first of suggest_row's sources): all an
 * automatic run with the default threshold can take. */
int suggest_memory(ledger_db *db, int64_t owner, const char *merchant, struct suggestion *out,
                   int *found, ledger_error *err);
int suggest_row(ledger_db *db, int64_t owner, const char *description, const char *merchant,
                const char *type, struct suggestion *out, int *found, ledger_error *err);
/* The built-in prior alone (for a user with no history), as data. */
int suggest_builtin(const struct suggest_words *w, struct suggestion *out);
/* {category, category_suggested, confidence, source, reason} added to o;
 * 0, or -1 when memory ran out. */
int suggestion_add_json(cJSON *o, const struct suggestion *s);
/* Whether a suggestion passes owner's threshold (suggest_settings; none
 * takes merchant memory alone). */
int suggest_passes(const struct suggestion *s, int has_threshold, int64_t threshold);

/* Applies the suggestions that pass me's threshold to me's uncategorised
 * rows with ids above after_id (those an import just wrote, at most
 * APPLY_MAX of them), as one run whose record goes to *run (NULL when
 * none passed). */
int suggest_auto(ledger_db *db, int64_t me, int64_t after_id, cJSON **run, ledger_error *err);
/* Adds run (suggest_auto's, or NULL for none: JSON null) to doc as its
 * suggestion_run; run is doc's or freed, whatever the outcome. */
int suggestion_run_add(cJSON *doc, cJSON *run, ledger_error *err);

#endif
