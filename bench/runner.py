"""Running the contenders: timed runs under GNU time, and the loop over the scenarios.

Import scenarios run every contender, on every key order, on a fresh copy of a template
database and check the table's checksum afterwards; export, snapshot and restore read
one copy of the loaded database; the memory scenario streams renamed copies of
base.jsonl into stdin. run_benchmark writes results.json; report.py turns it into the
report.
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

from config import HERE, ROOT, OP_SCENARIOS, SCENARIO_TITLES, log, rel
from contenders import contenders_for, op_contenders, sqlite3_import_script
from data import CheckFailed, DataSet, checksum, expected, remove_db


def parse_time_v(path):
    """Peak RSS, user, system and wall time from a `/usr/bin/time -v` output file."""
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
    """One run of an import contender on a fresh copy of template; checks the table."""
    rundir = cfg.rundir
    os.makedirs(rundir, exist_ok=True)
    db = os.path.join(rundir, "bench.db")
    for sfx in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db + sfx):
            os.remove(db + sfx)
    shutil.copyfile(template, db)   # timed_run syncs it to disk before the timer starts
    argv = [a.replace("{DB}", db) for a in c.argv]
    r, out_path = timed_run(cfg, argv, logdir, "%s-%s-%s-%s" % (scen, c.keys, c.key, tag))
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
    """A contender's result from its runs: medians of the timed runs, the highest RSS."""
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


def run_op_scenario(cfg, ds, scen, sres, logdir, save):
    """export / snapshot / restore on a copy of the loaded template (made once per
    scenario, outside the timing, and checked to be unchanged after every run)."""
    R = cfg.rundir
    os.makedirs(R, exist_ok=True)
    tmpl = ds.templates[(False, "loaded")]
    db_bytes = os.path.getsize(tmpl)
    rows = ds.man["n"]
    src = os.path.join(R, "source.db")
    snap_in = os.path.join(R, "restore-input.sqlite.zst")
    sres["db_bytes"] = db_bytes
    sres["source"] = rel(tmpl)
    cs = [c for c in op_contenders(cfg, ds, scen, src, snap_in)
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
            entry = {"key": c.key, "label": c.label, "kind": c.kind, "keys": c.keys, "note": c.note,
                     "small": False, "input": rel(snap_in if scen == "restore" else src), "command": command,
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
    """A shell loop that writes `copies` copies of base.jsonl, copy i with "-<i>" appended
    to every id and every remote id (uuid or sequential alike), so that every row is a new
    key for both unique indexes and the keys keep the data's order (random for uuid)."""
    return ("for i in $(seq 0 %d); do sed 's/^{\"id\":\"[^\"]*/&-'$i'/; s/\"remoteID\":\"[^\"]*/&-'$i'/' %s; done"
            % (copies - 1, shlex.quote(rel(base))))


def run_memory_scenario(cfg, ds, sres, logdir, save):
    """Peak RSS at N and at MEMORY_SCALE x N rows, streamed through stdin (so the input's
    size cannot matter to anything but sqlimport), for an import and for parse only. One
    run each: this scenario measures memory; its times are for information. The import
    must store every row, so the renamed ids are checked to be unique."""
    man = ds.man
    base = os.path.join(ds.dir, "base.jsonl")
    n = man["n"]
    remote_rows = man["expected"]["base"]["n_remoteID"]
    os.makedirs(cfg.rundir, exist_ok=True)
    db = os.path.join(cfg.rundir, "memory.db")
    tmpl = ds.templates[(False, "empty")]
    for size, copies in (("small", 1), ("large", cfg.memory_scale)):
        rows = n * copies
        # "-<i>" adds len(str(i)) + 1 bytes to every id and every non-null remoteID
        in_bytes = sum(os.path.getsize(base) + (len(str(i)) + 1) * (n + remote_rows) for i in range(copies))
        feed = replicated_jsonl_feed(base, copies)
        for kind in ("import", "parse"):
            # the report goes to a file of its own (stdin carries the data)
            report = os.path.join(logdir, "memory-%s-%s.report.json" % (kind, size))
            si = [rel(cfg.sqlimport), "import", "-", "--db", rel(db), "--table", "items", "--upsert", "libraryID,remoteID",
                  "--format", "jsonl", "--quiet", "--report", rel(report)] + (["--parse-only"] if kind == "parse" else [])
            command = "set -o pipefail; %s | %s" % (feed, shlex.join(si))
            label = "sqlimport %s, %s rows from stdin" % ("--parse-only" if kind == "parse" else "auto",
                                                          "{:,}".format(rows))
            key = "sqlimport-memory-%s-%s" % (kind, size)
            if not cfg.selects(key, label, aliases=("sqlimport-auto",)):
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
            entry = {"key": key, "label": label, "kind": "sqlimport", "keys": ds.keys,
                     "note": "peak RSS of the pipeline's largest process, sqlimport; one run",
                     "small": False, "input": "%d renamed cop%s of %s" % (copies, "y" if copies == 1 else "ies",
                                                                          rel(base)),
                     "command": command, "db_before": rel(tmpl)}
            entry.update(summarize(None, [r], rows, in_bytes))
            entry["all_runs"] = [r]
            sres["contenders"].append(entry)
            save()
    remove_db(db)


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
    def field(path, prefix):
        """The value after the first line of `path` that starts with `prefix`."""
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(prefix):
                        return line.split(prefix[-1], 1)[1].strip()
        except OSError:
            pass
        return ""

    cpu = field("/proc/cpuinfo", "model name\t:") or field("/proc/cpuinfo", "model name:")
    kib = field("/proc/meminfo", "MemTotal:").split()
    mem = "%.1f GiB" % (int(kib[0]) / 1024 / 1024) if kib else ""
    osname = field("/etc/os-release", "PRETTY_NAME=").strip('"')
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


def run_import_scenario(cfg, datasets, scen, sres, logdir, save):
    """first, rerun, delta, csv (on every key order in KEYS) or parse (uuid only). Every
    contender of every key order is set up first; then the runs are interleaved (the
    warm-ups of all, then round 1 of each, round 2 of each...), so that a machine that
    slows down or speeds up during the scenario shifts every contender alike."""
    tool_have_su = os.path.exists(cfg.sqlite_utils)
    lineup = []
    for keys in cfg.keys_for(scen):
        ds = datasets[keys]
        man = ds.man
        for c in contenders_for(cfg, ds, scen):
            if not cfg.selects(c.key, c.label, c.aliases):
                continue
            small = c.small
            if scen == "delta":
                rows = man["small_delta_rows"] if small else man["delta_rows"]
            else:
                rows = man["small"] if small else man["n"]
            state = {"first": "base", "rerun": "base", "delta": "delta", "csv": "base",
                     "parse": "empty"}[scen]
            tmpl = ds.templates[(small, "loaded" if scen in ("rerun", "delta") else "empty")]
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
            entry = {"key": c.key, "label": c.label, "kind": c.kind, "keys": keys, "note": c.note,
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
            lineup.append({"c": c, "man": man, "entry": entry, "tmpl": tmpl, "exp": exp, "rows": rows,
                           "in_bytes": in_bytes, "runs": [], "failed": False})
    plan = ["warmup"] * cfg.warmup + ["run%d" % (k + 1) for k in range(cfg.runs)]
    for tag in plan:
        for u in lineup:
            if u["failed"]:
                continue   # a failing contender is not retried
            c = u["c"]
            r = run_once(cfg, u["man"], scen, c, u["tmpl"], u["exp"], u["rows"], logdir, tag)
            r["tag"] = tag
            u["runs"].append(r)
            log("  %-10s %-44s %-7s %8.2f s  %10.0f rows/s  rss %6.1f MiB  %s%s" % (
                c.keys, c.label, tag, r["seconds"], r["rows_per_s"], r.get("rss_kib", 0) / 1024,
                r["status"], (" (" + r["reason"] + ")") if r.get("reason") else ""))
            u["failed"] = r["status"] != "ok"
    for u in lineup:
        entry = u["entry"]
        entry.update(summarize(u["c"], u["runs"], u["rows"], u["in_bytes"]))
        entry["all_runs"] = u["runs"]
        sres["contenders"].append(entry)
    save()


def run_benchmark(cfg):
    """Runs every selected scenario; returns the results, also written to results.json
    after each scenario (and at the end, whatever happens)."""
    os.makedirs(cfg.work, exist_ok=True)
    if not os.path.exists(cfg.sqlimport):
        sys.exit("sqlimport binary not found: %s (set SQLIMPORT_BIN)" % cfg.sqlimport)
    if not os.path.exists(cfg.cloader):
        sys.exit("C loader not found: %s (bench/run.sh builds it)" % cfg.cloader)
    # only the data sets some selected scenario runs on
    needed = []
    for scen in cfg.scenarios:
        needed += [k for k in cfg.keys_for(scen) if k not in needed]
    datasets = {k: DataSet(cfg, k) for k in needed}
    os.makedirs(cfg.results, exist_ok=True)
    logdir = os.path.join(cfg.work, "logs", os.path.basename(cfg.results))
    os.makedirs(logdir, exist_ok=True)
    results = {
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "config": {"N": cfg.n, "RUNS": cfg.runs, "WARMUP": cfg.warmup, "SEED": cfg.seed,
                   "SCENARIOS": cfg.scenarios, "CONTENDERS": cfg.contender_filter,
                   "SQLITE_UTILS_N": cfg.su_n, "CACHE_MIB": cfg.cache_mib, "KEYS": cfg.keys,
                   "MEMORY_SCALE": cfg.memory_scale},
        "machine": machine_info(),
        "tools": tool_versions(cfg),
        # per key order; every result below names its key order in "keys"
        "data": {k: ds.describe() for k, ds in datasets.items()},
        "scenarios": {},
        "logs": rel(logdir),
    }
    res_path = os.path.join(cfg.results, "results.json")

    def save():
        with open(res_path, "w") as f:
            json.dump(results, f, indent=1)
    try:
        for scen in cfg.scenarios:
            log("== scenario %s ==" % scen)
            keys = cfg.keys_for(scen)
            sres = {"title": SCENARIO_TITLES[scen], "keys": keys, "contenders": []}
            results["scenarios"][scen] = sres
            if scen in OP_SCENARIOS:
                run_op_scenario(cfg, datasets[keys[0]], scen, sres, logdir, save)
            elif scen == "memory":
                sres["title"] = "Peak memory as the input grows (%s and %s rows streamed from stdin)" % (
                    "{:,}".format(cfg.n), "{:,}".format(cfg.n * cfg.memory_scale))
                run_memory_scenario(cfg, datasets[keys[0]], sres, logdir, save)
            else:
                run_import_scenario(cfg, datasets, scen, sres, logdir, save)
    finally:
        results["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
        results["machine"]["loadavg_end"] = loadavg()
        save()
    return results
