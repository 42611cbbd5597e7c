#!/usr/bin/env python3
"""Benchmark driver for sqlimport (standard library only).

Normally started by bench/run.sh, which installs the tools and builds the
binaries first. Configuration comes from the environment:

  N=1000000           rows in the base file (multiple of 10)
  RUNS=3              timed runs per contender and scenario (median reported)
  WARMUP=1            untimed warm-up runs before them
  SEED=42             generator seed
  SCENARIOS=...       comma list of: first,rerun,delta,csv,parse,export,snapshot,restore,memory
                      (default all)
  MEMORY_SCALE=10     the memory scenario streams N and MEMORY_SCALE x N rows
  CONTENDERS=...      comma list of substrings; only matching contenders run
  SQLITE_UTILS_N=0       rows used for sqlite-utils (0 = the same N as the others)
  SQLIMPORT_BIN       the sqlimport binary (default .build/release/sqlimport)
  CLOADER_BIN         the C loader (default bench/work/cloader)
  SQLITE_UTILS_BIN    default bench/.venv/bin/sqlite-utils
  PYTHON              interpreter for the Python contender (default: this one)
  CACHE_MIB=256       sqlimport's --cache-mib default, for the RSS target
  RUN_TIMEOUT=3600    seconds before a single run is killed and marked FAILED
  RESULTS_DIR         default bench/results/<date>[_HHMMSS if taken]
  RUN_DIR             scratch folder for the databases and outputs of the runs
                      (default bench/work/run); give two concurrent runs different ones

  bench.py                 run the benchmark
  bench.py --report DIR    rebuild DIR/report.md and DIR/chart.svg from DIR/results.json
"""
import datetime
import json
import os
import platform
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import chart  # noqa: E402

SCHEMA = """CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '', libraryID INTEGER NOT NULL,
  remoteID TEXT, notes TEXT, updatedAt TEXT NOT NULL, price REAL, qty INTEGER, active INTEGER, tags TEXT, meta TEXT) STRICT;
CREATE UNIQUE INDEX idx_items_sync_identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
"""
COLS = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt",
        "price", "qty", "active", "tags", "meta"]
ALL_SCENARIOS = ["first", "rerun", "delta", "csv", "parse", "export", "snapshot", "restore", "memory"]
# Scenarios that read the loaded database instead of importing into one.
OP_SCENARIOS = ("export", "snapshot", "restore")
# The stock-tool contender each of them is compared with (targets, "vs stock", the chart).
OP_REFERENCE = {"export": "sqlite3-dump-zstd", "snapshot": "sqlite3-vacuum-zstd",
                "restore": "zstd-sqlite3-restore"}
SCENARIO_TITLES = {
    "first": "First load (JSONL into the empty table)",
    "rerun": "Re-run of the same JSONL file (nothing changes)",
    "delta": "Delta (10% changed keys + 10% new keys, JSONL)",
    "csv": "CSV first load (into the empty table)",
    "parse": "Parse only (sqlimport --parse-only)",
    "export": "Export of the loaded items table, zstd-compressed",
    "snapshot": "Snapshot of the loaded database (VACUUM INTO + zstd)",
    "restore": "Restore of a snapshot into a new database",
    "memory": "Peak memory as the input grows (N and MEMORY_SCALE x N rows streamed from stdin)",
}
# The memory scenario passes when the larger input's peak RSS is within this factor of
# the smaller one's ("flat"), for the import and for parse only.
MEMORY_FLAT_FACTOR = 1.05
# The targets are measured at this N; a smaller run's report says so.
TARGET_N = 1000000


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def rel(p):
    try:
        r = os.path.relpath(p, ROOT)
    except ValueError:
        return p
    return p if r.startswith("..") else r


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# configuration


class Config:
    def __init__(self):
        self.n = env_int("N", 1000000)
        self.runs = max(1, env_int("RUNS", 3))
        self.warmup = max(0, env_int("WARMUP", 1))
        self.seed = env_int("SEED", 42)
        sc = os.environ.get("SCENARIOS", "").strip()
        self.scenarios = [s for s in ALL_SCENARIOS if not sc or s in sc.replace(" ", "").split(",")]
        cf = os.environ.get("CONTENDERS", "").strip()
        self.contender_filter = [c.strip().lower() for c in cf.split(",") if c.strip()]
        su = env_int("SQLITE_UTILS_N", 0)
        self.su_n = su if 0 < su < self.n else self.n
        if self.su_n % 10:
            self.su_n -= self.su_n % 10
        self.sqlimport = os.environ.get("SQLIMPORT_BIN") or os.path.join(ROOT, ".build/release/sqlimport")
        self.cloader = os.environ.get("CLOADER_BIN") or os.path.join(HERE, "work/cloader")
        self.sqlite_utils = os.environ.get("SQLITE_UTILS_BIN") or os.path.join(HERE, ".venv/bin/sqlite-utils")
        self.python = os.environ.get("PYTHON") or sys.executable
        self.cache_mib = env_int("CACHE_MIB", 256)
        self.memory_scale = max(2, env_int("MEMORY_SCALE", 10))
        self.timeout = env_int("RUN_TIMEOUT", 3600)
        self.work = os.path.join(HERE, "work")
        self.rundir = os.path.abspath(os.environ.get("RUN_DIR") or os.path.join(self.work, "run"))
        self.data = os.path.join(self.work, "data-n%d-s%d" % (self.n, self.seed))
        rd = os.environ.get("RESULTS_DIR")
        if not rd:
            now = datetime.datetime.now()
            rd = os.path.join(HERE, "results", now.strftime("%Y-%m-%d"))
            if os.path.exists(rd):
                rd += now.strftime("_%H%M%S")
        self.results = rd


    def selects(self, key, label):
        """Whether CONTENDERS (substrings of a key or label) lets this contender run."""
        return not self.contender_filter or any(f in key.lower() or f in label.lower()
                                                for f in self.contender_filter)


# --------------------------------------------------------------------------
# data and templates


def ensure_data(cfg):
    man_path = os.path.join(cfg.data, "manifest.json")
    small = cfg.su_n if cfg.su_n < cfg.n else 0
    if os.path.exists(man_path):
        with open(man_path) as f:
            man = json.load(f)
        import gen
        if man.get("gen_version") == gen.GEN_VERSION and (man.get("small") or 0) == small:
            log("data: reusing %s" % rel(cfg.data))
            return man
    if os.path.exists(cfg.data):
        shutil.rmtree(cfg.data)
    log("data: generating N=%d (seed %d) into %s ..." % (cfg.n, cfg.seed, rel(cfg.data)))
    cmd = [sys.executable, os.path.join(HERE, "gen.py"), "--n", str(cfg.n), "--seed", str(cfg.seed),
           "--out", cfg.data]
    if small:
        cmd += ["--small", str(small)]
    subprocess.run(cmd, check=True)
    with open(man_path) as f:
        return json.load(f)


def checksum(db, man):
    con = sqlite3.connect(db)
    try:
        row = con.execute(man["checksum_sql"]).fetchone()
    finally:
        con.close()
    return dict(zip(man["checksum_names"], [0 if v is None else v for v in row]))


def expected(man, small, state):
    e = (man["small_expected"] if small else man["expected"])[state]
    return {k: (0 if v is None else v) for k, v in e.items()}


def ensure_templates(cfg, man):
    """empty.db (schema only) and loaded.db (base loaded) per data set."""
    tdir = os.path.join(cfg.data, "templates")
    os.makedirs(tdir, exist_ok=True)
    out = {}
    sets = [(False, cfg.data)]
    if man.get("small"):
        sets.append((True, os.path.join(cfg.data, "small")))
    for small, ddir in sets:
        tag = "small_" if small else ""
        empty = os.path.join(tdir, tag + "empty.db")
        loaded = os.path.join(tdir, tag + "loaded.db")
        if not os.path.exists(empty):
            con = sqlite3.connect(empty)
            con.executescript(SCHEMA)
            con.close()
        if not os.path.exists(loaded):
            tmp = loaded + ".tmp"
            for sfx in ("", "-wal", "-shm"):
                if os.path.exists(tmp + sfx):
                    os.remove(tmp + sfx)
            shutil.copyfile(empty, tmp)
            subprocess.run([cfg.cloader, tmp, os.path.join(ddir, "base.tsv"), "multi"], check=True,
                           stdout=subprocess.DEVNULL)
            con = sqlite3.connect(tmp)
            con.execute("PRAGMA journal_mode=DELETE")
            con.close()
            got = checksum(tmp, man)
            if got != expected(man, small, "base"):
                sys.exit("template %s has a wrong checksum: %r" % (tmp, got))
            os.replace(tmp, loaded)
        out[(small, "empty")] = empty
        out[(small, "loaded")] = loaded
    return out


# --------------------------------------------------------------------------
# contenders


def sqlite3_import_script(path, csv_path):
    conv = {
        "id": "id", "name": "name", "libraryID": "CAST(libraryID AS INTEGER)",
        "remoteID": "NULLIF(remoteID, '')", "notes": "NULLIF(notes, '')", "updatedAt": "updatedAt",
        "price": "CAST(NULLIF(price, '') AS REAL)", "qty": "CAST(NULLIF(qty, '') AS INTEGER)",
        "active": "CAST(NULLIF(active, '') AS INTEGER)", "tags": "NULLIF(tags, '')",
        "meta": "NULLIF(meta, '')"}
    text = "\n".join([
        ".bail on",
        "PRAGMA journal_mode=WAL;",
        "PRAGMA synchronous=NORMAL;",
        "PRAGMA cache_size=-1048576;",
        "PRAGMA temp_store=MEMORY;",
        "CREATE TEMP TABLE staging(%s);" % ", ".join("%s TEXT" % c for c in COLS),
        ".import --csv --skip 1 --schema temp '%s' staging" % csv_path.replace("'", "''"),
        "BEGIN;",
        "INSERT INTO items(%s)\n  SELECT %s FROM temp.staging WHERE true\n  ON CONFLICT(id) DO UPDATE SET %s;" % (
            ", ".join(COLS), ", ".join(conv[c] for c in COLS),
            ", ".join("%s = excluded.%s" % (c, c) for c in COLS[1:])),
        "COMMIT;",
        ""])
    with open(path, "w") as f:
        f.write(text)
    return text


class Contender:
    def __init__(self, key, label, kind, argv, input_path, small=False, note="", script=None):
        self.key = key          # unique id within a scenario
        self.label = label
        self.kind = kind        # sqlimport | cloader | sqlite3 | sqlite-utils | python
        self.argv = argv        # with a {DB} placeholder
        self.input = input_path
        self.small = small
        self.note = note
        self.script = script


def contenders_for(cfg, man, scenario):
    d = cfg.data
    sd = os.path.join(cfg.data, "small") if man.get("small") else d
    su_small = bool(man.get("small"))
    jsonl = {"first": "base.jsonl", "rerun": "rerun.jsonl", "delta": "delta.jsonl",
             "csv": None, "parse": "base.jsonl"}[scenario]
    stem = "delta" if scenario == "delta" else "base"
    csvf = stem + ".csv"
    tsvf = stem + ".tsv"
    si = cfg.sqlimport
    out = []
    if scenario == "parse":
        for fmt, f in (("jsonl", "base.jsonl"), ("csv", "base.csv")):
            out.append(Contender(
                "sqlimport-parse-%s" % fmt, "sqlimport --parse-only (%s)" % fmt.upper(), "sqlimport",
                [si, "import", os.path.join(d, f), "--db", "{DB}", "--table", "items", "--upsert", "id",
                 "--format", fmt, "--parse-only", "--quiet", "--report", "-"],
                os.path.join(d, f)))
        return out
    main_input = os.path.join(d, csvf if scenario == "csv" else jsonl)
    fmt = "csv" if scenario == "csv" else "jsonl"
    for strat in ("auto", "typed", "cached", "multirow"):
        out.append(Contender(
            "sqlimport-%s" % strat, "sqlimport --strategy %s" % strat, "sqlimport",
            [si, "import", main_input, "--db", "{DB}", "--table", "items", "--upsert", "id",
             "--strategy", strat, "--format", fmt, "--quiet", "--report", "-"],
            main_input))
    if scenario == "rerun":
        out.append(Contender(
            "sqlimport-auto-identity", "sqlimport auto --upsert libraryID,remoteID", "sqlimport",
            [si, "import", main_input, "--db", "{DB}", "--table", "items", "--upsert", "libraryID,remoteID",
             "--format", fmt, "--quiet", "--report", "-"],
            main_input, note="the mission command: upsert on the partial unique index"))
    for mode in ("single", "multi"):
        out.append(Contender(
            "cloader-%s" % mode, "C loader %s-row%s" % (mode, " (500/stmt)" if mode == "multi" else ""),
            "cloader", [cfg.cloader, "{DB}", os.path.join(d, tsvf), mode], os.path.join(d, tsvf),
            note="rows pre-parsed into memory before its timer; rows/s = its timed insert phase"))
    script = os.path.join(cfg.work, "sqlite3-import-%s.sql" % scenario)
    out.append(Contender(
        "sqlite3-import", "sqlite3 .import + INSERT…SELECT upsert", "sqlite3",
        ["sqlite3", "{DB}", ".read %s" % script], os.path.join(d, csvf),
        note="reads the CSV of the same rows", script=(script, os.path.join(d, csvf))))
    su_in = os.path.join(sd, csvf if scenario == "csv" else jsonl)
    su_argv = [cfg.sqlite_utils, "upsert", "{DB}", "items", su_in, "--pk", "id", "--silent"]
    su_argv += ["--csv", "--empty-null"] if scenario == "csv" else ["--nl"]
    out.append(Contender(
        "sqlite-utils", "sqlite-utils upsert", "sqlite-utils", su_argv, su_in, small=su_small,
        note=("%d-row subset" % cfg.su_n) if su_small else ""))
    out.append(Contender(
        "python", "Python sqlite3 executemany", "python",
        [cfg.python, os.path.join(HERE, "pyload.py"), "{DB}", main_input, fmt], main_input))
    return out


# --------------------------------------------------------------------------
# measurement


def parse_time_v(path):
    res = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("Maximum resident set size"):
                    res["rss_kib"] = int(line.rsplit(":", 1)[1])
                elif line.startswith("User time"):
                    res["user_s"] = float(line.rsplit(":", 1)[1])
                elif line.startswith("System time"):
                    res["sys_s"] = float(line.rsplit(":", 1)[1])
                elif line.startswith("Elapsed (wall clock)"):
                    v = line.split("):", 1)[1].strip().split(":")
                    s = 0.0
                    for part in v:
                        s = s * 60 + float(part)
                    res["time_wall_s"] = s
    except OSError:
        pass
    return res


def run_once(cfg, man, scen, c, template, exp, rows, logdir, tag):
    rundir = cfg.rundir
    os.makedirs(rundir, exist_ok=True)
    db = os.path.join(rundir, "bench.db")
    for sfx in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db + sfx):
            os.remove(db + sfx)
    shutil.copyfile(template, db)   # timed_run syncs it to disk before the timer starts
    argv = [a.replace("{DB}", db) for a in c.argv]
    r, out_path = timed_run(cfg, argv, logdir, "%s-%s-%s" % (scen, c.key, tag))
    rc = r["rc"]
    if rc == 0:
        try:
            got = checksum(db, man)
        except sqlite3.Error as e:
            got = {"error": str(e)}
        if got != exp:
            r["status"] = "FAILED"
            diff = ["%s %s != %s" % (k, got.get(k), v) for k, v in exp.items() if got.get(k) != v]
            r["reason"] = "checksum mismatch: " + ("; ".join(diff[:4]) if diff else str(got))
    if c.kind == "cloader" and rc == 0:
        try:
            with open(out_path) as f:
                j = json.loads(f.read().strip().splitlines()[-1])
            r["timed_s"] = j["seconds"]
            r["load_s"] = j["load_seconds"]
            r["cloader_sqlite"] = j.get("sqlite")
        except (ValueError, KeyError, IndexError):
            r["status"] = "FAILED"
            r["reason"] = "no timing line from cloader"
    if c.kind == "sqlimport":
        # sqlimport runs with --quiet --report -: stdout is its JSON report
        try:
            with open(out_path) as f:
                j = json.load(f)
            r["counts"] = j.get("counts")
            r["strategy_used"] = j.get("strategy")
            r["rows_per_stmt"] = j.get("rowsPerStatement")
        except (OSError, ValueError):
            pass
    r["seconds"] = r.get("timed_s", r["wall_s"])
    r["rows_per_s"] = rows / r["seconds"] if r["seconds"] > 0 else 0.0
    return r


def summarize(c, runs, rows, in_bytes):
    timed = [r for r in runs if r.get("tag") != "warmup"]
    ok = all(r["status"] == "ok" for r in runs) and bool(timed)
    res = {"status": "ok" if ok else "FAILED", "rows": rows, "input_bytes": in_bytes,
           "runs": len(timed)}
    fails = [r.get("reason", "") for r in runs if r["status"] != "ok"]
    if fails:
        res["reason"] = fails[0]
    if timed:
        secs = statistics.median(r["seconds"] for r in timed)
        walls = statistics.median(r["wall_s"] for r in timed)
        res["seconds"] = secs
        res["wall_s"] = walls
        res["rows_per_s"] = rows / secs if secs > 0 else 0.0
        res["mb_per_s"] = in_bytes / 1e6 / secs if secs > 0 else 0.0
        cpu = [r["user_s"] + r["sys_s"] for r in timed if "user_s" in r and "sys_s" in r]
        if cpu:
            res["cpu_s"] = statistics.median(cpu)
        rss = [r.get("rss_kib") for r in runs if r.get("rss_kib")]
        res["peak_rss_mib"] = max(rss) / 1024 if rss else None
        med = sorted(timed, key=lambda r: r["seconds"])[len(timed) // 2]
        for k in ("counts", "strategy_used", "rows_per_stmt", "cloader_sqlite", "load_s", "out_bytes",
                  "checked"):
            if k in med:
                res[k] = med[k]
    return res


# --------------------------------------------------------------------------
# export, snapshot, restore: read the loaded database, check what comes out


class CheckFailed(Exception):
    pass


class OpContender:
    """A run of an export, snapshot or restore scenario: argv is complete (no {DB}),
    outputs are removed before each run, check(stdout_path) raises CheckFailed or
    returns (output bytes, what was checked)."""

    def __init__(self, key, label, kind, argv, outputs, check, note=""):
        self.key = key
        self.label = label
        self.kind = kind        # sqlimport | stock
        self.argv = argv
        self.outputs = outputs
        self.check = check
        self.note = note
        self.small = False


def remove_db(path):
    for sfx in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + sfx):
            os.remove(path + sfx)


def zstd_lines(path):
    """Yields the decompressed lines of path from stock `zstd -dc`; raises CheckFailed when
    zstd fails (a damaged or truncated frame)."""
    p = subprocess.Popen(["zstd", "-dcq", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in p.stdout:
            yield line
    finally:
        p.stdout.close()
        err = p.stderr.read().decode("utf-8", "replace").strip()
        p.stderr.close()
        rc = p.wait()
    if rc != 0:
        raise CheckFailed("zstd -dc exit %d: %s" % (rc, err[:200]))


def check_jsonl_zst(path, n):
    lines, first, last = 0, None, None
    for line in zstd_lines(path):
        if first is None:
            first = line
        last = line
        lines += 1
    if lines != n:
        raise CheckFailed("%d JSONL lines, expected %d" % (lines, n))
    for line in (first, last):
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise CheckFailed("not JSON: %s" % e)
        if not isinstance(obj, dict) or sorted(obj) != sorted(COLS):
            raise CheckFailed("unexpected keys: %r" % (sorted(obj) if isinstance(obj, dict) else obj,))
    return "%s JSONL lines (zstd -dc | wc -l)" % "{:,}".format(lines)


def check_csv_zst(path, n):
    import csv
    import io
    p = subprocess.Popen(["zstd", "-dcq", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        r = csv.reader(io.TextIOWrapper(p.stdout, encoding="utf-8", newline=""))
        header = next(r, None)
        recs = sum(1 for _ in r)
    except (csv.Error, UnicodeDecodeError) as e:
        p.kill()
        raise CheckFailed("CSV: %s" % e)
    finally:
        rc = p.wait()
    if rc != 0:
        raise CheckFailed("zstd -dc exit %d" % rc)
    if header != COLS:
        raise CheckFailed("CSV header %r" % header)
    if recs != n:
        raise CheckFailed("%d CSV records, expected %d" % (recs, n))
    return "header + %s CSV records" % "{:,}".format(recs)


def check_dump_zst(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        raise CheckFailed("no output or an empty one")
    p = subprocess.run(["zstd", "-tq", path], capture_output=True, text=True)
    if p.returncode != 0:
        raise CheckFailed("zstd -t exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    last = b""
    for line in zstd_lines(path):
        if line.strip():
            last = line.strip()
    if last != b"COMMIT;":
        raise CheckFailed("the dump does not end with COMMIT; (%r)" % last[:60])
    return "zstd -t ok, ends with COMMIT;"


def check_database(db, man, exp):
    """PRAGMA integrity_check must say ok, and the checksum query must match the base
    data (row count included)."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            ic = [r[0] for r in con.execute("PRAGMA integrity_check")]
        finally:
            con.close()
    except sqlite3.Error as e:
        raise CheckFailed("cannot open the result: %s" % e)
    if ic != ["ok"]:
        raise CheckFailed("integrity_check: %s" % "; ".join(ic[:3]))
    got = checksum(db, man)
    if got != exp:
        diff = ["%s %s != %s" % (k, got.get(k), v) for k, v in exp.items() if got.get(k) != v]
        raise CheckFailed("checksum mismatch: " + ("; ".join(diff[:4]) if diff else str(got)))
    return "integrity_check ok, %s rows, checksum ok" % "{:,}".format(got["rows"])


def check_snapshot(path, scratch, man, exp):
    if not os.path.exists(path):
        raise CheckFailed("no snapshot written")
    remove_db(scratch)
    try:
        with open(scratch, "wb") as f:
            p = subprocess.run(["zstd", "-dcq", path], stdout=f, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise CheckFailed("zstd -dc exit %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace")[:200]))
        return "zstd -dc, then " + check_database(scratch, man, exp)
    finally:
        remove_db(scratch)


def op_contenders(cfg, man, scen, src, snap_in):
    R = cfg.rundir
    si = cfg.sqlimport
    n = man["n"]
    exp = expected(man, False, "base")
    q = shlex.quote
    scratch = os.path.join(R, "check.db")
    out = []
    if scen == "export":
        for fmt in ("jsonl", "csv"):
            o = os.path.join(R, "export.%s.zst" % fmt)
            out.append(OpContender(
                "sqlimport-export-%s" % fmt, "sqlimport export .%s.zst (--threads 2)" % fmt, "sqlimport",
                [si, "export", "items", "--db", src, "-o", o, "--threads", "2", "--quiet"], [o],
                (lambda _o, o=o: check_jsonl_zst(o, n)) if fmt == "jsonl" else
                (lambda _o, o=o: check_csv_zst(o, n)),
                note="zstd level 3 (the default); fsyncs the file before its rename"))
        o = os.path.join(R, "export.sql.zst")
        out.append(OpContender(
            "sqlite3-dump-zstd", "sqlite3 .dump | zstd -3 -T2", "stock",
            ["bash", "-o", "pipefail", "-c", "sqlite3 %s .dump | zstd -3 -T2 -q -o %s" % (q(src), q(o))], [o],
            lambda _o: check_dump_zst(o), note="SQL text, not JSONL: the issue's reference; no fsync"))
    elif scen == "snapshot":
        o = os.path.join(R, "snapshot.sqlite.zst")
        out.append(OpContender(
            "sqlimport-snapshot", "sqlimport snapshot (--level 3 --threads 2)", "sqlimport",
            [si, "snapshot", "--db", src, "-o", o, "--level", "3", "--threads", "2"], [o],
            lambda _o: check_snapshot(o, scratch, man, exp),
            note="fsyncs the snapshot before its rename"))
        o2 = os.path.join(R, "vacuum.sqlite.zst")
        tmp = os.path.join(R, "vacuum.tmp.db")
        out.append(OpContender(
            "sqlite3-vacuum-zstd", "sqlite3 VACUUM INTO + zstd -3 -T2", "stock",
            ["bash", "-c", "sqlite3 %s \"VACUUM INTO '%s'\" && zstd -3 -T2 -q %s -o %s && rm %s" % (
                q(src), tmp.replace("'", "''"), q(tmp), q(o2), q(tmp))], [o2, tmp],
            lambda _o: check_snapshot(o2, scratch, man, exp), note="no fsync"))
    elif scen == "restore":
        db = os.path.join(R, "restored.db")
        out.append(OpContender(
            "sqlimport-restore", "sqlimport restore", "sqlimport",
            [si, "restore", snap_in, "--db", db, "--quiet"], [db],
            lambda _o: check_database(db, man, exp),
            note="decompress, integrity_check, fsync, atomic rename"))

        def check_stock(stdout_path):
            with open(stdout_path) as f:
                said = f.read().strip()
            if said != "ok":
                raise CheckFailed("sqlite3 said %r" % said[:200])
            return check_database(db, man, exp)
        out.append(OpContender(
            "zstd-sqlite3-restore", "zstd -dc > new.db && sqlite3 integrity_check", "stock",
            ["bash", "-c", "zstd -dcq %s > %s && sqlite3 %s 'PRAGMA integrity_check'" % (
                q(snap_in), q(db), q(db))], [db], check_stock, note="no fsync, no rename"))
    return out


def timed_run(cfg, argv, logdir, name):
    """Runs argv under GNU time with its output in logdir/name.{out,err,time}; returns
    (result, stdout path). A non-zero exit is FAILED with stderr's last line."""
    tfile = os.path.join(logdir, name + ".time")
    out_path = os.path.join(logdir, name + ".out")
    err_path = os.path.join(logdir, name + ".err")
    cmd = ["/usr/bin/time", "-v", "-o", tfile] + argv
    os.sync()   # the previous run's writes reach the disk before this one starts
    t0 = time.perf_counter()
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        try:
            p = subprocess.run(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, timeout=cfg.timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    wall = time.perf_counter() - t0
    r = {"wall_s": wall, "rc": rc}
    r.update(parse_time_v(tfile))
    r["status"] = "ok"
    if rc != 0:
        r["status"] = "FAILED"
        with open(err_path, "rb") as f:
            err = f.read().decode("utf-8", "replace").strip().splitlines()
        err = [e for e in err if e.strip() and not e.startswith("Command exited")]
        r["reason"] = "exit %s%s" % (rc, (": " + err[-1][:200]) if err else "")
    return r, out_path


def run_op_once(cfg, scen, c, logdir, tag):
    for o in c.outputs:
        remove_db(o)
    r, out_path = timed_run(cfg, c.argv, logdir, "%s-%s-%s" % (scen, c.key, tag))
    r["seconds"] = r["wall_s"]
    if r["rc"] == 0:
        if os.path.exists(c.outputs[0]):
            r["out_bytes"] = os.path.getsize(c.outputs[0])
        try:
            r["checked"] = c.check(out_path)
        except CheckFailed as e:
            r["status"] = "FAILED"
            r["reason"] = str(e)
    return r


def copy_synced(src, dst):
    remove_db(dst)
    shutil.copyfile(src, dst)
    fd = os.open(dst, os.O_RDONLY)
    try:
        os.fsync(fd)   # no writeback of the copy during the timed runs
    finally:
        os.close(fd)


def run_op_scenario(cfg, man, templates, scen, sres, logdir, save):
    """export / snapshot / restore on a copy of the loaded template (made once per
    scenario, outside the timing, and checked to be unchanged after every run)."""
    R = cfg.rundir
    os.makedirs(R, exist_ok=True)
    tmpl = templates[(False, "loaded")]
    db_bytes = os.path.getsize(tmpl)
    rows = man["n"]
    src = os.path.join(R, "source.db")
    snap_in = os.path.join(R, "restore-input.sqlite.zst")
    sres["db_bytes"] = db_bytes
    sres["source"] = rel(tmpl)
    cs = [c for c in op_contenders(cfg, man, scen, src, snap_in)
          if cfg.selects(c.key, c.label)]
    if not cs:
        return
    copy_synced(tmpl, src)
    setup_err = None
    if scen == "restore":
        # the snapshot to restore: made by sqlimport snapshot, outside the timing
        if os.path.exists(snap_in):
            os.remove(snap_in)
        p = subprocess.run([cfg.sqlimport, "snapshot", "--db", src, "-o", snap_in, "--level", "3",
                            "--threads", "2"], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(snap_in):
            setup_err = "making the snapshot to restore failed: exit %d%s" % (
                p.returncode, (": " + p.stderr.strip()[-200:]) if p.stderr.strip() else ", no snapshot written")
        else:
            sres["snapshot_bytes"] = os.path.getsize(snap_in)
            sres["snapshot"] = "`%s snapshot --db %s -o %s --level 3 --threads 2` (%s bytes)" % (
                rel(cfg.sqlimport), rel(src), rel(snap_in), "{:,}".format(sres["snapshot_bytes"]))
            os.remove(src)
            src = None
    src_stat = (os.stat(src).st_size, os.stat(src).st_mtime_ns) if src else None
    try:
        # Interleaved like the other scenarios: warm-ups, then round 1 of each contender...
        lineup = []
        for c in cs:
            shown = []
            for a in c.argv:
                shown.append(a.replace(R + os.sep, rel(R) + os.sep).replace(ROOT + os.sep, ""))
            command = shown[-1] if c.argv[0] == "bash" else shlex.join(shown)
            entry = {"key": c.key, "label": c.label, "kind": c.kind, "note": c.note, "small": False,
                     "input": rel(snap_in if scen == "restore" else src), "command": command,
                     "db_before": rel(tmpl), "db_bytes": db_bytes}
            runs = []
            if setup_err:
                runs.append({"tag": "setup", "status": "FAILED", "reason": setup_err, "seconds": 0.0,
                             "wall_s": 0.0, "rows_per_s": 0.0})
            lineup.append({"c": c, "entry": entry, "runs": runs, "failed": bool(setup_err)})
        plan = [] if setup_err else ["warmup"] * cfg.warmup + ["run%d" % (k + 1) for k in range(cfg.runs)]
        for tag in plan:
            for u in lineup:
                if u["failed"]:
                    continue   # a failing contender is not retried
                c = u["c"]
                r = run_op_once(cfg, scen, c, logdir, tag)
                r["tag"] = tag
                r["rows_per_s"] = rows / r["seconds"] if r["seconds"] > 0 else 0.0
                if src and r["status"] == "ok" and (os.stat(src).st_size, os.stat(src).st_mtime_ns) != src_stat:
                    r["status"] = "FAILED"
                    r["reason"] = "the source database changed"
                u["runs"].append(r)
                log("  %-44s %-7s %8.2f s  %10.0f rows/s  %7.1f MB/s  rss %6.1f MiB  %s%s" % (
                    c.label, tag, r["seconds"], r["rows_per_s"], db_bytes / 1e6 / max(r["seconds"], 1e-9),
                    r.get("rss_kib", 0) / 1024, r["status"], (" (" + r["reason"] + ")") if r.get("reason") else ""))
                if r["status"] != "ok":
                    u["failed"] = True
                    if src and r.get("reason") == "the source database changed":
                        copy_synced(tmpl, src)
                        src_stat = (os.stat(src).st_size, os.stat(src).st_mtime_ns)
        for u in lineup:
            entry = u["entry"]
            entry.update(summarize(u["c"], u["runs"], rows, db_bytes))
            if setup_err:
                entry["status"], entry["reason"] = "FAILED", setup_err
            entry["all_runs"] = u["runs"]
            sres["contenders"].append(entry)
        save()
    finally:
        # the scratch files are as big as the database: don't leave them behind
        for c in cs:
            for o in c.outputs:
                remove_db(o)
        for p in (os.path.join(R, "source.db"), os.path.join(R, "check.db"), snap_in):
            remove_db(p)


def replicated_jsonl_feed(base, copies):
    """A shell loop that writes `copies` copies of base.jsonl, copy i with ids itm<i>-...
    and remote ids rm<i>-..., so every row is a new key for both unique indexes."""
    return "for i in $(seq 0 %d); do sed 's/\"itm-/\"itm'$i'-/; s/\"rm-/\"rm'$i'-/' %s; done" % (
        copies - 1, shlex.quote(rel(base)))


def run_memory_scenario(cfg, man, templates, sres, logdir, save):
    """Peak RSS at N and at MEMORY_SCALE x N rows, streamed through stdin (so the input's
    size cannot matter to anything but sqlimport), for an import and for parse only. One
    run each: this scenario measures memory; its times are for information."""
    base = os.path.join(cfg.data, "base.jsonl")
    n = man["n"]
    remote_rows = man["expected"]["base"]["n_remoteID"]
    os.makedirs(cfg.rundir, exist_ok=True)
    db = os.path.join(cfg.rundir, "memory.db")
    tmpl = templates[(False, "empty")]
    for size, copies in (("small", 1), ("large", cfg.memory_scale)):
        rows = n * copies
        # the renamed ids add len(str(i)) bytes to every id and every non-null remoteID
        in_bytes = sum(os.path.getsize(base) + len(str(i)) * (n + remote_rows) for i in range(copies))
        feed = replicated_jsonl_feed(base, copies)
        for kind in ("import", "parse"):
            # the report goes to a file of its own (stdin carries the data)
            report = os.path.join(logdir, "memory-%s-%s.report.json" % (kind, size))
            si = [rel(cfg.sqlimport), "import", "-", "--db", rel(db), "--table", "items", "--upsert", "id",
                  "--format", "jsonl", "--quiet", "--report", rel(report)] + (["--parse-only"] if kind == "parse" else [])
            command = "set -o pipefail; %s | %s" % (feed, shlex.join(si))
            label = "sqlimport %s, %s rows from stdin" % ("--parse-only" if kind == "parse" else "auto",
                                                          "{:,}".format(rows))
            key = "sqlimport-memory-%s-%s" % (kind, size)
            if not cfg.selects(key, label):
                continue
            remove_db(db)
            shutil.copyfile(tmpl, db)
            if os.path.exists(report):
                os.remove(report)
            r, _ = timed_run(cfg, ["bash", "-c", command], logdir, "memory-%s-%s" % (kind, size))
            r["tag"] = "run1"
            r["seconds"] = r["wall_s"]
            r["rows_per_s"] = rows / r["seconds"] if r["seconds"] > 0 else 0.0
            if r["status"] == "ok":
                try:
                    with open(report) as f:
                        counts = json.load(f).get("counts") or {}
                    r["counts"] = counts
                    con = sqlite3.connect(db)
                    try:
                        stored = con.execute("SELECT count(*) FROM items").fetchone()[0]
                    finally:
                        con.close()
                except (OSError, ValueError, sqlite3.Error) as e:
                    counts, stored = {}, None
                    r["status"], r["reason"] = "FAILED", "no report or database: %s" % e
                want_stored = 0 if kind == "parse" else rows
                if r["status"] == "ok" and (counts.get("read") != rows or stored != want_stored):
                    r["status"] = "FAILED"
                    r["reason"] = "read %s records and stored %s rows, expected %s and %s" % (
                        counts.get("read"), stored, rows, want_stored)
            log("  %-44s %8.2f s  %10.0f rows/s  rss %6.1f MiB  %s%s" % (
                label[:44], r["seconds"], r["rows_per_s"], r.get("rss_kib", 0) / 1024, r["status"],
                (" (" + r["reason"] + ")") if r.get("reason") else ""))
            entry = {"key": key, "label": label, "kind": "sqlimport",
                     "note": "peak RSS of the pipeline's largest process, sqlimport; one run",
                     "small": False, "input": "%d renamed cop%s of %s" % (copies, "y" if copies == 1 else "ies",
                                                                          rel(base)),
                     "command": command, "db_before": rel(tmpl)}
            entry.update(summarize(None, [r], rows, in_bytes))
            entry["all_runs"] = [r]
            sres["contenders"].append(entry)
            save()
    remove_db(db)


# --------------------------------------------------------------------------
# environment description


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:  # noqa: BLE001
        return ""


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return ""


def machine_info():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": mem, "os": osname,
            "loadavg_start": loadavg(),
            "kernel": platform.release(),
            "disk": sh("df -hT %s | tail -1 | awk '{print $2\" \"$3}'" % shlex.quote(HERE))}


def tool_versions(cfg):
    v = {}
    v["sqlimport"] = sh("%s --version" % shlex.quote(cfg.sqlimport)) or "?"
    v["sqlimport binary"] = rel(cfg.sqlimport)
    lib = sh("ldd %s | grep -i sqlite" % shlex.quote(cfg.sqlimport))
    v["sqlimport links"] = lib.split("=>")[-1].split("(")[0].strip() if lib else "SQLite built in (no libsqlite3 in ldd)"
    v["sqlite3 CLI"] = sh("sqlite3 --version").split(" ")[0]
    v["zstd CLI"] = sh("zstd --version").replace("*", "").strip() or "not installed"
    v["gcc"] = sh("gcc --version | head -1")
    v["python"] = sh("%s -c 'import sys,sqlite3;print(sys.version.split()[0], \"(sqlite3 module: SQLite\", sqlite3.sqlite_version + \")\")'" % shlex.quote(cfg.python))
    v["sqlite-utils"] = sh("%s --version" % shlex.quote(cfg.sqlite_utils)) or "not installed"
    v["GNU time"] = (sh("dpkg-query -W -f '${Version}' time 2>/dev/null")
                     or sh("/usr/bin/time --version 2>&1 | head -1"))
    return v


# --------------------------------------------------------------------------
# main loop


def main_run():
    cfg = Config()
    os.makedirs(cfg.work, exist_ok=True)
    if not os.path.exists(cfg.sqlimport):
        sys.exit("sqlimport binary not found: %s (set SQLIMPORT_BIN)" % cfg.sqlimport)
    if not os.path.exists(cfg.cloader):
        sys.exit("C loader not found: %s (bench/run.sh builds it)" % cfg.cloader)
    man = ensure_data(cfg)
    templates = ensure_templates(cfg, man)
    os.makedirs(cfg.results, exist_ok=True)
    logdir = os.path.join(cfg.work, "logs", os.path.basename(cfg.results))
    os.makedirs(logdir, exist_ok=True)
    results = {
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "config": {"N": cfg.n, "RUNS": cfg.runs, "WARMUP": cfg.warmup, "SEED": cfg.seed,
                   "SCENARIOS": cfg.scenarios, "CONTENDERS": cfg.contender_filter,
                   "SQLITE_UTILS_N": cfg.su_n, "CACHE_MIB": cfg.cache_mib},
        "machine": machine_info(),
        "tools": tool_versions(cfg),
        "data": {"dir": rel(cfg.data), "sizes": man["sizes"], "small_sizes": man.get("small_sizes"),
                 "delta_rows": man["delta_rows"], "small": man.get("small")},
        "scenarios": {},
        "logs": rel(logdir),
    }
    res_path = os.path.join(cfg.results, "results.json")
    try:
        tool_have_su = os.path.exists(cfg.sqlite_utils)
        for scen in cfg.scenarios:
            log("== scenario %s ==" % scen)
            sres = {"title": SCENARIO_TITLES[scen], "contenders": []}
            results["scenarios"][scen] = sres
            def save():
                with open(res_path, "w") as f:
                    json.dump(results, f, indent=1)
            if scen in OP_SCENARIOS:
                run_op_scenario(cfg, man, templates, scen, sres, logdir, save)
                continue
            if scen == "memory":
                sres["title"] = "Peak memory as the input grows (%s and %s rows streamed from stdin)" % (
                    "{:,}".format(cfg.n), "{:,}".format(cfg.n * cfg.memory_scale))
                run_memory_scenario(cfg, man, templates, sres, logdir, save)
                continue
            # Every contender is set up first; then the runs are interleaved (the warm-ups
            # of all, then round 1 of each, round 2 of each...), so that a machine that
            # slows down or speeds up during the scenario shifts every contender alike.
            lineup = []
            for c in contenders_for(cfg, man, scen):
                if not cfg.selects(c.key, c.label):
                    continue
                small = c.small
                if scen == "delta":
                    rows = man["small_delta_rows"] if small else man["delta_rows"]
                else:
                    rows = man["small"] if small else man["n"]
                state = {"first": "base", "rerun": "base", "delta": "delta", "csv": "base",
                         "parse": "empty"}[scen]
                tmpl = templates[(small, "loaded" if scen in ("rerun", "delta") else "empty")]
                exp = expected(man, small, state)
                if c.script:
                    sqlite3_import_script(*c.script)
                in_bytes = os.path.getsize(c.input)
                if c.kind == "cloader":
                    # MB/s for the C loader is counted on the JSONL of the same rows
                    j = os.path.join(os.path.dirname(c.input),
                                     "delta.jsonl" if scen == "delta" else "base.jsonl")
                    in_bytes = os.path.getsize(j)
                shown = [rel(x) if os.path.isabs(x) else x.replace(ROOT + os.sep, "") for x in c.argv]
                entry = {"key": c.key, "label": c.label, "kind": c.kind, "note": c.note,
                         "small": small, "input": rel(c.input),
                         "command": shlex.join(a.replace("{DB}", rel(os.path.join(cfg.rundir, "bench.db")))
                                                 for a in shown),
                         "db_before": rel(tmpl)}
                if c.script:
                    with open(c.script[0]) as f:
                        entry["script"] = f.read().replace(ROOT + os.sep, "")
                if c.kind == "sqlite-utils" and not tool_have_su:
                    entry.update({"status": "SKIPPED", "reason": "sqlite-utils not installed"})
                    sres["contenders"].append(entry)
                    continue
                lineup.append({"c": c, "entry": entry, "tmpl": tmpl, "exp": exp, "rows": rows,
                               "in_bytes": in_bytes, "runs": [], "failed": False})
            plan = ["warmup"] * cfg.warmup + ["run%d" % (k + 1) for k in range(cfg.runs)]
            for tag in plan:
                for u in lineup:
                    if u["failed"]:
                        continue   # a failing contender is not retried
                    c = u["c"]
                    r = run_once(cfg, man, scen, c, u["tmpl"], u["exp"], u["rows"], logdir, tag)
                    r["tag"] = tag
                    u["runs"].append(r)
                    log("  %-44s %-7s %8.2f s  %10.0f rows/s  rss %6.1f MiB  %s%s" % (
                        c.label, tag, r["seconds"], r["rows_per_s"], r.get("rss_kib", 0) / 1024,
                        r["status"], (" (" + r["reason"] + ")") if r.get("reason") else ""))
                    u["failed"] = r["status"] != "ok"
            for u in lineup:
                entry = u["entry"]
                entry.update(summarize(u["c"], u["runs"], u["rows"], u["in_bytes"]))
                entry["all_runs"] = u["runs"]
                sres["contenders"].append(entry)
            with open(res_path, "w") as f:
                json.dump(results, f, indent=1)
    finally:
        results["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
        results["machine"]["loadavg_end"] = loadavg()
        with open(res_path, "w") as f:
            json.dump(results, f, indent=1)
    text = write_report(cfg.results, results)
    print(text)
    log("report: %s" % rel(os.path.join(cfg.results, "report.md")))


# --------------------------------------------------------------------------
# report


def find(sres, key):
    for c in sres["contenders"]:
        if c["key"] == key:
            return c
    return None


def ok(c):
    return c is not None and c.get("status") == "ok"


def c_best(sres):
    cs = [c for c in sres["contenders"] if c["kind"] == "cloader" and ok(c)]
    return max(cs, key=lambda c: c["rows_per_s"]) if cs else None


def evaluate_targets(results):
    cfg = results["config"]
    S = results["scenarios"]
    t = []

    def ratio_target(name, scen, num_key, den, factor, den_label):
        if scen not in S:
            return
        sres = S[scen]
        a = find(sres, num_key)
        b = den(sres)
        if a is None or b is None:
            t.append({"target": name, "status": "not measured",
                      "detail": "no %s result in this run" % ("sqlimport auto" if a is None else den_label)})
            return
        if not ok(a):
            t.append({"target": name, "status": "not met", "detail": "sqlimport auto FAILED"})
            return
        if not ok(b):
            t.append({"target": name, "status": "not measured", "detail": "%s %s" % (den_label, b.get("status"))})
            return
        r = a["rows_per_s"] / b["rows_per_s"]
        t.append({"target": name, "status": "met" if r >= factor else "not met",
                  "detail": "%.2fx (%.0f vs %.0f rows/s)" % (r, a["rows_per_s"], b["rows_per_s"])})

    ratio_target("First load: sqlimport auto >= 2.0x the C loader's best", "first", "sqlimport-auto",
                 c_best, 2.0, "C loader")
    ratio_target("Re-run: sqlimport auto >= 1.0x C loader multi-row", "rerun", "sqlimport-auto",
                 lambda s: find(s, "cloader-multi"), 1.0, "C loader multi-row")
    ratio_target("Re-run, nothing changes: sqlimport auto >= 2x C loader multi-row", "rerun",
                 "sqlimport-auto", lambda s: find(s, "cloader-multi"), 2.0, "C loader multi-row")
    ratio_target("Delta: sqlimport auto >= 1.0x the C loader's best", "delta", "sqlimport-auto",
                 c_best, 1.0, "C loader")
    for scen in ("first", "rerun", "delta", "csv"):
        ratio_target("%s: sqlimport auto >= 10x sqlite-utils" % scen, scen, "sqlimport-auto",
                     lambda s: find(s, "sqlite-utils"), 10.0, "sqlite-utils")
        ratio_target("%s: sqlimport auto >= 2x sqlite3 .import" % scen, scen, "sqlimport-auto",
                     lambda s: find(s, "sqlite3-import"), 2.0, "sqlite3 .import")
    if "parse" in S:
        for fmt in ("jsonl", "csv"):
            c = find(S["parse"], "sqlimport-parse-%s" % fmt)
            name = "Parse only (%s): >= 300 MB/s" % fmt.upper()
            if not ok(c):
                t.append({"target": name, "status": "not met" if c else "not measured",
                          "detail": "FAILED" if c else "no result in this run"})
            else:
                t.append({"target": name, "status": "met" if c["mb_per_s"] >= 300 else "not met",
                          "detail": "%.0f MB/s" % c["mb_per_s"]})

    def time_target(name, scen, key, factor):
        """sqlimport's median time <= factor x the stock tools' median time."""
        if scen not in S:
            return
        a = find(S[scen], key)
        b = find(S[scen], OP_REFERENCE[scen])
        if a is None or b is None:
            t.append({"target": name, "status": "not measured",
                      "detail": "no %s result in this run" % ("sqlimport" if a is None else "stock-tool")})
            return
        if not ok(a):
            t.append({"target": name, "status": "not met", "detail": "%s FAILED" % a["label"]})
            return
        if not ok(b):
            t.append({"target": name, "status": "not measured", "detail": "%s %s" % (b["label"], b.get("status"))})
            return
        r = a["seconds"] / b["seconds"]
        t.append({"target": name, "status": "met" if r <= factor else "not met",
                  "detail": "%.3f s vs %.3f s: %s (%.0f vs %.0f MB/s of the database)" % (
                      a["seconds"], b["seconds"],
                      "%.0f%% %s" % (abs(r - 1) * 100, "slower" if r > 1 else "faster"),
                      a["mb_per_s"], b["mb_per_s"])})

    time_target("Export: sqlimport export .jsonl.zst no slower than `sqlite3 .dump | zstd -3 -T2`",
                "export", "sqlimport-export-jsonl", 1.0)
    time_target("Snapshot: sqlimport snapshot within 10% of VACUUM INTO + zstd -3 -T2",
                "snapshot", "sqlimport-snapshot", 1.10)
    if "memory" in S:
        for kind, what in (("import", "import"), ("parse", "parse only")):
            a = find(S["memory"], "sqlimport-memory-%s-small" % kind)
            b = find(S["memory"], "sqlimport-memory-%s-large" % kind)
            if a is None or b is None:
                continue
            name = "Memory flat (%s): peak RSS at %s rows within %d%% of %s rows" % (
                what, "{:,}".format(b["rows"]), round((MEMORY_FLAT_FACTOR - 1) * 100), "{:,}".format(a["rows"]))
            if not (ok(a) and ok(b)):
                t.append({"target": name, "status": "not met", "detail": "a run FAILED"})
                continue
            t.append({"target": name,
                      "status": "met" if b["peak_rss_mib"] <= a["peak_rss_mib"] * MEMORY_FLAT_FACTOR else "not met",
                      "detail": "%.1f MiB vs %.1f MiB" % (b["peak_rss_mib"], a["peak_rss_mib"])})
    limit = 64 + cfg["CACHE_MIB"]
    worst = None
    for scen, sres in S.items():
        for c in sres["contenders"]:
            if c["kind"] == "sqlimport" and c.get("peak_rss_mib"):
                if worst is None or c["peak_rss_mib"] > worst[0]:
                    worst = (c["peak_rss_mib"], scen, c["label"])
    if worst:
        t.append({"target": "Peak RSS of every sqlimport run <= 64 MiB + page cache (%d MiB) = %d MiB"
                  % (cfg["CACHE_MIB"], limit),
                  "status": "met" if worst[0] <= limit else "not met",
                  "detail": "max %.1f MiB (%s, %s)" % worst})
    return t


def md(text):
    """A markdown table cell: a | would end the cell, even inside backticks."""
    return str(text).replace("|", "\\|")


def fmt_rate(x):
    return "—" if x is None else ("{:,.0f}".format(x))


def reference(scen, sres):
    """The contender a scenario's rows are compared with: the C loader's best for the
    imports, the stock tools for export, snapshot and restore."""
    if scen in OP_SCENARIOS:
        c = find(sres, OP_REFERENCE[scen])
        return c if ok(c) else None
    return c_best(sres)


def op_notes(c):
    notes = []
    if c.get("note"):
        notes.append(c["note"])
    if c.get("checked"):
        notes.append("checked: " + c["checked"])
    if c.get("status") != "ok":
        notes.insert(0, "**%s**" % c.get("reason", "failed"))
    return notes


def op_table(L, scen, sres):
    ref = reference(scen, sres)
    db_bytes = sres.get("db_bytes") or 0
    L.append("Database: `%s`, %s bytes (%.1f MB), %s rows, copied once into the run folder. "
             "MB/s = database bytes / median time; rows/s = rows / median time; \"vs stock\" = the stock "
             "tools' time / this time (above 1 = faster); CPU s = median user + system time of the "
             "processes (wall time well above it is waiting: I/O, fsync)." % (
                 sres.get("source", "?"), "{:,}".format(db_bytes), db_bytes / 1e6,
                 "{:,}".format(sres["contenders"][0]["rows"]) if sres["contenders"] else "?"))
    if sres.get("snapshot"):
        L.append("")
        L.append("Snapshot restored: made before the timed runs with %s." % sres["snapshot"])
    L.append("")
    L.append("| contender | status | rows | time s | CPU s | rows/s | DB MB/s | output MB | peak RSS MiB | vs stock "
             "| notes |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in sres["contenders"]:
        good = c.get("status") == "ok"
        secs = c.get("seconds") if good else None
        vs = "—"
        if ref and c.get("status") == "ok" and secs:
            vs = "%.2fx" % (ref["seconds"] / secs)
        outb = c.get("out_bytes")
        ocell = "—"
        if outb is not None:
            ocell = "%.1f" % (outb / 1e6)
            if scen != "restore" and db_bytes:
                ocell += " (%.0f%%)" % (100.0 * outb / db_bytes)
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            md(c["label"]), "ok" if c.get("status") == "ok" else "**FAILED**", "{:,}".format(c["rows"]),
            "—" if secs is None else "%.3f" % secs,
            "—" if secs is None or c.get("cpu_s") is None else "%.2f" % c["cpu_s"], fmt_rate(c.get("rows_per_s") if good else None),
            "—" if c.get("mb_per_s") is None or not good else "%.1f" % c["mb_per_s"], ocell,
            "—" if c.get("peak_rss_mib") is None else "%.1f" % c["peak_rss_mib"],
            vs, md("; ".join(op_notes(c)))))


def write_report(outdir, results):
    cfg = results["config"]
    targets = evaluate_targets(results)
    results["targets"] = targets
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    chart.write_svg(results, os.path.join(outdir, "chart.svg"))
    L = []
    L.append("# sqlimport benchmark — %s" % results["started"][:10])
    L.append("")
    L.append("N = %s rows, %d timed run(s) per contender (median) after %d warm-up run(s), seed %d; "
             "the runs of a scenario are interleaved (every contender's warm-up, then round 1 of each, ...). "
             "Started %s, finished %s." % ("{:,}".format(cfg["N"]), cfg["RUNS"], cfg["WARMUP"], cfg["SEED"],
                                          results["started"], results.get("finished", "?")))
    if results["data"].get("small"):
        L.append("")
        L.append("**sqlite-utils ran on the first %s rows only** (SQLITE_UTILS_N), the others on all %s; "
                 "its rows/s is compared as is." % ("{:,}".format(results["data"]["small"]),
                                                    "{:,}".format(cfg["N"])))
    L.append("")
    L.append("![chart](chart.svg)")
    L.append("")
    L.append("## Targets")
    L.append("")
    if cfg["N"] < TARGET_N:
        L.append("**The targets are set for N = %s; at N = %s start-up and a page cache that never fills "
                 "weigh more, so this run's statuses say little about them.**" % (
                     "{:,}".format(TARGET_N), "{:,}".format(cfg["N"])))
        L.append("")
    L.append("| target | status | measured |")
    L.append("|---|---|---|")
    for t in targets:
        L.append("| %s | **%s** | %s |" % (md(t["target"]), t["status"].upper(), md(t["detail"])))
    L.append("")
    L.append("## Results")
    L.append("")
    L.append("rows/s and MB/s use the median time; time is the wall time of the whole process "
             "(start-up, parsing and all), except the C loader's, which is its timed insert phase "
             "(its wall time, with the pre-parsed rows read in, is in parentheses). "
             "Peak RSS is the highest over all runs (GNU time). \"vs C\" is rows/s over the C loader's "
             "best rows/s in the same scenario. Every run's row count and content checksum is checked; "
             "a run that differs is FAILED.")
    if any(s in OP_SCENARIOS for s in results["scenarios"]):
        L.append("")
        L.append("Export, snapshot and restore read the loaded database (%s rows); their MB/s is the "
                 "database's size over the time, and they are compared with the stock tools "
                 "(sqlite3 and zstd CLIs) doing the same job. Every run's output is checked "
                 "(see the notes). The peak RSS of a shell pipeline is its largest single process "
                 "(GNU time), not their sum." % "{:,}".format(cfg["N"]))
    for scen, sres in results["scenarios"].items():
        L.append("")
        L.append("### %s" % sres["title"])
        L.append("")
        if scen in OP_SCENARIOS:
            op_table(L, scen, sres)
            continue
        best = c_best(sres)
        L.append("| contender | status | rows | time s | rows/s | MB/s | peak RSS MiB | vs C best | notes |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        for c in sres["contenders"]:
            if c.get("status") == "SKIPPED":
                L.append("| %s | SKIPPED | | | | | | | %s |" % (c["label"], c.get("reason", "")))
                continue
            notes = []
            if c.get("note"):
                notes.append(c["note"])
            if c.get("counts"):
                k = c["counts"]
                notes.append("ins %s / upd %s / unch %s%s" % (
                    k.get("inserted"), k.get("updated"), k.get("unchanged"),
                    (" / outside index %s" % k["outsidePartialIndex"]) if k.get("outsidePartialIndex") else ""))
            if c.get("strategy_used") and c["key"].startswith("sqlimport"):
                notes.append("strategy used: %s%s" % (c["strategy_used"],
                             (", %s rows/stmt" % c["rows_per_stmt"]) if c.get("rows_per_stmt") else ""))
            if c.get("status") != "ok":
                notes.insert(0, "**%s**" % c.get("reason", "failed"))
            secs = c.get("seconds")
            tcell = "—" if secs is None else "%.3f" % secs
            if c["kind"] == "cloader" and c.get("wall_s"):
                tcell += " (%.2f)" % c["wall_s"]
            vs = "—"
            if best and c.get("rows_per_s") and c.get("status") == "ok":
                vs = "%.2fx" % (c["rows_per_s"] / best["rows_per_s"])
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                c["label"], "ok" if c.get("status") == "ok" else "**FAILED**",
                "{:,}".format(c["rows"]), tcell, fmt_rate(c.get("rows_per_s")),
                "—" if c.get("mb_per_s") is None else "%.1f" % c["mb_per_s"],
                "—" if c.get("peak_rss_mib") is None else "%.1f" % c["peak_rss_mib"],
                vs, md("; ".join(notes))))
    L.append("")
    L.append("## Machine")
    L.append("")
    m = results["machine"]
    L.append("- CPU: %s, nproc %s" % (m.get("cpu"), m.get("nproc")))
    L.append("- Memory: %s" % m.get("memory"))
    L.append("- OS: %s, kernel %s; disk: %s" % (m.get("os"), m.get("kernel"), m.get("disk")))
    if m.get("loadavg_start"):
        L.append("- Load average (1, 5, 15 min) at the start: %s; at the end: %s. Anything else running "
                 "on the machine during the run skews the numbers." % (m["loadavg_start"], m.get("loadavg_end", "?")))
    L.append("")
    L.append("## Tools")
    L.append("")
    for k, v in results["tools"].items():
        L.append("- %s: %s" % (k, v))
    L.append("")
    L.append("## Data")
    L.append("")
    L.append("Generated by `bench/gen.py --n %d --seed %d%s` into `%s` (not in git):" % (
        cfg["N"], cfg["SEED"], (" --small %d" % results["data"]["small"]) if results["data"].get("small") else "",
        results["data"]["dir"]))
    L.append("")
    for k, v in results["data"]["sizes"].items():
        if k.endswith((".jsonl", ".csv", ".tsv")):
            L.append("- `%s`: %s bytes" % (k, "{:,}".format(v)))
    L.append("")
    L.append("Delta: %s lines (10%% existing keys with a newer updatedAt, 10%% new keys)." %
             "{:,}".format(results["data"]["delta_rows"]))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("Each run starts from a fresh copy of the database named below (copied outside the timing), "
             "runs under `/usr/bin/time -v`, then the checksum query of `bench/gen.py` is run on the result. "
             "Export, snapshot and restore read one copy of the loaded database per scenario "
             "(`source.db` in the run folder; a run that changes it is FAILED) and their outputs are "
             "removed before each run.")
    for scen, sres in results["scenarios"].items():
        L.append("")
        L.append("### %s" % scen)
        L.append("")
        if scen in OP_SCENARIOS:
            for c in sres["contenders"]:
                if scen == "restore":
                    L.append("- %s (input: a `sqlimport snapshot` of `%s`):" % (c["label"], c.get("db_before", "")))
                    L.append("  `%s`" % c["command"])
                    continue
                L.append("- %s (`source.db` = a copy of `%s`):" % (c["label"], c.get("db_before", "")))
                L.append("  `%s`" % c["command"])
            continue
        for c in sres["contenders"]:
            L.append("- %s (db before: `%s`):" % (c["label"], c.get("db_before", "")))
            L.append("  `%s`" % c["command"].replace(ROOT + os.sep, ""))
            if c.get("script"):
                L.append("")
                L.append("  ```sql")
                for line in c["script"].replace(ROOT + os.sep, "").strip().splitlines():
                    L.append("  " + line)
                L.append("  ```")
    L.append("")
    L.append("Raw logs (GNU time output, stdout/stderr, sqlimport's JSON reports): `%s` (not in git)." %
             results.get("logs", ""))
    L.append("")
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(L))
    return summary_text(results, targets)


def summary_text(results, targets):
    L = ["", "sqlimport benchmark summary (N=%s, RUNS=%d)" % ("{:,}".format(results["config"]["N"]),
                                                            results["config"]["RUNS"])]
    for scen, sres in results["scenarios"].items():
        L.append("")
        L.append(sres["title"])
        op = scen in OP_SCENARIOS
        best = reference(scen, sres)
        L.append("  %-44s %-7s %12s %9s %9s %8s" % ("contender", "status", "rows/s",
                                                   "DB MB/s" if op else "MB/s", "RSS MiB",
                                                   "vs stock" if op else "vs C"))
        for c in sres["contenders"]:
            if c.get("status") == "SKIPPED":
                L.append("  %-44s SKIPPED" % c["label"])
                continue
            vs = ""
            if best and c.get("rows_per_s") and c.get("status") == "ok":
                vs = "%.2fx" % (c["rows_per_s"] / best["rows_per_s"])
            L.append("  %-44s %-7s %12s %9s %9s %8s%s" % (
                c["label"][:44], "ok" if c.get("status") == "ok" else "FAILED",
                fmt_rate(c.get("rows_per_s")),
                "" if c.get("mb_per_s") is None else "%.1f" % c["mb_per_s"],
                "" if c.get("peak_rss_mib") is None else "%.1f" % c["peak_rss_mib"], vs,
                ("  [%s rows]" % "{:,}".format(c["rows"])) if c.get("small") else ""))
    L.append("")
    L.append("Targets" + (" (set for N = %s: this run is too small to judge them)" % "{:,}".format(TARGET_N)
                          if results["config"]["N"] < TARGET_N else ""))
    for t in targets:
        L.append("  %-8s %s — %s" % (t["status"].upper(), t["target"], t["detail"]))
    return "\n".join(L)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--report":
        d = sys.argv[2]
        with open(os.path.join(d, "results.json")) as f:
            results = json.load(f)
        print(write_report(d, results))
        return
    main_run()


if __name__ == "__main__":
    main()
