/* The route table.  Patterns are anchored at both ends by the router;
 * a capture group becomes the next entry of r->args. */
#include "handlers.h"
#include "router.h"

#define ID "([0-9]+)"
/* One path segment (percent-decoded by the router). */
#define SEGMENT "([^/]+)"

const struct route routes[] = {
    { "GET", "/api/me", h_me_get, 0 },
    { "GET", "/api/categories", h_categories_list, 0 },
    { "GET", "/api/tags", h_tags_list, 0 },
    { "POST", "/api/tags", h_tags_create, ROUTE_WRITE | ROUTE_JSON },
    { "PATCH", "/api/tags/" ID, h_tags_update, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/tags/" ID, h_tags_delete, ROUTE_WRITE },
    { "GET", "/api/transactions", h_txn_list, 0 },
    { "POST", "/api/transactions", h_txn_create, ROUTE_WRITE | ROUTE_JSON },
    { "GET", "/api/transactions/" ID, h_txn_get, 0 },
    { "PATCH", "/api/transactions/" ID, h_txn_update, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/transactions/" ID, h_txn_delete, ROUTE_WRITE },
    { "POST", "/api/transactions/bulk", h_txn_bulk, ROUTE_WRITE | ROUTE_JSON },
    { "POST", "/api/transactions/" ID "/tags", h_txn_tag_add, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/transactions/" ID "/tags", h_txn_tag_remove, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/transactions/" ID "/tags/" ID, h_txn_tag_remove, ROUTE_WRITE },
    { "GET", "/api/merchants", h_merchants_list, 0 },
    { "GET", "/api/transactions/" ID "/splits", h_splits_get, 0 },
    { "POST", "/api/transactions/" ID "/splits", h_splits_set, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/transactions/" ID "/splits", h_splits_clear, ROUTE_WRITE },
    { "POST", "/api/transactions/" ID "/splits/settle", h_splits_settle, ROUTE_WRITE | ROUTE_JSON },
    { "GET", "/api/participants", h_participants_list, 0 },
    { "POST", "/api/participants", h_participants_add, ROUTE_WRITE | ROUTE_JSON },
    { "GET", "/api/participants/" ID "/balance", h_balance_get, 0 },
    { "GET", "/api/balances", h_balances_list, 0 },
    { "GET", "/api/payments", h_payments_list, 0 },
    { "POST", "/api/payments", h_payments_create, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/payments/" ID, h_payments_delete, ROUTE_WRITE },
    { "GET", "/api/statements", h_statements_list, 0 },
    { "POST", "/api/statements", h_statements_create, ROUTE_WRITE | ROUTE_JSON },
    { "POST", "/api/statements/import", h_statements_import, ROUTE_WRITE | ROUTE_RAW },
    { "GET", "/api/statements/" ID, h_statements_get, 0 },
    { "DELETE", "/api/statements/" ID, h_statements_delete, ROUTE_WRITE },
    { "GET", "/api/trips", h_trips_list, 0 },
    { "POST", "/api/trips", h_trips_create, ROUTE_WRITE | ROUTE_JSON },
    { "POST", "/api/trips/from-tag", h_trips_from_tag, ROUTE_WRITE | ROUTE_JSON },
    { "GET", "/api/trips/" ID, h_trips_get, 0 },
    { "PATCH", "/api/trips/" ID, h_trips_update, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/trips/" ID, h_trips_delete, ROUTE_WRITE },
    { "GET", "/api/trips/" ID "/participants", h_trips_participants, 0 },
    { "POST", "/api/trips/" ID "/transactions", h_trips_assign, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/trips/" ID "/transactions", h_trips_unassign, ROUTE_WRITE | ROUTE_JSON },
    { "GET", "/api/trips/" ID "/analytics", h_trips_analytics, 0 },
    { "GET", "/api/trips/" ID "/owed", h_trips_owed, 0 },
    { "GET", "/api/reconcile", h_reconcile_list, 0 },
    { "POST", "/api/reconcile", h_reconcile_apply, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/reconcile/" ID, h_reconcile_undo, ROUTE_WRITE },
    { "GET", "/api/budgets", h_budgets_list, 0 },
    { "PUT", "/api/budgets/" SEGMENT, h_budgets_put, ROUTE_WRITE | ROUTE_JSON },
    { "DELETE", "/api/budgets/" SEGMENT, h_budgets_delete, ROUTE_WRITE },
    { "GET", "/api/analytics/monthly", h_analytics_monthly, 0 },
    { "GET", "/api/analytics/monthly/([0-9]{4}-[0-9]{2})/" SEGMENT, h_analytics_drilldown, 0 },
    { "GET", "/api/analytics/merchants", h_analytics_merchants, 0 },
    { "GET", "/api/analytics/merchants/" SEGMENT, h_analytics_merchant, 0 },
    { "GET", "/api/analytics/fees", h_analytics_fees, 0 },
    { "GET", "/api/analytics/subscriptions", h_analytics_subscriptions, 0 },
};

const size_t route_count = sizeof routes / sizeof routes[0];
