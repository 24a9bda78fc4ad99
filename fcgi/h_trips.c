/* /api/trips */
#include "handlers.h"

/* GET /api/trips */
int h_trips_list(struct request *r)
{
    return ledger_trip_list(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/trips */
int h_trips_create(struct request *r)
{
    r->status = 201;
    return ledger_trip_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* POST /api/trips/from-tag */
int h_trips_from_tag(struct request *r)
{
    r->status = 201;
    return ledger_trip_from_tag(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/trips/{id} */
int h_trips_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* PATCH /api/trips/{id} */
int h_trips_update(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_update(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/trips/{id} */
int h_trips_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_trip_delete(r->db, r->user_id, id, &r->err);
}

/* GET /api/trips/{id}/participants */
int h_trips_participants(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_participants(r->db, r->user_id, id, &r->out, &r->err);
}

/* POST /api/trips/{id}/transactions */
int h_trips_assign(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_rows(r->db, r->user_id, id, r->json, 1, &r->out, &r->err);
}

/* DELETE /api/trips/{id}/transactions */
int h_trips_unassign(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_rows(r->db, r->user_id, id, r->json, 0, &r->out, &r->err);
}

/* GET /api/trips/{id}/analytics */
int h_trips_analytics(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_analytics(r->db, r->user_id, id, &r->out, &r->err);
}

/* GET /api/trips/{id}/owed */
int h_trips_owed(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_trip_owed(r->db, r->user_id, id, &r->out, &r->err);
}
