/*
 * The words a row is cut into for its category suggestion, and the
 * built-in prior: what a word usually means for a user with no history.
 * Both lists are data; changing a word list changes what the counts
 * hold, so the migration that does it counts every row again.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "suggest.h"

/* The banks' and card processors' filler: words that say how a row was
 * paid, not what for. */
static const char *const filler[] = {
    "the", "and", "for", "pty", "ltd", "inc", "llc", "com", "www", "net", "org",
    "card", "visa", "debit", "credit", "purchase", "pos", "eftpos", "tap", "pay",
    "payment", "paypal", "square", "sumup", "tst", "mastercard", "contactless",
    "transaction", "txn", "ref", "aus", "usa", "nsw", "vic", "qld", "wa", "act",
    "xxxx", "pending", "online", "intl", "international", "value", "date",
    NULL
};

/* A modest prior for the built-in categories: a word, the category it
 * usually means.  Found by its word in the row's words, with low
 * confidence (BUILTIN_CONFIDENCE). */
static const struct { const char *word, *category; } prior[] = {
    { "coffee", "dining" }, { "cafe", "dining" }, { "espresso", "dining" },
    { "roasters", "dining" }, { "bakery", "dining" }, { "restaurant", "dining" },
    { "pizza", "dining" }, { "sushi", "dining" }, { "burger", "dining" },
    { "mcdonalds", "dining" }, { "kfc", "dining" }, { "starbucks", "dining" },
    { "doordash", "dining" }, { "ubereats", "dining" }, { "deliveroo", "dining" },
    { "grill", "dining" }, { "pub", "dining" }, { "kitchen", "dining" },
    { "diner", "dining" }, { "bistro", "dining" }, { "thai", "dining" },
    { "supermarket", "groceries" }, { "supermarkets", "groceries" },
    { "woolworths", "groceries" }, { "coles", "groceries" }, { "aldi", "groceries" },
    { "iga", "groceries" }, { "grocer", "groceries" }, { "grocery", "groceries" },
    { "groceries", "groceries" }, { "safeway", "groceries" }, { "kroger", "groceries" },
    { "tesco", "groceries" }, { "sainsburys", "groceries" }, { "wholefoods", "groceries" },
    { "butcher", "groceries" }, { "greengrocer", "groceries" },
    { "netflix", "subscriptions" }, { "spotify", "subscriptions" },
    { "hulu", "subscriptions" }, { "disney", "subscriptions" },
    { "youtube", "subscriptions" }, { "patreon", "subscriptions" },
    { "audible", "subscriptions" }, { "icloud", "subscriptions" },
    { "streaming", "subscriptions" }, { "subscription", "subscriptions" },
    { "uber", "transport" }, { "lyft", "transport" }, { "taxi", "transport" },
    { "transit", "transport" }, { "metro", "transport" }, { "opal", "transport" },
    { "myki", "transport" }, { "parking", "transport" }, { "toll", "transport" },
    { "shell", "fuel" }, { "caltex", "fuel" }, { "ampol", "fuel" }, { "petrol", "fuel" },
    { "fuel", "fuel" }, { "chevron", "fuel" }, { "exxon", "fuel" },
    { "qantas", "travel" }, { "jetstar", "travel" }, { "airline", "travel" },
    { "airlines", "travel" }, { "airways", "travel" },
    { "hotel", "accommodation" }, { "motel", "accommodation" },
    { "airbnb", "accommodation" }, { "hostel", "accommodation" },
    { "pharmacy", "health" }, { "chemist", "health" }, { "doctor", "health" },
    { "medical", "health" }, { "dental", "health" }, { "clinic", "health" },
    { "gym", "fitness" }, { "fitness", "fitness" },
    { "electricity", "utilities" }, { "energy", "utilities" }, { "water", "utilities" },
    { "telstra", "phone_internet" }, { "optus", "phone_internet" },
    { "vodafone", "phone_internet" }, { "internet", "phone_internet" },
    { "amazon", "shopping" }, { "ebay", "shopping" }, { "kmart", "shopping" },
    { "insurance", "insurance" }, { "rent", "rent" },
    { "salary", "income" }, { "payroll", "income" }, { "wages", "income" },
    { "cinema", "entertainment" }, { "ticketek", "entertainment" },
    { "vet", "pets" }, { "petbarn", "pets" },
};
#define BUILTIN_CONFIDENCE 30

static int is_filler(const char *s)
{
    size_t i;

    for (i = 0; filler[i]; i++)
        if (strcmp(filler[i], s) == 0)
            return 1;
    return 0;
}

/* FNV-1a, folded into the buckets. */
static int32_t word_id(const char *s)
{
    uint64_t h = HASH_START;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * HASH_PRIME;
    return (int32_t)(h % SUGGEST_BUCKETS);
}

static void cut_text(const char *s, struct suggest_words *w)
{
    while (s && *s && w->n < SUGGEST_WORDS_MAX) {
        char tok[SUGGEST_WORD_LEN + 1];
        size_t len = 0;
        int digit = 0, i;

        while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
                       || (*s >= '0' && *s <= '9') || (unsigned char)*s >= 0x80))
            s++;
        for (; (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
               || (unsigned char)*s >= 0x80; s++) {
            digit |= *s >= '0' && *s <= '9';
            if (len < SUGGEST_WORD_LEN)
                tok[len++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
        }
        tok[len] = '\0';
        if (digit || len < 3 || is_filler(tok))
            continue;
        for (i = 0; i < w->n && strcmp(w->text[i], tok) != 0; i++)
            ;
        if (i < w->n)
            continue;
        memcpy(w->text[w->n], tok, len + 1);
        w->id[w->n] = word_id(tok);
        w->n++;
    }
}

void suggest_cut(const char *description, const char *merchant, const char *type,
                 struct suggest_words *w)
{
    w->n = 0;
    cut_text(merchant, w);
    cut_text(description, w);
    w->id[w->n] = type && (strcmp(type, "credit") == 0 || strcmp(type, "refund") == 0)
                  ? SUGGEST_WORD_IN : SUGGEST_WORD_OUT;
}

void suggest_sql_words(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct suggest_words w;
    char out[(SUGGEST_WORDS_MAX + 1) * 8 + 3];
    size_t len = 0;
    int i;

    (void)argc;
    suggest_cut((const char *)sqlite3_value_text(argv[0]), (const char *)sqlite3_value_text(argv[1]),
                (const char *)sqlite3_value_text(argv[2]), &w);
    out[len++] = '[';
    for (i = 0; i <= w.n; i++)
        len += (size_t)snprintf(out + len, sizeof out - len, i ? ",%d" : "%d", (int)w.id[i]);
    out[len++] = ']';
    sqlite3_result_text(ctx, out, (int)len, SQLITE_TRANSIENT);
}

int suggest_builtin(const struct suggest_words *w, struct suggestion *out)
{
    size_t k;
    int i;

    /* The first word that names one: a merchant's words come first. */
    for (i = 0; i < w->n; i++)
        for (k = 0; k < sizeof prior / sizeof prior[0]; k++)
            if (strcmp(prior[k].word, w->text[i]) == 0) {
                snprintf(out->category, sizeof out->category, "%s", prior[k].category);
                out->confidence = BUILTIN_CONFIDENCE;
                out->source = SUGGEST_BUILTIN;
                snprintf(out->reason, sizeof out->reason, "built-in: %s usually means %s",
                         w->text[i], prior[k].category);
                return 1;
            }
    return 0;
}
