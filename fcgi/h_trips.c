/* /api/trips */
#include "handlers.h"

int h_trips_list(struct request *r)
{
    return ledger_trip_list(r->db, r->user_id, &r->out, &r->err);
}

int h_trips_create(struct request *r)
{
    r->status = 201;
    return ledger_trip_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

int h_trips_from_tag(struct request *r)
{
    r->status = 201;
    return ledger_trip_from_tag(r->db, r->user_id, r->json, &r->out, &r->err);
}

int h_trips_get(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1 : ledger_trip_get(r->db, r->user_id, id, &r->out, &r->err);
}

int h_trips_update(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1
                             : ledger_trip_update(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

int h_trips_delete(struct request *r)
{
    int64_t id;

    r->status = 204;
    return arg_id(r, 0, &id) ? -1 : ledger_trip_delete(r->db, r->user_id, id, &r->err);
}

int h_trips_participants(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1
                             : ledger_trip_participants(r->db, r->user_id, id, &r->out, &r->err);
}

int h_trips_assign(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1
                             : ledger_trip_rows(r->db, r->user_id, id, r->json, 1, &r->out, &r->err);
}

int h_trips_unassign(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1
                             : ledger_trip_rows(r->db, r->user_id, id, r->json, 0, &r->out, &r->err);
}

int h_trips_analytics(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1
                             : ledger_trip_analytics(r->db, r->user_id, id, &r->out, &r->err);
}

int h_trips_owed(struct request *r)
{
    int64_t id;

    return arg_id(r, 0, &id) ? -1 : ledger_trip_owed(r->db, r->user_id, id, &r->out, &r->err);
}
