#!/usr/bin/env python3
"""Deterministic, seeded data generator for the sqlimport benchmark.

Standard library only; streams every file to disk in one pass, so memory stays
constant whatever N is (N=10,000,000 writes ~3.8 GB of JSONL).

Writes into OUTDIR:
  base.jsonl   N rows (~400 bytes/row); ids are random UUIDv4 text by default
               (--keys sequential: itm-0000000001, ...)
  base.csv     the same rows as CSV (header; tags/meta as JSON text; NULL = empty field)
  base.tsv     the same rows pre-parsed for the C loader (see cloader.c):
               one row per line, 11 tab-separated fields, \\N = NULL,
               backslash escapes \\\\ \\t \\n
  delta.jsonl  N/10 existing keys changed (newer updatedAt) interleaved with
               N/10 new keys  (0.2*N lines)
  delta.csv    same as CSV
  delta.tsv    same, pre-parsed for the C loader
  rerun.jsonl  a byte-identical copy of base.jsonl (the "re-run" input)
  manifest.json  sizes, row counts and the expected checksum of the table
               after loading base and after applying delta on top of it.

With --small M (M < N, M a multiple of 10) it also writes small/ with the
same files for the first M rows (used for slow contenders such as
sqlite-utils): small/base.* are the first M rows of base.*, small/delta.* the
first 0.2*M lines of delta.*; their expected checksums are in the manifest.

The checksum is the result of CHECKSUM_SQL (below) run on the table; it is
order-independent and made only of integers, so it compares exactly.
"""
import argparse
import csv
import json
import os
import random
import shutil
import sys
import time

GEN_VERSION = 4

COLUMNS = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt",
           "price", "qty", "active", "tags", "meta"]

# Every aggregate is an integer so the expected value compares exactly.
CHECKSUM_SQL = """SELECT
 count(*),
 sum(length(id)),
 sum(length(name)),
 sum(unicode(name)),
 sum(libraryID),
 count(remoteID),
 sum(length(remoteID)),
 count(notes),
 sum(length(notes)),
 sum(length(notes) - length(replace(notes, char(10), ''))),
 sum(CAST(strftime('%s', updatedAt) AS INTEGER)),
 sum(length(updatedAt)),
 count(price),
 sum(CAST(round(price * 100) AS INTEGER)),
 count(qty),
 sum(qty),
 count(active),
 sum(active),
 sum(json_array_length(tags)),
 sum(json_extract(meta, '$.dims.w')),
 sum(length(json_extract(meta, '$.color'))),
 sum(typeof(price) = 'real'),
 sum(typeof(qty) = 'integer')
FROM items"""
CHECKSUM_NAMES = [
    "rows", "len_id", "len_name", "unicode_name", "sum_libraryID",
    "n_remoteID", "len_remoteID", "n_notes", "len_notes", "newlines_notes",
    "epoch_updatedAt", "len_updatedAt", "n_price", "cents_price", "n_qty",
    "sum_qty", "n_active", "sum_active", "n_tags", "meta_dims_w",
    "len_meta_color", "n_real_price", "n_int_qty"]

FIRST = ["Anna", "Björn", "Chloé", "Dmitri", "Émile", "François", "Grete",
         "Håkon", "Ingrid", "José", "Kōji", "Łukasz", "Mårten", "Nuño",
         "Oğuz", "Paulo", "Quentin", "Renée", "Søren", "Tomás", "Ulrike",
         "Václav", "Wiktor", "Xiù", "Yusuf", "Zoë", "李", "さくら", "Олег",
         "Ελένη", "محمد", "Alex", "Sam", "Jordan", "Taylor", "Morgan"]
LAST = ["Smith", "Müller", "García", "Nguyễn", "O'Brien", "Øster", "Zółw",
        "Dubois", "Rossi", "Kowalski", "Johansson", "Papadopoulos", "Tanaka",
        "Ivanov", "Schröder", "Fernández", "Brown", "Lee", "Martin", "Khan"]
PRODUCT = ["Widget", "Gadget", "Sprocket", "Gizmo", "Doohickey", "Thingamajig",
           "Crème brûlée", "Smörgåsbord", "Jalapeño", "Piñata", "Café au lait",
           "Naïve tote", "Über cable", "Façade kit", "Fjällräven-ish bag"]
WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do "
         "eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad "
         "minim veniam quis nostrud exercitation ullamco laboris nisi aliquip "
         "ex ea commodo consequat duis aute irure in reprehenderit voluptate "
         "velit esse cillum fugiat nulla pariatur excepteur sint occaecat "
         "cupidatat non proident sunt culpa qui officia deserunt mollit anim "
         "id est laborum").split()
TAGS = ["red", "green", "blue", "sale", "new", "clearance", "eco", "b2b",
        "gift", "fragile", "bulk", "seasonal", "imported", "local", "vip"]
COLORS = ["red", "green", "blue", "black", "white", "silver", "gold", "teal",
          "magenta", "ochre"]
SOURCES = ["import", "api", "manual", "sync", "migration"]

T0 = 1704067200  # 2024-01-01T00:00:00Z
YEAR = 366 * 86400


def iso(t, ms):
    s = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
    if ms is None:
        return s + "Z"
    return "%s.%03dZ" % (s, ms)


def make_name(r):
    k = r.random()
    if k < 0.10:
        # comma inside: "Last, First"
        return "%s, %s" % (r.choice(LAST), r.choice(FIRST))
    if k < 0.16:
        # embedded double quotes
        return '%s "%s" %s' % (r.choice(PRODUCT), r.choice(WORDS), r.choice(LAST))
    if k < 0.18:
        return "%s %s 🙂" % (r.choice(FIRST), r.choice(LAST))
    if k < 0.60:
        return "%s %s" % (r.choice(FIRST), r.choice(LAST))
    return "%s %s #%d" % (r.choice(PRODUCT), r.choice(WORDS), r.randrange(1000))


def make_notes(r):
    k = r.random()
    if k < 0.15:
        return None
    n = r.randrange(8, 22)
    words = [r.choice(WORDS) for _ in range(n)]
    if k < 0.30:
        # multi-line note
        cut = r.randrange(1, n)
        words[cut] = words[cut] + "\n"
        if k < 0.20:
            cut2 = r.randrange(1, n)
            words[cut2] = words[cut2] + "\n"
    elif k < 0.40:
        words[r.randrange(n)] += ","
        words[r.randrange(n)] = '"%s"' % words[r.randrange(n)]
    s = " ".join(words).replace("\n ", "\n")
    return s[0].upper() + s[1:] + "."


def make_row(r, i, key, lib=None, remote=None, t_min=None):
    """One record as a dict (insertion order = COLUMNS)."""
    if lib is None:
        lib = r.randrange(1, 51)
        if r.random() < 0.02:
            remote = None
        else:
            remote = "rm-%08x-%d" % (r.getrandbits(32), i)
    if t_min is None:
        t = T0 + r.randrange(YEAR)
    else:
        t = t_min + r.randrange(60, 30 * 86400)
    ms = r.randrange(1000) if r.random() < 0.5 else None
    cents = r.randrange(50, 100000) if r.random() >= 0.03 else None
    if cents is None:
        price = None
    elif cents % 100 == 0:
        price = cents // 100          # integral price written as an integer
    else:
        price = cents / 100
    qty = r.randrange(0, 501) if r.random() >= 0.05 else None
    a = r.random()
    active = None if a < 0.03 else (a < 0.70)
    tags = r.sample(TAGS, r.randrange(0, 5))
    meta = {"color": r.choice(COLORS), "score": round(r.random(), 3),
            "source": r.choice(SOURCES),
            "dims": {"w": r.randrange(1, 200), "h": r.randrange(1, 200)},
            "rev": r.randrange(1, 10)}
    row = {"id": key, "name": make_name(r), "libraryID": lib,
           "remoteID": remote, "notes": make_notes(r),
           "updatedAt": iso(t, ms), "price": price, "qty": qty,
           "active": active, "tags": tags, "meta": meta}
    return row, t, cents


class Acc:
    """Integer aggregates matching CHECKSUM_SQL, maintained incrementally."""
    __slots__ = ("v",)

    def __init__(self):
        self.v = [0] * len(CHECKSUM_NAMES)

    def add(self, row, t, cents, sign=1):
        v = self.v
        v[0] += sign
        v[1] += sign * len(row["id"])
        v[2] += sign * len(row["name"])
        v[3] += sign * ord(row["name"][0])
        v[4] += sign * row["libraryID"]
        rm = row["remoteID"]
        if rm is not None:
            v[5] += sign
            v[6] += sign * len(rm)
        n = row["notes"]
        if n is not None:
            v[7] += sign
            v[8] += sign * len(n)
            v[9] += sign * n.count("\n")
        v[10] += sign * t
        v[11] += sign * len(row["updatedAt"])
        if cents is not None:
            v[12] += sign
            v[13] += sign * cents
            v[21] += sign
        q = row["qty"]
        if q is not None:
            v[14] += sign
            v[15] += sign * q
            v[22] += sign
        a = row["active"]
        if a is not None:
            v[16] += sign
            v[17] += sign * int(a)
        v[18] += sign * len(row["tags"])
        v[19] += sign * row["meta"]["dims"]["w"]
        v[20] += sign * len(row["meta"]["color"])

    def copy(self):
        c = Acc()
        c.v = list(self.v)
        return c

    def combine(self, other, sign=1):
        c = self.copy()
        for k, x in enumerate(other.v):
            c.v[k] += sign * x
        return c

    def as_dict(self):
        return dict(zip(CHECKSUM_NAMES, self.v))


def tsv_field(x):
    if x is None:
        return "\\N"
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, (int, float)):
        return repr(x)
    return x.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


class Writers:
    def __init__(self, d, prefix):
        os.makedirs(d, exist_ok=True)
        self.j = open(os.path.join(d, prefix + ".jsonl"), "w", encoding="utf-8", newline="\n")
        self.cf = open(os.path.join(d, prefix + ".csv"), "w", encoding="utf-8", newline="")
        self.c = csv.writer(self.cf, lineterminator="\n")
        self.c.writerow(COLUMNS)
        self.t = open(os.path.join(d, prefix + ".tsv"), "w", encoding="utf-8", newline="\n")

    def write(self, row):
        self.j.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
        self.j.write("\n")
        tags = json.dumps(row["tags"], ensure_ascii=False, separators=(",", ":"))
        meta = json.dumps(row["meta"], ensure_ascii=False, separators=(",", ":"))
        a = row["active"]
        self.c.writerow([row["id"], row["name"], row["libraryID"], row["remoteID"],
                         row["notes"], row["updatedAt"], row["price"], row["qty"],
                         None if a is None else int(a), tags, meta])
        self.t.write("\t".join([
            tsv_field(row["id"]), tsv_field(row["name"]), str(row["libraryID"]),
            tsv_field(row["remoteID"]), tsv_field(row["notes"]),
            row["updatedAt"], tsv_field(row["price"]), tsv_field(row["qty"]),
            tsv_field(a), tsv_field(tags), tsv_field(meta)]))
        self.t.write("\n")

    def close(self):
        self.j.close()
        self.cf.close()
        self.t.close()


def sequential_key(i):
    return "itm-%010d" % i


def uuid_keys(seed):
    """UUIDv4 text keys, as the seeds' schema makes with uuid(): random order.

    Drawn from their own seeded stream, so that the rows' other values are the same
    whatever the key order."""
    kr = random.Random(seed ^ 0x5EED)

    def key(_i):
        b = kr.getrandbits(128)
        b = (b & ~(0xF << 76)) | (0x4 << 76)          # version 4
        b = (b & ~(0x3 << 62)) | (0x2 << 62)          # RFC 4122 variant
        h = "%032x" % b
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return key


def generate(n, seed, outdir, small, keys="uuid"):
    key = uuid_keys(seed) if keys == "uuid" else sequential_key
    if n % 10:
        sys.exit("N must be a multiple of 10")
    if small and (small % 10 or small >= n):
        small = 0
    r = random.Random(seed)
    base_w = Writers(outdir, "base")
    delta_w = Writers(outdir, "delta")
    sdir = os.path.join(outdir, "small")
    if small:
        sbase_w = Writers(sdir, "base")
        sdelta_w = Writers(sdir, "delta")
    base = Acc()        # table after loading base
    dchg = Acc()        # (new - old) for the changed keys
    dnew = Acc()        # the new keys
    snap = None
    t_start = time.time()
    for i in range(n):
        if small and i == small:
            snap = (base.copy(), dchg.copy(), dnew.copy())
            sbase_w.close()
            sdelta_w.close()
        row, t, cents = make_row(r, i, key(i))
        base.add(row, t, cents)
        base_w.write(row)
        if small and i < small:
            sbase_w.write(row)
        if i % 10 == 0:
            # a changed version of an existing key: same identity, newer updatedAt
            ch, t2, c2 = make_row(r, i, row["id"], lib=row["libraryID"],
                                  remote=row["remoteID"], t_min=t)
            dchg.add(row, t, cents, -1)
            dchg.add(ch, t2, c2)
            j = i // 10
            nw, t3, c3 = make_row(r, n + j, key(n + j))
            dnew.add(nw, t3, c3)
            delta_w.write(ch)
            delta_w.write(nw)
            if small and i < small:
                sdelta_w.write(ch)
                sdelta_w.write(nw)
        if i and i % 1000000 == 0:
            el = time.time() - t_start
            print("gen: %d rows, %.0f s" % (i, el), file=sys.stderr, flush=True)
    base_w.close()
    delta_w.close()
    shutil.copyfile(os.path.join(outdir, "base.jsonl"), os.path.join(outdir, "rerun.jsonl"))

    def sizes(d):
        return {f: os.path.getsize(os.path.join(d, f)) for f in sorted(os.listdir(d))
                if os.path.isfile(os.path.join(d, f))}

    man = {
        "gen_version": GEN_VERSION, "n": n, "seed": seed, "keys": keys, "small": small or None,
        "delta_rows": 2 * (n // 10), "checksum_sql": CHECKSUM_SQL,
        "checksum_names": CHECKSUM_NAMES,
        "expected": {
            "empty": Acc().as_dict(),
            "base": base.as_dict(),
            "delta": base.combine(dchg).combine(dnew).as_dict(),
        },
        "sizes": sizes(outdir),
    }
    if small:
        sb, sc, sn = snap
        man["small_expected"] = {
            "empty": Acc().as_dict(),
            "base": sb.as_dict(),
            "delta": sb.combine(sc).combine(sn).as_dict(),
        }
        shutil.copyfile(os.path.join(sdir, "base.jsonl"), os.path.join(sdir, "rerun.jsonl"))
        man["small_sizes"] = sizes(sdir)
        man["small_delta_rows"] = 2 * (small // 10)
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(man, f, indent=2)
    print("gen: done, %d rows in %.1f s" % (n, time.time() - t_start), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--small", type=int, default=0)
    ap.add_argument("--keys", choices=["uuid", "sequential"], default="uuid",
                    help="primary keys: random UUIDv4 text, as real apps have (default), "
                         "or sequential itm-0000000001 (every insert appends)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    generate(a.n, a.seed, a.out, a.small, a.keys)


if __name__ == "__main__":
    main()
