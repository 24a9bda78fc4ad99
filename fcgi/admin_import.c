/*
 * ledger-admin import: CSV exports and OFX/QFX statements for one user,
 * through the same library calls as POST /api/import/csv/{preview,commit}
 * and POST /api/statements/import, each file in one write transaction of
 * its own: a file imports whole or not at all, and one bad file does not
 * stop the others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "admin.h"

/* Larger than any bank export; the HTTP API stops at max_body_bytes. */
#define FILE_MAX (256L * 1024 * 1024)
/* Rows with errors listed for a refused CSV file. */
#define ROW_ERRORS_SHOWN 5

static const struct admin_usage import_usage = {
    "import", "--db PATH | --config FILE --user USER [--mapping FILE] [--format F]\n"
              "                           [--date-order dmy|mdy] [--allow-duplicates] FILE...",
    "Imports bank files for USER (an identity, an email, or id:N; see `users`)\n"
    "the way the web client does: CSV through preview and commit (every row\n"
    "tagged csv-import), OFX/QFX, QIF and CAMT.053 as statements (rows seen\n"
    "before skipped).\n"
    "Each file is one transaction: it imports whole or not at all; a CSV file\n"
    "with any row the preview marks bad is refused, naming the lines.\n"
    "  --db PATH            the database\n"
    "  --config FILE        read db and home_currency from ledger-fcgi's ledger.conf\n"
    "  --user USER          whose ledger the rows go into\n"
    "  --mapping FILE       a CSV column mapping: a preset from contrib/csv-presets/\n"
    "                       or a bare mapping object; default: columns named\n"
    "                       Date, Description and Amount\n"
    "  --format F           csv, ofx (any statement file: OFX, QFX, QIF, CAMT.053)\n"
    "                       or auto (default: .ofx/.qfx/.qif/.xml/.csv by name,\n"
    "                       else by content)\n"
    "  --date-order O       dmy or mdy: the day order of a QIF file whose every date\n"
    "                       reads both ways (the route's date_order)\n"
    "  --allow-duplicates   also import CSV rows that match an existing row\n"
    "Progress is a bar on stderr when it is a terminal, plain lines otherwise.\n"
    "Exit status: 0 every file imported, 1 any file refused, 2 usage.\n",
};

enum format { FORMAT_AUTO, FORMAT_CSV, FORMAT_OFX };

struct import {
    ledger_db *db;
    int64_t user;
    cJSON *mapping;       /* owned */
    int allow_duplicates;
    const char *date_order;   /* a statement file's date_order, or NULL */
    enum format format;
    struct progress bar;
};

/* The whole file, NUL-terminated; the caller frees *buf. */
static int read_file(const char *path, char **buf, size_t *len, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t got;

    *buf = NULL;
    if (f == NULL || fstat(fileno(f), &st) != 0) {
        snprintf(msg, msglen, "%s", strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
        snprintf(msg, msglen, "not a regular file of at most %ld bytes", FILE_MAX);
        goto fail;
    }
    if ((*buf = malloc((size_t)st.st_size + 1)) == NULL) {
        snprintf(msg, msglen, "out of memory");
        goto fail;
    }
    got = fread(*buf, 1, (size_t)st.st_size, f);
    if (ferror(f) || got != (size_t)st.st_size) {
        snprintf(msg, msglen, "read error");
        goto fail;
    }
    (*buf)[got] = '\0';
    *len = got;
    fclose(f);
    return 0;
fail:
    free(*buf);
    *buf = NULL;
    if (f)
        fclose(f);
    return -1;
}

/* The mapping of a preset file ({name, sample, mapping}) or a bare one. */
static int load_mapping(const char *path, cJSON **out)
{
    char *text = NULL, msg[256];
    size_t len;
    cJSON *doc = NULL, *m;
    ledger_error err;

    if (read_file(path, &text, &len, msg, sizeof msg)) {
        fprintf(stderr, "ledger-admin: --mapping %s: %s\n", path, msg);
        return -1;
    }
    if (ledger_json_parse(text, len, &doc, &err)) {
        fprintf(stderr, "ledger-admin: --mapping %s: %s\n", path, err.message);
        free(text);
        return -1;
    }
    free(text);
    m = cJSON_GetObjectItemCaseSensitive(doc, "mapping");
    *out = m ? cJSON_DetachItemViaPointer(doc, m) : doc;
    if (m)
        cJSON_Delete(doc);
    if (!cJSON_IsObject(*out)) {
        fprintf(stderr, "ledger-admin: --mapping %s: not a mapping object\n", path);
        cJSON_Delete(*out);
        return -1;
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static enum format detect(const char *path, const char *buf, size_t len)
{
    char head[1025];

    if (ends_with(path, ".ofx") || ends_with(path, ".qfx") || ends_with(path, ".qif")
        || ends_with(path, ".xml"))
        return FORMAT_OFX;
    if (ends_with(path, ".csv"))
        return FORMAT_CSV;
    /* OFX 1.x starts with an OFXHEADER block, 2.x with an XML prolog; QIF
     * with a "!" header, CAMT.053 names BkToCstmrStmt: all statements,
     * whose import tells them apart. */
    snprintf(head, sizeof head, "%.*s", (int)(len < 1024 ? len : 1024), buf);
    return strstr(head, "OFXHEADER") || strstr(head, "<OFX") || strstr(head, "BkToCstmrStmt")
           || strncmp(head + strspn(head, "\xEF\xBB\xBF \t\r\n"), "!", 1) == 0
           ? FORMAT_OFX : FORMAT_CSV;
}

/* Preview, refuse the file when a row is bad, else commit the rows. */
static int import_csv(struct import *im, const char *path, const char *buf, size_t len,
                      ledger_error *err)
{
    cJSON *body = cJSON_CreateObject(), *preview = NULL, *commit = NULL, *result = NULL, *row;
    char *text = NULL, *mapping = cJSON_PrintUnformatted(im->mapping);
    struct ledger_param param = { (char *)"mapping", mapping };
    struct ledger_params params = { &param, 1 };
    int bad = 0, rc = -1;

    /* The file goes as its bytes, as a text/csv upload does, so that the
     * mapping's encoding is what reads them. */
    if (body == NULL || mapping == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    if (ledger_csv_preview(im->db, im->user, buf, len, NULL, &params, &preview, err))
        goto out;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(preview, "rows")) {
        const cJSON *errors = cJSON_GetObjectItemCaseSensitive(row, "errors");

        if (cJSON_GetArraySize(errors) == 0)
            continue;
        if (bad++ < ROW_ERRORS_SHOWN) {
            progress_clear(&im->bar);
            fprintf(stderr, "%s: line %d: %s\n", path, admin_number(row, "line"),
                    cJSON_GetArrayItem(errors, 0)->valuestring);
        }
    }
    if (bad) {
        ledger_error_set(err, 400, "invalid_field", "rows", "%d row%s with errors", bad,
                         bad == 1 ? "" : "s");
        goto out;
    }
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(preview, "rows")) == 0) {
        ledger_error_set(err, 400, "invalid_field", "rows", "no rows");
        goto out;
    }
    /* The commit reads money from the literal text of a parsed body, so
     * the rows go back as JSON text, exactly as the web client sends them. */
    cJSON_AddItemReferenceToObject(body, "rows", cJSON_GetObjectItemCaseSensitive(preview, "rows"));
    cJSON_AddBoolToObject(body, "allow_duplicates", im->allow_duplicates);
    if ((text = cJSON_PrintUnformatted(body)) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    if (ledger_json_parse(text, strlen(text), &commit, err)
        || ledger_csv_commit(im->db, im->user, commit, &result, err))
        goto out;
    progress_clear(&im->bar);
    /* Nothing new makes no import: import_id is null. */
    if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(result, "import_id")))
        printf("%s: imported 0 rows (%d duplicates skipped), no import\n", path,
               admin_number(result, "skipped_duplicates"));
    else
        printf("%s: imported %d rows (%d duplicates skipped), import %d\n", path,
               admin_number(result, "imported"), admin_number(result, "skipped_duplicates"),
               admin_number(result, "import_id"));
    rc = 0;
out:
    cJSON_free(text);
    cJSON_free(mapping);
    cJSON_Delete(body);
    cJSON_Delete(commit);
    cJSON_Delete(preview);
    cJSON_Delete(result);
    return rc;
}

static int import_ofx(struct import *im, const char *path, const char *buf, size_t len,
                      ledger_error *err)
{
    cJSON *result = NULL, *w;
    struct ledger_param param = { (char *)"date_order", (char *)im->date_order };
    struct ledger_params params = { &param, im->date_order ? 1 : 0 };
    int created;

    if (ledger_statement_import_file(im->db, im->user, buf, len, &params, NULL, &result, &created,
                                     err))
        return -1;
    progress_clear(&im->bar);
    printf("%s: imported %d rows into %d statement%s (%d seen before, skipped)\n", path,
           admin_number(result, "imported"),
           cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, "statements")),
           cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, "statements")) == 1 ? "" : "s",
           admin_number(result, "skipped_duplicates"));
    /* what the import dropped or read other than as written */
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(result, "warnings"))
        if (cJSON_IsString(w))
            printf("%s: warning: %s\n", path, w->valuestring);
    cJSON_Delete(result);
    return 0;
}

/* One file, one transaction. */
static int import_file(struct import *im, const char *path)
{
    char *buf = NULL, msg[256];
    size_t len = 0;
    ledger_error err;
    enum format f;
    int rc = ADMIN_FAIL;

    ledger_error_clear(&err);
    if (read_file(path, &buf, &len, msg, sizeof msg)) {
        progress_clear(&im->bar);
        fprintf(stderr, "ledger-admin: %s: %s\n", path, msg);
        return ADMIN_FAIL;
    }
    f = im->format == FORMAT_AUTO ? detect(path, buf, len) : im->format;
    if (ledger_begin(im->db, 1, &err))
        goto fail;
    if ((f == FORMAT_OFX ? import_ofx : import_csv)(im, path, buf, len, &err))
        goto fail;
    if (ledger_commit(im->db, &err))
        goto fail;
    rc = ADMIN_OK;
    goto out;
fail:
    ledger_rollback(im->db);
    progress_clear(&im->bar);
    fprintf(stderr, "ledger-admin: %s: %s%s%s; nothing imported from it\n", path,
            err.field[0] ? err.field : "", err.field[0] ? ": " : "", err.message);
out:
    free(buf);
    return rc;
}

static int64_t file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

int admin_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        ADMIN_COMMON_OPTIONS,
        { "user", required_argument, NULL, 'u' },
        { "mapping", required_argument, NULL, 'm' },
        { "format", required_argument, NULL, 'F' },
        { "allow-duplicates", no_argument, NULL, 'a' },
        { "date-order", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 }
    };
    struct admin_db o;
    struct import im;
    const char *path, *user = NULL, *mapping = NULL;
    ledger_error err;
    int64_t total = 0, done = 0;
    int c, i, rc, failed = 0;

    memset(&o, 0, sizeof o);
    memset(&im, 0, sizeof im);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'u') {
            user = optarg;
        } else if (c == 'm') {
            mapping = optarg;
        } else if (c == 'a') {
            im.allow_duplicates = 1;
        } else if (c == 'D') {
            if (strcmp(optarg, "dmy") != 0 && strcmp(optarg, "mdy") != 0)
                return admin_usage_error(&import_usage, "--date-order is dmy or mdy");
            im.date_order = optarg;
        } else if (c == 'F') {
            if (strcmp(optarg, "csv") == 0)
                im.format = FORMAT_CSV;
            else if (strcmp(optarg, "ofx") == 0 || strcmp(optarg, "qfx") == 0)
                im.format = FORMAT_OFX;
            else if (strcmp(optarg, "auto") != 0)
                return admin_usage_error(&import_usage, "--format is csv, ofx or auto");
        } else if ((rc = admin_common_option(&o, &import_usage, c, optarg)) != ADMIN_OK) {
            return rc < 0 ? ADMIN_OK : rc;
        }
    }
    if ((path = admin_db_path(&o, &import_usage)) == NULL)
        return ADMIN_USAGE;
    if (user == NULL)
        return admin_usage_error(&import_usage, "--user USER is required");
    if (optind >= argc)
        return admin_usage_error(&import_usage, "no files to import");
    if (mapping ? load_mapping(mapping, &im.mapping) != 0
                : (im.mapping = cJSON_Parse("{\"date\": \"Date\", \"description\": \"Description\","
                                            " \"amount\": \"Amount\"}")) == NULL)
        return ADMIN_FAIL;
    rc = ADMIN_FAIL;
    if (admin_open(&o, path, 0, &im.db))
        goto out;
    /* A user who does not exist is a typo, not someone to create. */
    if (ledger_user_find(im.db, user, &im.user, &err)) {
        admin_error(user, &err);
        goto out;
    }
    for (i = optind; i < argc; i++)
        total += file_size(argv[i]);
    progress_init(&im.bar, "import");
    for (i = optind; i < argc; i++) {
        progress_update(&im.bar, done, total, argv[i]);
        failed += import_file(&im, argv[i]) != ADMIN_OK;
        done += file_size(argv[i]);
    }
    progress_update(&im.bar, total, total, NULL);
    progress_finish(&im.bar);
    if (failed)
        fprintf(stderr, "ledger-admin: %d of %d files not imported\n", failed, argc - optind);
    rc = failed ? ADMIN_FAIL : ADMIN_OK;
out:
    cJSON_Delete(im.mapping);
    ledger_close(im.db);
    return rc;
}
