"""The report: the targets, report.md, chart.svg and the summary printed at the end.

Everything here reads results.json only, so `bench.py --report DIR` can rebuild a report.
Each result names its data set's key order ("keys"); the targets are evaluated on the
uuid-key results, and the other key orders get a no-regression line.
"""
import json
import os

import chart
from config import (KEY_TITLES, LEGACY_KEYS, MEMORY_FLAT_FACTOR, OP_REFERENCE, OP_SCENARIOS,
                    ROOT, RSS_HEADROOM_MIB, TARGET_KEYS, TARGET_N)


def keys_of(c):
    """A result's key order (LEGACY_KEYS in a results.json from before key orders)."""
    return c.get("keys") or LEGACY_KEYS


def scenario_keys(sres):
    """The key orders of a scenario's results, in run order."""
    out = list(sres.get("keys") or [])
    for c in sres["contenders"]:
        if keys_of(c) not in out:
            out.append(keys_of(c))
    return out or [LEGACY_KEYS]


def of_keys(sres, keys):
    """The scenario with only its results on one key order."""
    sub = dict(sres)
    sub["contenders"] = [c for c in sres["contenders"] if keys_of(c) == keys]
    return sub


def datasets(results):
    """results["data"] per key order (one, LEGACY_KEYS, from before key orders)."""
    d = results.get("data") or {}
    if "dir" in d:
        return {LEGACY_KEYS: dict(d, keys=LEGACY_KEYS, legacy=True)}
    return d


def key_title(keys):
    return KEY_TITLES.get(keys, keys + " keys")


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


def c_multi(sres):
    return find(sres, "cloader-multi")


# sqlimport auto against the C loader: scenario, target factor, denominator, its name
C_TARGETS = (("first", 2.0, c_best, "the C loader's best (single or multi)"),
             ("rerun", 2.5, c_multi, "the C loader multi-row"),
             ("delta", 2.0, c_best, "the C loader's best"))
C_TARGET_NAMES = {"first": "First load", "rerun": "Re-run, nothing changes", "delta": "Delta"}


def rss_limit(cfg):
    return cfg["CACHE_MIB"] + RSS_HEADROOM_MIB


def evaluate_targets(results):
    """The targets, on the uuid-key results only, then a no-regression line per other key
    order. A list of {target, status: met | not met | not measured | info, detail}."""
    cfg = results["config"]
    A = results["scenarios"]
    S = {scen: of_keys(sres, TARGET_KEYS) for scen, sres in A.items()}
    t = []

    def missing(name, scen):
        """Whether scen has no uuid-key result; says so when it ran on other keys only."""
        if scen not in A:
            return True
        if A[scen]["contenders"] and not S[scen]["contenders"]:
            t.append({"target": name, "status": "not measured",
                      "detail": "not run on %s keys (this run: %s)" % (
                          TARGET_KEYS, ", ".join(scenario_keys(A[scen])))})
            return True
        return False

    def ratio_target(name, scen, num_key, den, factor, den_label):
        if missing(name, scen):
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

    for scen, factor, den, den_name in C_TARGETS:
        ratio_target("%s: sqlimport auto >= %.1fx %s" % (C_TARGET_NAMES[scen], factor, den_name), scen,
                     "sqlimport-auto", den, factor, "C loader")
    for scen in ("first", "rerun", "delta", "csv"):
        ratio_target("%s: sqlimport auto >= 10x sqlite-utils" % scen, scen, "sqlimport-auto",
                     lambda s: find(s, "sqlite-utils"), 10.0, "sqlite-utils")
        ratio_target("%s: sqlimport auto >= 2x sqlite3 .import" % scen, scen, "sqlimport-auto",
                     lambda s: find(s, "sqlite3-import"), 2.0, "sqlite3 .import")
    for fmt in ("jsonl", "csv"):
        name = "Parse only (%s): >= 300 MB/s" % fmt.upper()
        if missing(name, "parse"):
            continue
        c = find(S["parse"], "sqlimport-parse-%s" % fmt)
        if not ok(c):
            t.append({"target": name, "status": "not met" if c else "not measured",
                      "detail": "FAILED" if c else "no result in this run"})
        else:
            t.append({"target": name, "status": "met" if c["mb_per_s"] >= 300 else "not met",
                      "detail": "%.0f MB/s" % c["mb_per_s"]})

    def time_target(name, scen, key, factor):
        """sqlimport's median time <= factor x the stock tools' median time."""
        if missing(name, scen):
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
    for kind, what in (("import", "import"), ("parse", "parse only")):
        a = find(S["memory"], "sqlimport-memory-%s-small" % kind) if "memory" in S else None
        b = find(S["memory"], "sqlimport-memory-%s-large" % kind) if "memory" in S else None
        name = "Memory flat (%s): peak RSS at %s rows within %d%% of %s rows" % (
            what, "{:,}".format(b["rows"] if b else cfg["N"] * cfg.get("MEMORY_SCALE", 10)),
            round((MEMORY_FLAT_FACTOR - 1) * 100), "{:,}".format(a["rows"] if a else cfg["N"]))
        if missing(name, "memory") or a is None or b is None:
            continue
        if not (ok(a) and ok(b)):
            t.append({"target": name, "status": "not met", "detail": "a run FAILED"})
            continue
        t.append({"target": name,
                  "status": "met" if b["peak_rss_mib"] <= a["peak_rss_mib"] * MEMORY_FLAT_FACTOR else "not met",
                  "detail": "%.1f MiB vs %.1f MiB" % (b["peak_rss_mib"], a["peak_rss_mib"])})
    limit = rss_limit(cfg)
    name = "Peak RSS of every sqlimport run <= page cache (%d MiB) + %d MiB = %d MiB" % (
        cfg["CACHE_MIB"], RSS_HEADROOM_MIB, limit)
    worst = peak_rss(S)
    if worst:
        t.append({"target": name, "status": "met" if worst[0] <= limit else "not met",
                  "detail": "max %.1f MiB (%s, %s)" % worst})
    elif peak_rss(A):
        t.append({"target": name, "status": "not measured", "detail": "no sqlimport run on %s keys" % TARGET_KEYS})
    t.extend(no_regression(A))
    return t


def peak_rss(scenarios):
    """(MiB, scenario, label) of the sqlimport run with the highest peak RSS, or None."""
    worst = None
    for scen, sres in scenarios.items():
        for c in sres["contenders"]:
            if c["kind"] == "sqlimport" and c.get("peak_rss_mib"):
                if worst is None or c["peak_rss_mib"] > worst[0]:
                    worst = (c["peak_rss_mib"], scen, c["label"])
    return worst


def no_regression(A):
    """For each key order but TARGET_KEYS: sqlimport auto's ratios to the C loader in
    first, rerun and delta (the targets' denominators), without a threshold: status info,
    or not met when sqlimport failed there."""
    out = []
    others = []
    for scen in ("first", "rerun", "delta"):
        if scen in A:
            others += [k for k in scenario_keys(A[scen]) if k != TARGET_KEYS and k not in others]
    for keys in others:
        parts, failed = [], False
        for scen, _factor, den, _den_name in C_TARGETS:
            if scen not in A:
                continue
            sres = of_keys(A[scen], keys)
            if not sres["contenders"]:
                continue
            a, b = find(sres, "sqlimport-auto"), den(sres)
            if a is None:
                parts.append("%s: no sqlimport auto result" % scen)
            elif not ok(a):
                parts.append("%s: sqlimport auto FAILED" % scen)
                failed = True
            elif not ok(b):
                parts.append("%s: no C loader result" % scen)
            else:
                parts.append("%s %.2fx" % (scen, a["rows_per_s"] / b["rows_per_s"]))
        worst = peak_rss({s: of_keys(sres, keys) for s, sres in A.items()})
        if worst:
            parts.append("peak RSS max %.1f MiB" % worst[0])
        if parts:
            title = key_title(keys)
            out.append({"target": "%s%s, no regression: sqlimport auto / the C loader (first, delta: its best; "
                                  "rerun: multi-row)" % (title[0].upper(), title[1:]),
                        "status": "not met" if failed else "info", "detail": ", ".join(parts)})
    return out


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


def import_table(L, sres):
    """The table of an import, parse or memory scenario (one key order)."""
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


def write_report(outdir, results):
    cfg = results["config"]
    targets = evaluate_targets(results)
    results["targets"] = targets
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    chart.write_svg(results, os.path.join(outdir, "chart.svg"))
    data = datasets(results)
    small = next((d["small"] for d in data.values() if d.get("small")), None)
    L = []
    L.append("# sqlimport benchmark — %s" % results["started"][:10])
    L.append("")
    L.append("N = %s rows, %d timed run(s) per contender (median) after %d warm-up run(s), seed %d; "
             "the runs of a scenario are interleaved (every contender's warm-up, then round 1 of each, ...). "
             "Started %s, finished %s." % ("{:,}".format(cfg["N"]), cfg["RUNS"], cfg["WARMUP"], cfg["SEED"],
                                          results["started"], results.get("finished", "?")))
    if "KEYS" in cfg:
        L.append("")
        L.append("Key orders (KEYS): %s. Each is its own data set: the same rows with other primary keys "
                 "(uuid: random UUIDv4 text, as apps make them, so inserts land all over the primary key's "
                 "B-tree; sequential: itm-0000000001, ..., so every insert appends). The import scenarios "
                 "(first load, re-run, delta, CSV) run on every key order, all interleaved in one series; "
                 "parse, export, snapshot, restore and memory on the %s data only." % (
                     ", ".join(cfg["KEYS"]), "uuid" if TARGET_KEYS in cfg["KEYS"] else cfg["KEYS"][0]))
    if small:
        L.append("")
        L.append("**sqlite-utils ran on the first %s rows only** (SQLITE_UTILS_N), the others on all %s; "
                 "its rows/s is compared as is." % ("{:,}".format(small), "{:,}".format(cfg["N"])))
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
    L.append("The targets are evaluated on the %s-key data only (random UUIDv4 primary keys). The no-regression line of the other key "
             "orders lists sqlimport auto's ratios to the C loader in the same run, without a threshold "
             "(INFO; NOT MET only when sqlimport failed there): compare them with earlier reports "
             "(before KEYS, every report used sequential keys)." % TARGET_KEYS)
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
             "best rows/s in the same scenario and key order. Every run's row count and content checksum "
             "is checked; a run that differs is FAILED.")
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
        orders = scenario_keys(sres)
        for keys in orders:
            L.append("")
            if len(orders) > 1:
                L.append("#### %s%s" % (key_title(keys), ": the targets" if keys == TARGET_KEYS else ""))
            else:
                L.append("Data: %s." % key_title(keys))
            L.append("")
            if scen in OP_SCENARIOS:
                op_table(L, scen, of_keys(sres, keys))
            else:
                import_table(L, of_keys(sres, keys))
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
    for keys, d in data.items():
        L.append("")
        L.append("Generated by `bench/gen.py --n %d --seed %d%s%s` into `%s` (not in git):" % (
            cfg["N"], cfg["SEED"], "" if d.get("legacy") else " --keys %s" % keys,
            (" --small %d" % d["small"]) if d.get("small") else "", d["dir"]))
        L.append("")
        for k, v in d["sizes"].items():
            if k.endswith((".jsonl", ".csv", ".tsv")):
                L.append("- `%s`: %s bytes" % (k, "{:,}".format(v)))
    if data:
        L.append("")
        L.append("Delta: %s lines (10%% existing keys with a newer updatedAt, 10%% new keys)." %
                 "{:,}".format(next(iter(data.values()))["delta_rows"]))
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
        several = len(scenario_keys(sres)) > 1
        for c in sres["contenders"]:
            label = c["label"] + (", %s keys" % keys_of(c) if several else "")
            if scen == "restore":
                L.append("- %s (input: a `sqlimport snapshot` of `%s`):" % (label, c.get("db_before", "")))
                L.append("  `%s`" % c["command"])
                continue
            if scen in OP_SCENARIOS:
                L.append("- %s (`source.db` = a copy of `%s`):" % (label, c.get("db_before", "")))
                L.append("  `%s`" % c["command"])
                continue
            L.append("- %s (db before: `%s`):" % (label, c.get("db_before", "")))
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
    for scen, all_keys in results["scenarios"].items():
        op = scen in OP_SCENARIOS
        for keys in scenario_keys(all_keys):
            sres = of_keys(all_keys, keys)
            L.append("")
            L.append("%s — %s" % (sres["title"], key_title(keys)))
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
    L.append("Targets, on the %s-key data%s" % (
        TARGET_KEYS,
        (" (set for N = %s: this run is too small to judge them)" % "{:,}".format(TARGET_N)
         if results["config"]["N"] < TARGET_N else "")))
    for t in targets:
        L.append("  %-8s %s — %s" % (t["status"].upper(), t["target"], t["detail"]))
    return "\n".join(L)
