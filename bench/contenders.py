"""Who runs in each scenario, and with which command line.

An import contender's argv holds a {DB} placeholder for the fresh copy of its database;
an export, snapshot or restore contender's argv is complete and comes with the check of
its output.
"""
import os
import shlex

from config import HERE
from data import (COLS, check_csv_zst, check_database, check_dump_zst, check_jsonl_zst,
                  check_snapshot, CheckFailed, expected)


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
    def __init__(self, key, label, kind, argv, input_path, keys, small=False, note="", script=None,
                 aliases=()):
        self.key = key          # unique id within a scenario and key order
        self.label = label
        self.kind = kind        # sqlimport | cloader | sqlite3 | sqlite-utils | python
        self.argv = argv        # with a {DB} placeholder
        self.input = input_path
        self.keys = keys        # the data set's key order
        self.small = small
        self.note = note
        self.script = script
        self.aliases = aliases  # other names CONTENDERS may select it by


def contenders_for(cfg, ds, scenario):
    """The contenders of an import scenario (or parse) on the data set ds."""
    man = ds.man
    d = ds.dir
    sd = os.path.join(d, "small") if man.get("small") else d
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
                os.path.join(d, f), ds.keys, aliases=("sqlimport-auto",)))
        return out
    main_input = os.path.join(d, csvf if scenario == "csv" else jsonl)
    fmt = "csv" if scenario == "csv" else "jsonl"
    # The mission's command: upsert on the partial unique index, the input supplying
    # the primary key, so that records are applied sorted by id (key-ordered writes).
    for strat in ("auto", "typed", "cached", "multirow"):
        out.append(Contender(
            "sqlimport-%s" % strat, "sqlimport --strategy %s" % strat, "sqlimport",
            [si, "import", main_input, "--db", "{DB}", "--table", "items", "--upsert", "libraryID,remoteID",
             "--strategy", strat, "--format", fmt, "--quiet", "--report", "-"],
            main_input, ds.keys))
    out.append(Contender(
        "sqlimport-auto-id", "sqlimport auto --upsert id", "sqlimport",
        [si, "import", main_input, "--db", "{DB}", "--table", "items", "--upsert", "id",
         "--format", fmt, "--quiet", "--report", "-"],
        main_input, ds.keys,
        note="upsert on the primary key: the identity index is then a unique index of neither "
             "clause, so records are applied in input order"))
    for mode in ("single", "multi"):
        out.append(Contender(
            "cloader-%s" % mode, "C loader %s-row%s" % (mode, " (500/stmt)" if mode == "multi" else ""),
            "cloader", [cfg.cloader, "{DB}", os.path.join(d, tsvf), mode], os.path.join(d, tsvf), ds.keys,
            note="rows pre-parsed into memory before its timer; rows/s = its timed insert phase"))
    script = os.path.join(cfg.work, "sqlite3-import-%s-%s.sql" % (scenario, ds.keys))
    out.append(Contender(
        "sqlite3-import", "sqlite3 .import + INSERT…SELECT upsert", "sqlite3",
        ["sqlite3", "{DB}", ".read %s" % script], os.path.join(d, csvf), ds.keys,
        note="reads the CSV of the same rows", script=(script, os.path.join(d, csvf))))
    su_in = os.path.join(sd, csvf if scenario == "csv" else jsonl)
    su_argv = [cfg.sqlite_utils, "upsert", "{DB}", "items", su_in, "--pk", "id", "--silent"]
    su_argv += ["--csv", "--empty-null"] if scenario == "csv" else ["--nl"]
    out.append(Contender(
        "sqlite-utils", "sqlite-utils upsert", "sqlite-utils", su_argv, su_in, ds.keys, small=su_small,
        note=("%d-row subset" % cfg.su_n) if su_small else ""))
    out.append(Contender(
        "python", "Python sqlite3 executemany", "python",
        [cfg.python, os.path.join(HERE, "pyload.py"), "{DB}", main_input, fmt], main_input, ds.keys))
    return out


class OpContender:
    """A run of an export, snapshot or restore scenario: argv is complete (no {DB}),
    outputs are removed before each run, check(stdout_path) raises CheckFailed or
    returns (output bytes, what was checked)."""

    def __init__(self, key, label, kind, argv, outputs, check, note="", keys=None):
        self.key = key
        self.label = label
        self.kind = kind        # sqlimport | stock
        self.argv = argv
        self.outputs = outputs
        self.check = check
        self.keys = keys
        self.note = note
        self.small = False


def op_contenders(cfg, ds, scen, src, snap_in):
    """The contenders of export, snapshot or restore: src is the copy of ds's loaded
    database they read, snap_in the snapshot restore reads."""
    R = cfg.rundir
    si = cfg.sqlimport
    man = ds.man
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
    for c in out:
        c.keys = ds.keys
    return out
