/* Who may see and touch what, private to libledger: access checks
 * (access.c), splits (split.c) and participants (participant.c). */
#ifndef LEDGER_SHARE_H
#define LEDGER_SHARE_H

#include "db.h"

/* Whether user u (an SQL expression) has turned to me by an act of their
 * own, each test one index probe: added me, or recorded a payment with
 * me.  Until someone has, or is otherwise known to me (the owner of a row
 * shared with me), I see them only by the address as I typed it and the
 * name I gave them (my label), both mine: nothing that tells an account
 * from a placeholder. */
#define PERSON_TURNED_SQL(u, me) \
    "(EXISTS (SELECT 1 FROM user_contacts WHERE user_id = " u " AND contact_id = " me ")" \
    " OR EXISTS (SELECT 1 FROM split_payments WHERE created_by = " u \
    "             AND ((from_user_id = " u " AND to_user_id = " me ")" \
    "                  OR (from_user_id = " me " AND to_user_id = " u "))))"

/* ---- access (access.c) ---------------------------------------------------- */
struct txn_access {
    int64_t owner_id;
    int64_t statement_id;  /* 0 for a manual row */
    int is_owner;
    int itemised;          /* an itemised repayment (principal_amount set) */
};
/* canAccessTransactions for one row: 404 missing (or hidden), 403 stranger. */
int access_txn(ledger_db *db, int64_t me, int64_t txn_id, struct txn_access *out,
               ledger_error *err);
/* The same for every id of a JSON array: all accessible, or 404/403
 * naming field, the body's field that holds them. */
int access_txn_set(ledger_db *db, int64_t me, const cJSON *ids, const char *field,
                   ledger_error *err);
/* Whether the caller is a participant of the trip (derived: its owner, or
 * with a row, a split or a payment in it); 404 when there is no such trip. */
int access_trip(ledger_db *db, int64_t me, int64_t trip_id, int *participant,
                ledger_error *err);
/* A trip named in a body (trip_id) that the caller may put rows in: a
 * missing trip is 400 on trip_id, one they are not part of 403. */
int trip_check_member(ledger_db *db, int64_t me, int64_t trip_id, ledger_error *err);
/* Rows the caller puts in a trip (ids: a JSON array's text, each
 * accessible): a row's owner takes part in the trip from then on, and so
 * do the people on the split of a row of the trip owner's; unless the
 * caller is the trip's owner, who alone brings people in, each must take
 * part already (403 naming field). */
int trip_check_row_owners(ledger_db *db, int64_t me, int64_t trip_id, const char *ids,
                          const char *field, ledger_error *err);

/* ---- splits (split.c) ----------------------------------------------------- */
struct split_share {
    int64_t participant_id;
    int64_t share;  /* hundredths of a percent */
};
struct split_set {
    struct split_share *v;
    size_t n;
};
/* Validates an array of {participant_id, share_percent} for a row owned by
 * owner and completes it to 100% with an owner row (rule A); caller is who
 * asks (the owner, or a participant of the row), for the messages.  The
 * caller frees *out with split_set_free. */
int split_parse(ledger_db *db, const cJSON *arr, const char *field, int64_t owner,
                int64_t caller, struct split_set *out, ledger_error *err);
void split_set_free(struct split_set *s);
int split_write(ledger_db *db, int64_t txn_id, const struct split_set *s, ledger_error *err);
/* Apportions amount cents over the shares by largest remainder into cents[]
 * (n entries), so they sum exactly to amount when the shares total 100%. */
void split_apportion(int64_t amount, struct split_share *v, size_t n, int64_t owner,
                     int64_t *cents);

/* ---- participants (participant.c) ---------------------------------------- */
/* Whether other is me or someone I share with (a contact either way, a split
 * counterpart either way, a payment counterpart). */
int participant_known(ledger_db *db, int64_t me, int64_t other, int *known, ledger_error *err);
/* The same as a check on a body field: 400 naming field when not; the
 * message speaks to me (yours) or to someone acting on my row. */
int participant_check(ledger_db *db, int64_t me, int64_t other, const char *field, int yours,
                      ledger_error *err);

/* A row's split shares by participant id, and room for their cents
 * (split_apportion); kept from row to row, zeroed to start. */
struct split_buf {
    struct split_share *v;
    int64_t *cents;
    size_t n, cap;
};
/* Room for n shares; -1 when memory ran out. */
int split_buf_room(struct split_buf *b, size_t n);
void split_buf_free(struct split_buf *b);
/* A row's splits as one text, "participant,share;...", for a statement
 * that reads many rows' splits with the rows (rather than a query for
 * each); NULL for none.  Their order is SQLite's to keep or not, and
 * nothing depends on it: split_apportion breaks ties by participant id,
 * not by place.  split_buf_parse reads it into b (-1 when memory ran out
 * or it is no such text). */
#define SPLITS_TEXT_SQL(id)                                                             \
    "(SELECT group_concat(participant_id || ',' || share_percent, ';')"                 \
    "   FROM (SELECT participant_id, share_percent FROM splits"                          \
    "          WHERE transaction_id = " id " ORDER BY participant_id))"
int split_buf_parse(struct split_buf *b, const char *text);

#endif /* LEDGER_SHARE_H */
