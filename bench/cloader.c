/*
 * cloader — the hand-written C baseline of the sqlimport benchmark.
 *
 *   cloader DB ROWS.tsv single|multi [ROWS_PER_STMT]
 *
 * The rows come PRE-PARSED: before the timer starts, the generator's TSV dump
 * (gen.py writes base.tsv / delta.tsv: 11 tab-separated fields per line,
 * \N = NULL, backslash escapes \\ \t \n) is read whole into memory and
 * converted to typed values (int64 / double / text). The timer then covers
 * only the database work:
 *
 *   BEGIN; INSERT ... ON CONFLICT(id) DO UPDATE SET <every other column> x N;
 *   COMMIT; sqlite3_close() (which checkpoints the WAL)
 *
 * with tuned pragmas (set before the timer): journal_mode=WAL,
 * synchronous=NORMAL, cache_size=1 GiB, temp_store=MEMORY.
 *   single: one prepared statement, one row per sqlite3_step
 *   multi:  ROWS_PER_STMT (default 500) rows per statement, the remainder in
 *           a second prepared statement
 *
 * Prints one JSON line on stdout:
 *   {"mode":..,"rows":..,"seconds":..,"rows_per_s":..,"load_seconds":..,"sqlite":..}
 *
 * Build: gcc -O2 -o cloader cloader.c -lsqlite3
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 11
enum { T_TEXT, T_INT, T_REAL };
static const char *COLS[NCOL] = {"id", "name", "libraryID", "remoteID", "notes", "updatedAt",
                                 "price", "qty", "active", "tags", "meta"};
static const int TYPES[NCOL] = {T_TEXT, T_TEXT, T_INT, T_TEXT, T_TEXT, T_TEXT,
                                T_REAL, T_INT, T_INT, T_TEXT, T_TEXT};

typedef struct {
    int is_null;
    int len;          /* text length in bytes */
    union {
        int64_t i;
        double d;
        const char *s;
    } v;
} Val;

static void die(const char *what, sqlite3 *db) {
    fprintf(stderr, "cloader: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "cloader: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

/* Reads the whole dump and unescapes it in place; returns rows. */
static Val *load(const char *path, size_t *nrows) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) { perror("read"); exit(1); }
    fclose(f);
    buf[size] = '\0';
    size_t lines = 0;
    for (long k = 0; k < size; k++) lines += buf[k] == '\n';
    Val *vals = malloc(sizeof(Val) * NCOL * (lines ? lines : 1));
    if (!vals) { perror("malloc"); exit(1); }
    size_t r = 0;
    char *p = buf, *end = buf + size;
    while (p < end) {
        for (int c = 0; c < NCOL; c++) {
            char *start = p, *w = p;
            int isnull = p + 1 < end && p[0] == '\\' && p[1] == 'N' &&
                         (p + 2 >= end || p[2] == '\t' || p[2] == '\n');
            if (isnull) p += 2;
            while (p < end && *p != '\t' && *p != '\n') {
                if (*p == '\\' && p + 1 < end) {
                    char e = p[1];
                    *w++ = e == 'n' ? '\n' : e == 't' ? '\t' : e;
                    p += 2;
                } else {
                    *w++ = *p++;
                }
            }
            char sep = p < end ? *p : '\n';
            if (c < NCOL - 1 && sep != '\t') { fprintf(stderr, "cloader: short row %zu\n", r + 1); exit(1); }
            *w = '\0';
            Val *v = &vals[r * NCOL + c];
            size_t len = (size_t)(w - start);
            v->is_null = isnull;
            v->len = (int)len;
            if (!v->is_null) {
                if (TYPES[c] == T_INT) v->v.i = strtoll(start, NULL, 10);
                else if (TYPES[c] == T_REAL) v->v.d = strtod(start, NULL);
                else v->v.s = start;
            }
            p++; /* skip separator */
        }
        r++;
    }
    *nrows = r;
    return vals;
}

static void bind_row(sqlite3 *db, sqlite3_stmt *st, int base, const Val *row) {
    for (int c = 0; c < NCOL; c++) {
        const Val *v = &row[c];
        int rc, k = base + c + 1;
        if (v->is_null) rc = sqlite3_bind_null(st, k);
        else if (TYPES[c] == T_INT) rc = sqlite3_bind_int64(st, k, v->v.i);
        else if (TYPES[c] == T_REAL) rc = sqlite3_bind_double(st, k, v->v.d);
        else rc = sqlite3_bind_text(st, k, v->v.s, v->len, SQLITE_STATIC);
        if (rc != SQLITE_OK) die("bind", db);
    }
}

static sqlite3_stmt *prepare(sqlite3 *db, int rows) {
    size_t cap = 4096 + (size_t)rows * (NCOL * 2 + 4);
    char *sql = malloc(cap);
    size_t n = 0;
    n += (size_t)snprintf(sql + n, cap - n, "INSERT INTO items(");
    for (int c = 0; c < NCOL; c++) n += (size_t)snprintf(sql + n, cap - n, "%s%s", c ? "," : "", COLS[c]);
    n += (size_t)snprintf(sql + n, cap - n, ") VALUES ");
    for (int r = 0; r < rows; r++) {
        n += (size_t)snprintf(sql + n, cap - n, "%s(", r ? "," : "");
        for (int c = 0; c < NCOL; c++) n += (size_t)snprintf(sql + n, cap - n, "%s?", c ? "," : "");
        n += (size_t)snprintf(sql + n, cap - n, ")");
    }
    n += (size_t)snprintf(sql + n, cap - n, " ON CONFLICT(id) DO UPDATE SET ");
    for (int c = 1; c < NCOL; c++)
        n += (size_t)snprintf(sql + n, cap - n, "%s%s=excluded.%s", c > 1 ? "," : "", COLS[c], COLS[c]);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, (int)n, &st, NULL) != SQLITE_OK) die("prepare", db);
    free(sql);
    return st;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: cloader DB ROWS.tsv single|multi [ROWS_PER_STMT]\n");
        return 2;
    }
    const char *dbpath = argv[1], *rows_path = argv[2], *mode = argv[3];
    int per = argc > 4 ? atoi(argv[4]) : 500;
    int multi = strcmp(mode, "multi") == 0;
    if (!multi && strcmp(mode, "single") != 0) { fprintf(stderr, "cloader: bad mode %s\n", mode); return 2; }
    if (!multi) per = 1;
    if (per < 1) per = 1;

    double t_load = now();
    size_t nrows;
    Val *vals = load(rows_path, &nrows);
    t_load = now() - t_load;

    sqlite3 *db;
    if (sqlite3_open(dbpath, &db) != SQLITE_OK) die("open", db);
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA synchronous=NORMAL");
    exec(db, "PRAGMA cache_size=-1048576");
    exec(db, "PRAGMA temp_store=MEMORY");
    sqlite3_stmt *st = prepare(db, per);
    size_t rem = nrows % (size_t)per;
    sqlite3_stmt *st_rem = rem ? prepare(db, (int)rem) : NULL;

    double t0 = now();
    exec(db, "BEGIN");
    size_t r = 0;
    for (; r + (size_t)per <= nrows; r += (size_t)per) {
        for (int k = 0; k < per; k++) bind_row(db, st, k * NCOL, &vals[(r + (size_t)k) * NCOL]);
        if (sqlite3_step(st) != SQLITE_DONE) die("step", db);
        sqlite3_reset(st);
    }
    if (st_rem) {
        for (size_t k = 0; k < rem; k++) bind_row(db, st_rem, (int)k * NCOL, &vals[(r + k) * NCOL]);
        if (sqlite3_step(st_rem) != SQLITE_DONE) die("step", db);
        sqlite3_finalize(st_rem);
    }
    exec(db, "COMMIT");
    sqlite3_finalize(st);
    if (sqlite3_close(db) != SQLITE_OK) die("close", db);
    double secs = now() - t0;

    printf("{\"mode\":\"%s\",\"rows_per_stmt\":%d,\"rows\":%zu,\"seconds\":%.6f,\"rows_per_s\":%.1f,"
           "\"load_seconds\":%.6f,\"sqlite\":\"%s\"}\n",
           multi ? "multi" : "single", per, nrows, secs, secs > 0 ? nrows / secs : 0.0, t_load,
           sqlite3_libversion());
    free(vals);
    return 0;
}
