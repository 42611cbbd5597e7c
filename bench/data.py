"""The data: a data set per key order (bench/gen.py --keys), its template databases, and
the checks of results.

A table is checked with the generator's checksum query against the expected values in
its data set's manifest (row count and content, order independent); export, snapshot
and restore outputs with the checks below.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

from config import HERE, log, rel

SCHEMA = """CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '', libraryID INTEGER NOT NULL,
  remoteID TEXT, notes TEXT, updatedAt TEXT NOT NULL, price REAL, qty INTEGER, active INTEGER, tags TEXT, meta TEXT) STRICT;
CREATE UNIQUE INDEX idx_items_sync_identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
"""
COLS = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt",
        "price", "qty", "active", "tags", "meta"]


class DataSet:
    """One generated data set (one key order): its folder, manifest and template databases.
    templates[(small, "empty" | "loaded")] is the path of a template database."""

    def __init__(self, cfg, keys):
        self.keys = keys
        self.dir = cfg.data_dir(keys)
        self.man = ensure_data(cfg, keys, self.dir)
        self.templates = ensure_templates(cfg, self.man, self.dir)

    def describe(self):
        """What results.json records about it."""
        m = self.man
        return {"keys": self.keys, "dir": rel(self.dir), "sizes": m["sizes"], "small_sizes": m.get("small_sizes"),
                "delta_rows": m["delta_rows"], "small": m.get("small")}


def ensure_data(cfg, keys, ddir):
    """Generates the data set (gen.py --keys KEYS) unless ddir holds one made by this
    gen.py version with the same options; returns its manifest."""
    man_path = os.path.join(ddir, "manifest.json")
    small = cfg.su_n if cfg.su_n < cfg.n else 0
    if os.path.exists(man_path):
        with open(man_path) as f:
            man = json.load(f)
        import gen
        if (man.get("gen_version") == gen.GEN_VERSION and (man.get("small") or 0) == small
                and man.get("keys") == keys):
            log("data: reusing %s" % rel(ddir))
            return man
    if os.path.exists(ddir):
        shutil.rmtree(ddir)
    log("data: generating N=%d (seed %d, %s keys) into %s ..." % (cfg.n, cfg.seed, keys, rel(ddir)))
    cmd = [sys.executable, os.path.join(HERE, "gen.py"), "--n", str(cfg.n), "--seed", str(cfg.seed),
           "--keys", keys, "--out", ddir]
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


def ensure_templates(cfg, man, data_dir):
    """empty.db (schema only) and loaded.db (base loaded by the C loader, checked) in
    data_dir/templates, and small_*.db for the small/ subset when there is one."""
    tdir = os.path.join(data_dir, "templates")
    os.makedirs(tdir, exist_ok=True)
    out = {}
    sets = [(False, data_dir)]
    if man.get("small"):
        sets.append((True, os.path.join(data_dir, "small")))
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


class CheckFailed(Exception):
    pass


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
