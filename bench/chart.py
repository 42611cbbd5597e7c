#!/usr/bin/env python3
"""Writes the benchmark chart as a standalone SVG (standard library only).

  chart.py RESULTS_DIR      reads RESULTS_DIR/results.json, writes RESULTS_DIR/chart.svg

One panel per scenario and key order, one horizontal bar per contender: rows/s
(MB/s for the parse-only scenario; MB/s of the database for export, snapshot
and restore; peak RSS for the memory scenario), on a linear scale per panel. A
dashed line marks the C loader's best rows/s in the same key order (the 300 MB/s
target in the parse panel, the stock sqlite3/zstd tools in the export, snapshot
and restore panels, the RSS limit in the memory panel); failed contenders are
drawn as red stubs.
"""
import json
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from config import LEGACY_KEYS, OP_SCENARIOS, RSS_HEADROOM_MIB  # noqa: E402

COLORS = {"sqlimport": "#2b6cb0", "cloader": "#555555", "sqlite3": "#dd6b20",
          "sqlite-utils": "#38a169", "python": "#805ad5", "stock": "#b7791f"}
W = 960
LABEL_W = 330
BAR_W = W - LABEL_W - 190
ROW_H = 22
PANEL_GAP = 26


def fmt(v, unit):
    if unit == "MB/s":
        return "%.0f MB/s" % v
    if unit == "MiB":
        return "%.1f MiB" % v
    if v >= 1e6:
        return "%.2fM rows/s" % (v / 1e6)
    if v >= 1e3:
        return "%.0fK rows/s" % (v / 1e3)
    return "%.0f rows/s" % v


def write_svg(results, path):
    parts = []
    y = 20
    n = results.get("config", {}).get("N")
    title = "sqlimport benchmark%s — %s" % (
        (" (N=%s)" % "{:,}".format(n)) if n else "", results.get("started", "")[:10])
    parts.append('<text x="10" y="%d" font-size="18" font-weight="bold">%s</text>' % (y + 4, escape(title)))
    y += 24
    m = results.get("machine", {})
    parts.append('<text x="10" y="%d" font-size="11" fill="#555">%s</text>' % (
        y + 4, escape("%s · %s cores · %s · median of %s run(s)" % (
            m.get("cpu", "?"), m.get("nproc", "?"), m.get("memory", "?"),
            results.get("config", {}).get("RUNS", "?")))))
    y += 18
    panels = []
    for scen, sres in results.get("scenarios", {}).items():
        orders = []
        for c in sres.get("contenders", []):
            if c.get("keys", LEGACY_KEYS) not in orders:
                orders.append(c.get("keys", LEGACY_KEYS))
        for keys in orders:
            title = sres.get("title", scen) + ((", %s keys" % keys) if len(orders) > 1 else "")
            panels.append((scen, title, [c for c in sres["contenders"] if c.get("keys", LEGACY_KEYS) == keys]))
    for scen, title, cs in panels:
        cs = [c for c in cs if c.get("status") != "SKIPPED"]
        if not cs:
            continue
        op = scen in OP_SCENARIOS
        unit = "MB/s" if scen == "parse" or op else "rows/s"
        if scen == "memory":
            unit = "MiB"
        key = {"MB/s": "mb_per_s", "MiB": "peak_rss_mib"}.get(unit, "rows_per_s")
        vals = [c.get(key) or 0 for c in cs if c.get("status") == "ok"]
        stock = max([c.get("mb_per_s") or 0 for c in cs
                     if c.get("kind") == "stock" and c.get("status") == "ok"] or [0])
        cbest = max([c.get("rows_per_s") or 0 for c in cs
                     if c.get("kind") == "cloader" and c.get("status") == "ok"] or [0])
        vmax = max(vals) if vals and max(vals) > 0 else 1.0
        y += PANEL_GAP
        parts.append('<text x="10" y="%d" font-size="14" font-weight="bold">%s</text>' % (
            y, escape(title + " — " + ("MB/s of the database" if op else
                                                         "peak RSS" if unit == "MiB" else unit))))
        y += 8
        top = y
        height = ROW_H * len(cs)
        ref, ref_label = None, None
        if unit == "rows/s" and cbest > 0:
            ref, ref_label = cbest, "C best"
        elif op:
            if stock > 0:
                ref, ref_label = stock, "stock tools"
        elif unit == "MB/s":
            ref, ref_label = 300.0, "target 300 MB/s"
            vmax = max(vmax, 300.0)
        elif unit == "MiB":
            limit = results.get("config", {}).get("CACHE_MIB", 256) + RSS_HEADROOM_MIB
            ref, ref_label = limit, "limit %d MiB" % limit
            vmax = max(vmax, limit)
        if ref:
            x = LABEL_W + BAR_W * ref / vmax
            parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888" stroke-dasharray="4,3" '
                         'stroke-width="1"/>' % (x, top, x, top + height + 2))
            parts.append('<text x="%.1f" y="%d" font-size="10" fill="#555">%s</text>' % (
                x + 3, top + height + 12, ref_label))
        for c in cs:
            v = c.get(key) or 0
            failed = c.get("status") != "ok"
            label = c["label"] + (" [%s rows]" % "{:,}".format(c["rows"]) if c.get("small") else "")
            parts.append('<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>' % (
                LABEL_W - 8, y + 15, escape(label)))
            if failed:
                parts.append('<rect x="%d" y="%d" width="6" height="%d" fill="#e53e3e"/>' % (
                    LABEL_W, y + 4, ROW_H - 6))
                parts.append('<text x="%d" y="%d" font-size="12" fill="#e53e3e" font-weight="bold">'
                             'FAILED</text>' % (LABEL_W + 12, y + 15))
            else:
                w = max(1.0, BAR_W * v / vmax)
                parts.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
                    LABEL_W, y + 4, w, ROW_H - 6, COLORS.get(c.get("kind"), "#999")))
                txt = fmt(v, unit)
                if unit == "rows/s" and cbest > 0 and c.get("kind") != "cloader":
                    txt += "  (%.2fx C)" % (v / cbest)
                elif op and stock > 0 and c.get("kind") != "stock":
                    txt += "  (%.2fx stock)" % (v / stock)
                parts.append('<text x="%.1f" y="%d" font-size="11">%s</text>' % (
                    LABEL_W + w + 5, y + 15, escape(txt)))
            y += ROW_H
        if ref:
            y += 10
    y += 30
    legend_x = 10
    for kind, col in COLORS.items():
        parts.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (legend_x, y - 10, col))
        name = {"cloader": "C loader", "sqlite3": "sqlite3 .import", "python": "Python executemany",
                "stock": "sqlite3 + zstd CLIs"}.get(kind, kind)
        parts.append('<text x="%d" y="%d" font-size="12">%s</text>' % (legend_x + 16, y, escape(name)))
        legend_x += 30 + 8 * len(name)
    y += 14
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="Helvetica, Arial, sans-serif">\n<rect width="100%%" height="100%%" fill="#fff"/>\n%s\n</svg>\n'
           % (W, y, W, y, "\n".join(parts)))
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(d, "results.json")) as f:
        results = json.load(f)
    write_svg(results, os.path.join(d, "chart.svg"))
    print(os.path.join(d, "chart.svg"))


if __name__ == "__main__":
    main()
