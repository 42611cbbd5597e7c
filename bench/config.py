"""Settings from the environment, and the constants every module of the benchmark shares.

The variables and their defaults are listed in bench/README.md ("Settings").
"""
import datetime
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ALL_SCENARIOS = ["first", "rerun", "delta", "csv", "parse", "export", "snapshot", "restore", "memory"]
# Scenarios that run on every key order in KEYS; the others run on the uuid data only.
IMPORT_SCENARIOS = ("first", "rerun", "delta", "csv")
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
# Peak RSS target: sqlimport's page cache (CACHE_MIB) plus this much.
RSS_HEADROOM_MIB = 128

# Key orders of the generated primary keys (gen.py --keys): the same rows, other ids.
KEY_ORDERS = ("uuid", "sequential")
KEY_TITLES = {"uuid": "uuid keys (random UUIDv4 text)",
              "sequential": "sequential keys (itm-0000000001, ...)"}
# The targets are evaluated on this key order.
TARGET_KEYS = "uuid"
# A results.json from before key orders (no "keys" in its results): gen.py then wrote
# sequential keys only.
LEGACY_KEYS = "sequential"


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


class Config:
    """The run's settings, read from the environment."""

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
        kv = os.environ.get("KEYS", "").replace(" ", "").strip(",") or ",".join(KEY_ORDERS)
        self.keys = []
        for k in kv.split(","):
            if k not in KEY_ORDERS:
                sys.exit("KEYS: unknown key order %r (known: %s)" % (k, ",".join(KEY_ORDERS)))
            if k not in self.keys:
                self.keys.append(k)
        # parse, export, snapshot, restore and memory run on this one
        self.main_keys = TARGET_KEYS if TARGET_KEYS in self.keys else self.keys[0]
        rd = os.environ.get("RESULTS_DIR")
        if not rd:
            now = datetime.datetime.now()
            rd = os.path.join(HERE, "results", now.strftime("%Y-%m-%d"))
            if os.path.exists(rd):
                rd += now.strftime("_%H%M%S")
        self.results = rd

    def data_dir(self, keys):
        """The data set of one key order, e.g. bench/work/data-n1000000-s42-uuid."""
        return os.path.join(self.work, "data-n%d-s%d-%s" % (self.n, self.seed, keys))

    def keys_for(self, scenario):
        """The key orders a scenario runs on."""
        return list(self.keys) if scenario in IMPORT_SCENARIOS else [self.main_keys]

    def selects(self, key, label, aliases=()):
        """Whether CONTENDERS (substrings of a key, label or alias) lets this contender run.
        The parse and memory runs use sqlimport's default strategy: alias sqlimport-auto."""
        names = [key.lower(), label.lower()] + [a.lower() for a in aliases]
        return not self.contender_filter or any(f in n for f in self.contender_filter for n in names)
