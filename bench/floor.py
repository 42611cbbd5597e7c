#!/usr/bin/env python3
"""What SQLite alone takes to apply the bench's delta or re-run (bench/README.md, "The
delta's floor" and "Unchanged records"): the records staged in an attached in-memory
table, then one INSERT ... SELECT ... ON CONFLICT (id) DO UPDATE ... WHERE ... IS NOT ...
on a copy of the loaded template, timed with its commit (delta) or before a rollback
(re-run). No parsing, no sqlimport: a lower bound for any writer that goes through
SQLite's upsert.

  python3 bench/floor.py DATA_DIR delta|rerun [--journal off|memory|delete] [--order input,id,rowid]
"""
import argparse, json, os, shutil, sqlite3, subprocess, tempfile, time

COLUMNS = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt", "price", "qty", "active", "tags", "meta"]

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("scenario", choices=["delta", "rerun"])
    parser.add_argument("--journal", default="delete", choices=["off", "memory", "delete"])
    parser.add_argument("--order", default="input,id,rowid")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="floor-")
    database = os.path.join(work, "f.db")
    def fresh():
        shutil.copyfile(os.path.join(args.data, "templates", "loaded.db"), database)
        for suffix in ("-journal", "-wal"):
            if os.path.exists(database + suffix): os.remove(database + suffix)
        subprocess.run(["sync"])
    fresh()
    # Holds the shared in-memory staging database open while `db` is reopened.
    keeper = sqlite3.connect("file:stage?mode=memory&cache=shared", uri=True)
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA cache_size = -262144")
    db.execute("PRAGMA journal_mode = %s" % args.journal)
    db.execute("ATTACH 'file:stage?mode=memory&cache=shared' AS m")
    db.execute("CREATE TABLE m.input (%s)" % ", ".join(COLUMNS))
    rows = []
    with open(os.path.join(args.data, args.scenario + ".jsonl")) as f:
        for line in f:
            record = json.loads(line)
            rows.append(tuple(json.dumps(v, separators=(",", ":"), ensure_ascii=False) if isinstance(v, (list, dict)) else v
                              for v in (record.get(c) for c in COLUMNS)))
    db.executemany("INSERT INTO m.input VALUES (%s)" % ", ".join("?" * len(COLUMNS)), rows)
    del rows
    db.execute("CREATE TABLE m.id AS SELECT * FROM m.input ORDER BY id")
    db.execute("CREATE TABLE m.rowid AS SELECT s.* FROM m.input s LEFT JOIN items i ON i.id = s.id ORDER BY i.rowid")
    assigned = [c for c in COLUMNS if c not in ("id", "libraryID", "remoteID")]
    sql = "INSERT INTO items SELECT * FROM m.\"%%s\" WHERE true ON CONFLICT (id) DO UPDATE SET %s WHERE %s" % (
        ", ".join("%s = excluded.%s" % (c, c) for c in assigned), " OR ".join("%s IS NOT excluded.%s" % (c, c) for c in assigned))
    for order in args.order.split(","):
        table = {"input": "input", "id": "id", "rowid": "rowid"}[order]
        db.execute("BEGIN")
        start = time.time()
        db.execute(sql % table)
        if args.scenario == "delta":
            db.execute("COMMIT")
            elapsed = time.time() - start
            db.close()
            fresh()
            db = sqlite3.connect(database, isolation_level=None)
            db.execute("PRAGMA cache_size = -262144")
            db.execute("PRAGMA journal_mode = %s" % args.journal)
            db.execute("ATTACH 'file:stage?mode=memory&cache=shared' AS m")
        else:
            elapsed = time.time() - start
            db.execute("ROLLBACK")
        print("%s %s journal=%s order=%s %.2f s" % (args.scenario, os.path.basename(args.data), args.journal, order, elapsed))
    keeper.close()
    shutil.rmtree(work)

if __name__ == "__main__":
    main()
