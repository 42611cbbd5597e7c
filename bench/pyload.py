#!/usr/bin/env python3
"""Python sqlite3 contender: parse the input and `executemany` an upsert.

  pyload.py DB FILE jsonl|csv

Same tuned pragmas as the C loader (WAL, synchronous=NORMAL, cache_size 1 GiB,
temp_store=MEMORY), one transaction, `INSERT ... ON CONFLICT(id) DO UPDATE`.
Rows are streamed from a generator, so memory stays flat.
"""
import csv
import json
import sqlite3
import sys

COLS = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt",
        "price", "qty", "active", "tags", "meta"]
SQL = ("INSERT INTO items(%s) VALUES (%s) ON CONFLICT(id) DO UPDATE SET %s"
       % (",".join(COLS), ",".join("?" * len(COLS)),
          ",".join("%s=excluded.%s" % (c, c) for c in COLS[1:])))


def jsonl_rows(path):
    dumps = json.dumps
    loads = json.loads
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            o = loads(line)
            tags = o.get("tags")
            meta = o.get("meta")
            price = o.get("price")
            yield (o["id"], o.get("name", ""), o["libraryID"], o.get("remoteID"),
                   o.get("notes"), o["updatedAt"],
                   None if price is None else float(price),
                   o.get("qty"), o.get("active"),
                   None if tags is None else dumps(tags, ensure_ascii=False, separators=(",", ":")),
                   None if meta is None else dumps(meta, ensure_ascii=False, separators=(",", ":")))


def csv_rows(path):
    def i(x):
        return None if x == "" else int(x)

    def fl(x):
        return None if x == "" else float(x)

    def s(x):
        return None if x == "" else x

    with open(path, encoding="utf-8", newline="") as f:
        r = csv.reader(f)
        header = next(r)
        if header != COLS:
            sys.exit("pyload: unexpected CSV header %r" % header)
        for row in r:
            yield (row[0], row[1], int(row[2]), s(row[3]), s(row[4]), row[5],
                   fl(row[6]), i(row[7]), i(row[8]), s(row[9]), s(row[10]))


def main():
    db, path, fmt = sys.argv[1:4]
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("PRAGMA cache_size=-1048576")
    con.execute("PRAGMA temp_store=MEMORY")
    rows = jsonl_rows(path) if fmt == "jsonl" else csv_rows(path)
    con.execute("BEGIN")
    cur = con.executemany(SQL, rows)
    con.execute("COMMIT")
    print(cur.rowcount)
    con.close()


if __name__ == "__main__":
    main()
