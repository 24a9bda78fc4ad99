/* Handlers: thin.  Each reads its inputs from the request, calls libledger,
 * and leaves r->out and r->status set (return 0) or r->err set (return -1).
 * Each sits in fcgi/h_FAMILY.c, named after the first segment of its path
 * (/api/FAMILY...), under a comment naming its routes ("GET /api/tags"). */
#ifndef LEDGER_FCGI_HANDLERS_H
#define LEDGER_FCGI_HANDLERS_H

#include "request.h"

/* Reads path capture i as a positive row id; 404 when it is not one. */
int arg_id(struct request *r, int i, int64_t *id);

/* h_me.c: /api/me */
int h_me_get(struct request *r);

/* h_categories.c: /api/categories */
int h_categories_list(struct request *r);

/* h_merchants.c: /api/merchants */
int h_merchants_list(struct request *r);
int h_merchants_clean(struct request *r);
int h_suggestions_list(struct request *r);
int h_suggestions_apply(struct request *r);
int h_suggestions_settings_get(struct request *r);
int h_suggestions_settings_put(struct request *r);

/* h_tags.c: /api/tags */
int h_tags_list(struct request *r);
int h_tags_create(struct request *r);
int h_tags_get(struct request *r);
int h_tags_update(struct request *r);
int h_tags_delete(struct request *r);

/* h_transactions.c: /api/transactions, with its tags and splits */
int h_txn_list(struct request *r);
int h_txn_create(struct request *r);
int h_txn_get(struct request *r);
int h_txn_update(struct request *r);
int h_txn_delete(struct request *r);
int h_txn_bulk(struct request *r);
int h_txn_tag_add(struct request *r);
int h_txn_tag_remove(struct request *r);
int h_splits_get(struct request *r);
int h_splits_set(struct request *r);
int h_splits_clear(struct request *r);
int h_splits_settle(struct request *r);

/* h_participants.c: /api/participants */
int h_participants_list(struct request *r);
int h_participants_add(struct request *r);
int h_balance_get(struct request *r);

/* h_balances.c: /api/balances */
int h_balances_list(struct request *r);

/* h_payments.c: /api/payments */
int h_payments_list(struct request *r);
int h_payments_create(struct request *r);
int h_payments_get(struct request *r);
int h_payments_delete(struct request *r);

/* h_statements.c: /api/statements */
int h_statements_list(struct request *r);
int h_statements_create(struct request *r);
int h_statements_import(struct request *r);
int h_statements_get(struct request *r);
int h_statements_delete(struct request *r);

/* h_trips.c: /api/trips */
int h_trips_list(struct request *r);
int h_trips_create(struct request *r);
int h_trips_from_tag(struct request *r);
int h_trips_get(struct request *r);
int h_trips_update(struct request *r);
int h_trips_delete(struct request *r);
int h_trips_participants(struct request *r);
int h_trips_assign(struct request *r);
int h_trips_unassign(struct request *r);
int h_trips_analytics(struct request *r);
int h_trips_owed(struct request *r);

/* h_rules.c: /api/rules */
int h_rules_list(struct request *r);
int h_rules_create(struct request *r);
int h_rules_runs(struct request *r);
int h_rules_apply_all(struct request *r);
int h_rules_apply(struct request *r);
int h_rules_revert(struct request *r);
int h_rules_get(struct request *r);
int h_rules_update(struct request *r);
int h_rules_delete(struct request *r);
int h_rules_preview(struct request *r);
int h_rules_run(struct request *r);

/* h_import.c: /api/import/csv */
int h_csv_preview(struct request *r);
int h_csv_commit(struct request *r);

/* h_reconcile.c: /api/reconcile */
int h_reconcile_list(struct request *r);
int h_reconcile_apply(struct request *r);
int h_reconcile_undo(struct request *r);

/* h_budgets.c: /api/budgets */
int h_budgets_list(struct request *r);
int h_budgets_get(struct request *r);
int h_budgets_put(struct request *r);
int h_budgets_delete(struct request *r);

/* h_export.c: /api/export (streams its own answer: r->streamed) */
int h_export(struct request *r);

/* h_analytics.c: /api/analytics */
int h_analytics_monthly(struct request *r);
int h_analytics_drilldown(struct request *r);
int h_analytics_merchants(struct request *r);
int h_analytics_merchant(struct request *r);
int h_analytics_fees(struct request *r);
int h_analytics_subscriptions(struct request *r);

#endif
