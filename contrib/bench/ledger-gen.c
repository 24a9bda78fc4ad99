/*
 * ledger-gen: builds a realistic ledger for the benchmark, deterministic from
 * a seed.
 *
 *   ledger-gen --db PATH [--rows N] [--users N] [--years N] [--seed N]
 *
 * Users live in households of four that share: splits of 50/50 with a
 * household member, payments between them, trips.  Each user has a credit
 * card and a transaction account with monthly statements (opening and
 * closing balances that reconcile), a loan with itemised repayments, manual
 * rows, tags, rules and budgets, and a set of recurring merchants
 * (subscriptions) among a few hundred ordinary ones.  Rows are written
 * with bulk SQL that stores exactly what libledger's write paths store
 * (folded categories, owner_id on every row, splits completed to 100%).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "txn.h"
#include "spend.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

struct merchant {
    char name[48];
    const char *category;
    int64_t typical;  /* cents */
    int cadence;      /* 0: ordinary; else days between charges */
};

static const char *const categories[] = {
    "groceries", "dining", "transport", "fuel", "travel", "accommodation",
    "entertainment", "shopping", "health", "fitness", "personal_care",
    "education", "utilities", "phone_internet", "rent", "home", "insurance",
    "subscriptions", "gifts", "pets", "other"
};
#define NCAT (sizeof categories / sizeof categories[0])
#define NMERCHANTS 300
#define NSUBS 12

static struct merchant merchants[NMERCHANTS + NSUBS];

static void make_merchants(void)
{
    static const char *const stems[] = {
        "Coffee", "Market", "Grill", "Fuel", "Pharmacy", "Books", "Cinema", "Gym",
        "Bakery", "Hardware", "Florist", "Taxi", "Pet Store", "Salon", "Deli", "Noodle Bar"
    };
    static const struct { const char *n; int days; int64_t cents; } subs[NSUBS] = {
        { "Netflix", 30, 1699 }, { "Spotify", 30, 1299 }, { "Gym Membership", 14, 2495 },
        { "Cloud Storage", 30, 449 }, { "Newspaper", 7, 600 }, { "Phone Plan", 30, 4500 },
        { "Internet", 30, 7999 }, { "Car Insurance", 365, 98000 }, { "Council Rates", 91, 45000 },
        { "Water Bill", 91, 21000 }, { "Software Licence", 365, 14900 }, { "Meal Kit", 7, 8900 }
    };
    int i;

    for (i = 0; i < NMERCHANTS; i++) {
        snprintf(merchants[i].name, sizeof merchants[i].name, "%s %03d",
                 stems[i % (int)(sizeof stems / sizeof stems[0])], i);
        merchants[i].category = categories[i % NCAT];
        merchants[i].typical = between(300, 15000);
        merchants[i].cadence = 0;
    }
    for (i = 0; i < NSUBS; i++) {
        struct merchant *m = &merchants[NMERCHANTS + i];

        snprintf(m->name, sizeof m->name, "%s", subs[i].n);
        m->category = "subscriptions";
        m->typical = subs[i].cents;
        m->cadence = subs[i].days;
    }
}

static int exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "ledger-gen: %s: %s\n", sql, msg);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ledger-gen: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    return st;
}

static void step(sqlite3 *db, sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE) {
        fprintf(stderr, "ledger-gen: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int64_t rows = 1000000, users = 20, years = 5, seed = 42;
    int64_t start_day;
    int64_t days, u, i, made = 0;
    ledger_db *ldb;
    ledger_error err;
    sqlite3 *db;
    sqlite3_stmt *ins_user, *ins_stmt, *ins_txn, *ins_split, *ins_tag, *ins_link, *ins_trip,
        *ins_pay, *ins_rule, *ins_budget;
    int64_t *user_ids, *stmt_ids, *trip_ids, *tag_ids;
    int64_t per_user, nmonths;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = atoll(argv[++i]);
        else if (strcmp(argv[i], "--users") == 0 && i + 1 < argc)
            users = atoll(argv[++i]);
        else if (strcmp(argv[i], "--years") == 0 && i + 1 < argc)
            years = atoll(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = atoll(argv[++i]);
        else {
            fprintf(stderr, "usage: ledger-gen --db PATH [--rows N] [--users N] [--years N] [--seed N]\n");
            return 2;
        }
    }
    if (path == NULL || rows < 100 || users < 4 || years < 1) {
        fprintf(stderr, "ledger-gen: --db is required; rows >= 100, users >= 4, years >= 1\n");
        return 2;
    }
    rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
    make_merchants();
    remove(path);
    if (ledger_open(path, &ldb, &err)) {
        fprintf(stderr, "ledger-gen: %s\n", err.message);
        return 1;
    }
    db = ldb->sql;
    days = years * 365;
    start_day = 20454 - days;  /* 2026-01-01 back by the years asked */
    nmonths = years * 12;
    per_user = rows / users;
    exec(db, "PRAGMA synchronous = OFF");
    exec(db, "BEGIN");

    ins_user = prep(db, "INSERT INTO users (subject, email, name) VALUES (?, ?, ?)");
    ins_stmt = prep(db, "INSERT INTO statements (owner_id, bank_name, account_name, account_type,"
                        " statement_type, period_start, period_end, due_date, amount_due,"
                        " opening_balance, closing_balance) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    ins_txn = prep(db, "INSERT INTO transactions (statement_id, owner_id, date, description, merchant,"
                       " category, transaction_type, amount, amount_aud, currency, payment_method,"
                       " principal_amount, interest_amount, override_trip_id, created_at)"
                       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    ins_split = prep(db, "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
                         " VALUES (?,?,?,?)");
    ins_tag = prep(db, "INSERT INTO tags (owner_id, name, color) VALUES (?,?,?)");
    ins_link = prep(db, "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id) VALUES (?,?)");
    ins_trip = prep(db, "INSERT INTO trips (owner_id, name, start_date, end_date) VALUES (?,?,?,?)");
    ins_pay = prep(db, "INSERT INTO split_payments (from_user_id, to_user_id, amount, date, trip_id,"
                       " linked_transaction_id, created_by) VALUES (?,?,?,?,?,?,?)");
    ins_rule = prep(db, "INSERT INTO rules (owner_id, name, conditions, actions, enabled, manual_only)"
                        " VALUES (?,?,?,?,1,?)");
    ins_budget = prep(db, "INSERT INTO budgets (owner_id, category, amount) VALUES (?,?,?)");

    user_ids = calloc((size_t)users, sizeof *user_ids);
    stmt_ids = calloc((size_t)(users * nmonths * 2), sizeof *stmt_ids);
    trip_ids = calloc((size_t)(users * 3), sizeof *trip_ids);
    tag_ids = calloc((size_t)(users * 10), sizeof *tag_ids);
    for (u = 0; u < users; u++) {
        char subject[32], email[64], name[32];

        snprintf(subject, sizeof subject, "user%02lld", (long long)(u + 1));
        snprintf(email, sizeof email, "user%02lld@example.org", (long long)(u + 1));
        snprintf(name, sizeof name, "User %lld", (long long)(u + 1));
        sqlite3_bind_text(ins_user, 1, subject, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_user, 2, email, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_user, 3, name, -1, SQLITE_TRANSIENT);
        step(db, ins_user);
        user_ids[u] = sqlite3_last_insert_rowid(db);
    }
    for (u = 0; u < users; u++) {
        int64_t m, k;

        for (k = 0; k < 10; k++) {
            char tname[32];

            snprintf(tname, sizeof tname, "tag-%lld", (long long)k);
            sqlite3_bind_int64(ins_tag, 1, user_ids[u]);
            sqlite3_bind_text(ins_tag, 2, tname, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_tag, 3, "#336699", -1, SQLITE_STATIC);
            step(db, ins_tag);
            tag_ids[u * 10 + k] = sqlite3_last_insert_rowid(db);
        }
        for (k = 0; k < 3; k++) {
            char tname[32], from[11], to[11];
            int64_t d0 = start_day + between(0, days - 20);

            snprintf(tname, sizeof tname, "Trip %lld-%lld", (long long)u, (long long)k);
            date_of_days(d0, from);
            date_of_days(d0 + 14, to);
            sqlite3_bind_int64(ins_trip, 1, user_ids[u]);
            sqlite3_bind_text(ins_trip, 2, tname, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_trip, 3, from, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_trip, 4, to, -1, SQLITE_TRANSIENT);
            step(db, ins_trip);
            trip_ids[u * 3 + k] = sqlite3_last_insert_rowid(db);
        }
        for (k = 0; k < 5; k++) {
            char rname[32], cond[160], act[160];

            snprintf(rname, sizeof rname, "Rule %lld", (long long)k);
            snprintf(cond, sizeof cond,
                     "[{\"field\":\"merchant\",\"operator\":\"contains\",\"value\":\"%s\"}]",
                     merchants[(u * 5 + k) % NMERCHANTS].name);
            snprintf(act, sizeof act, "[{\"type\":\"set_category\",\"category\":\"%s\"}]",
                     merchants[(u * 5 + k) % NMERCHANTS].category);
            sqlite3_bind_int64(ins_rule, 1, user_ids[u]);
            sqlite3_bind_text(ins_rule, 2, rname, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_rule, 3, cond, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_rule, 4, act, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(ins_rule, 5, k == 4);
            step(db, ins_rule);
        }
        for (k = 0; k < 10; k++) {
            sqlite3_bind_int64(ins_budget, 1, user_ids[u]);
            sqlite3_bind_text(ins_budget, 2, categories[k], -1, SQLITE_STATIC);
            sqlite3_bind_int64(ins_budget, 3, between(20000, 200000));
            step(db, ins_budget);
        }
        /* Two accounts with a statement a month each. */
        for (m = 0; m < nmonths; m++) {
            int a;

            for (a = 0; a < 2; a++) {
                char ps[11], pe[11], due[11];

                date_of_days(start_day + m * days / nmonths, ps);
                date_of_days(start_day + (m + 1) * days / nmonths - 1, pe);
                date_of_days(start_day + (m + 1) * days / nmonths + 20, due);
                sqlite3_bind_int64(ins_stmt, 1, user_ids[u]);
                sqlite3_bind_text(ins_stmt, 2, a ? "Everyday Bank" : "Card Bank", -1, SQLITE_STATIC);
                sqlite3_bind_text(ins_stmt, 3, a ? "Everyday" : "Visa", -1, SQLITE_STATIC);
                sqlite3_bind_text(ins_stmt, 4, a ? "Everyday Account" : "Visa Credit Card", -1, SQLITE_STATIC);
                sqlite3_bind_text(ins_stmt, 5, a ? "transaction" : "credit_card", -1, SQLITE_STATIC);
                sqlite3_bind_text(ins_stmt, 6, ps, -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(ins_stmt, 7, pe, -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(ins_stmt, 8, due, -1, SQLITE_TRANSIENT);
                step(db, ins_stmt);
                stmt_ids[(u * nmonths + m) * 2 + a] = sqlite3_last_insert_rowid(db);
            }
        }
    }

    /* The rows, user by user, in date order within each statement month. */
    for (u = 0; u < users; u++) {
        int64_t household = u / 4 * 4, n;

        for (n = 0; n < per_user; n++) {
            int64_t day = start_day + n * days / per_user;
            int64_t m = (day - start_day) * nmonths / days;
            int64_t r = between(0, 999), amount, txn_id;
            const struct merchant *mc;
            const char *type = "debit", *category;
            int manual = r < 50, account = (int)(rnd() % 2);
            char date[11], desc[96], created[24];

            if (m >= nmonths)
                m = nmonths - 1;
            mc = (n % 40 == 0) ? &merchants[NMERCHANTS + (n / 40) % NSUBS]
                               : &merchants[between(0, NMERCHANTS - 1)];
            category = mc->category;
            amount = mc->cadence ? mc->typical : mc->typical / 2 + between(0, mc->typical);
            if (r >= 900 && r < 950) {
                type = "credit";
                category = "income";
            } else if (r >= 950 && r < 970) {
                type = "fee";
                category = "fees";
                amount = between(100, 3000);
            } else if (r >= 970 && r < 980) {
                type = "interest";
                category = "loan_interest";
            } else if (r >= 980 && r < 990) {
                type = "payment";
                category = "transfers";
            } else if (r >= 990) {
                type = "refund";
            }
            date_of_days(day, date);
            snprintf(created, sizeof created, "%sT09:00:00Z", date);
            snprintf(desc, sizeof desc, "%s %s #%lld", mc->name, type, (long long)n);
            if (manual)
                sqlite3_bind_null(ins_txn, 1);
            else
                sqlite3_bind_int64(ins_txn, 1, stmt_ids[(u * nmonths + m) * 2 + account]);
            sqlite3_bind_int64(ins_txn, 2, user_ids[u]);
            sqlite3_bind_text(ins_txn, 3, date, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_txn, 4, desc, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(ins_txn, 5, mc->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(ins_txn, 6, category, -1, SQLITE_STATIC);
            sqlite3_bind_text(ins_txn, 7, type, -1, SQLITE_STATIC);
            sqlite3_bind_int64(ins_txn, 8, amount);
            if (r % 50 == 7)  /* a foreign-currency purchase */
                sqlite3_bind_int64(ins_txn, 9, amount * 3 / 2);
            sqlite3_bind_text(ins_txn, 10, r % 50 == 7 ? "USD" : "AUD", -1, SQLITE_STATIC);
            if (manual)
                sqlite3_bind_text(ins_txn, 11, r % 2 ? "cash" : "card", -1, SQLITE_STATIC);
            if (r >= 970 && r < 980) {
                sqlite3_bind_int64(ins_txn, 12, amount * 3);
                sqlite3_bind_int64(ins_txn, 13, amount);
            }
            if (r % 50 == 11)
                sqlite3_bind_int64(ins_txn, 14, trip_ids[u * 3 + (n % 3)]);
            sqlite3_bind_text(ins_txn, 15, created, -1, SQLITE_TRANSIENT);
            step(db, ins_txn);
            txn_id = sqlite3_last_insert_rowid(db);
            made++;
            if (r % 10 == 3) {
                sqlite3_bind_int64(ins_link, 1, txn_id);
                sqlite3_bind_int64(ins_link, 2, tag_ids[u * 10 + (int64_t)(rnd() % 10)]);
                step(db, ins_link);
            }
            /* 8% shared 50/50 with a household member (rule A: the owner
             * holds the rest). */
            if (r % 25 == 1 || r % 25 == 2) {
                int64_t other = household + (u - household + 1 + (int64_t)(rnd() % 3)) % 4;

                if (other >= users)
                    other = household;
                if (other != u) {
                    sqlite3_bind_int64(ins_split, 1, txn_id);
                    sqlite3_bind_int64(ins_split, 2, user_ids[other]);
                    sqlite3_bind_int64(ins_split, 3, 5000);
                    sqlite3_bind_int(ins_split, 4, (int)(rnd() % 4 == 0));
                    step(db, ins_split);
                    sqlite3_bind_int64(ins_split, 1, txn_id);
                    sqlite3_bind_int64(ins_split, 2, user_ids[u]);
                    sqlite3_bind_int64(ins_split, 3, 5000);
                    sqlite3_bind_int(ins_split, 4, 0);
                    step(db, ins_split);
                }
            }
        }
        /* Monthly settling-up payments inside the household. */
        for (i = 0; i < nmonths; i++) {
            int64_t other = household + (u - household + 1) % 4;
            char date[11], link[48];

            if (other >= users || other == u)
                continue;
            date_of_days(start_day + i * days / nmonths + 27, date);
            snprintf(link, sizeof link, "gen-%lld-%lld", (long long)u, (long long)i);
            sqlite3_bind_int64(ins_pay, 1, user_ids[u]);
            sqlite3_bind_int64(ins_pay, 2, user_ids[other]);
            sqlite3_bind_int64(ins_pay, 3, between(1000, 50000));
            sqlite3_bind_text(ins_pay, 4, date, -1, SQLITE_TRANSIENT);
            if (i % 12 == 5)
                sqlite3_bind_int64(ins_pay, 5, trip_ids[u * 3]);
            sqlite3_bind_text(ins_pay, 6, link, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(ins_pay, 7, user_ids[u]);
            step(db, ins_pay);
        }
    }
    /* Balances that reconcile: closing = opening +/- the movement. */
    exec(db, "UPDATE statements SET opening_balance = 100000,"
             " closing_balance = 100000 + (SELECT COALESCE(SUM(CASE WHEN t.transaction_type IN"
             " ('debit','fee','interest') THEN t.amount ELSE -t.amount END), 0)"
             " * (CASE WHEN statements.statement_type = 'credit_card' THEN 1 ELSE -1 END)"
             " FROM transactions t WHERE t.statement_id = statements.id),"
             " amount_due = 0");
    sqlite3_finalize(ins_user);
    sqlite3_finalize(ins_stmt);
    sqlite3_finalize(ins_txn);
    sqlite3_finalize(ins_split);
    sqlite3_finalize(ins_tag);
    sqlite3_finalize(ins_link);
    sqlite3_finalize(ins_trip);
    sqlite3_finalize(ins_pay);
    sqlite3_finalize(ins_rule);
    sqlite3_finalize(ins_budget);
    /* As ledger_commit does, but every row: the ledger starts with its
     * rows indexed for search, in one statement (txn_search.c). */
    if (search_flush(ldb, 1, &err)) {
        fprintf(stderr, "ledger-gen: %s\n", err.message);
        return 1;
    }
    if (exec(db, "COMMIT"))
        return 1;
    printf("ledger-gen: %lld rows for %lld users over %lld years into %s (seed %lld)\n",
           (long long)made, (long long)users, (long long)years, path, (long long)seed);
    free(user_ids);
    free(stmt_ids);
    free(trip_ids);
    free(tag_ids);
    ledger_close(ldb);
    return 0;
}
