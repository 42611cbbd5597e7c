#!/usr/bin/env python3
"""Benchmark driver for sqlimport (standard library only).

  bench.py                 run the benchmark (configured by the environment, see
                           bench/README.md); normally started by bench/run.sh
  bench.py --report DIR    rebuild DIR/report.md and DIR/chart.svg from DIR/results.json

Modules: config.py (settings), data.py (data sets, templates, checks), contenders.py
(who runs, with which command), runner.py (timed runs, scenarios), report.py (targets,
report.md, summary), chart.py (chart.svg).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import runner  # noqa: E402
from config import Config, log, rel  # noqa: E402


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--report":
        d = sys.argv[2]
        with open(os.path.join(d, "results.json")) as f:
            results = json.load(f)
        print(report.write_report(d, results))
        return
    cfg = Config()
    results = runner.run_benchmark(cfg)
    print(report.write_report(cfg.results, results))
    log("report: %s" % rel(os.path.join(cfg.results, "report.md")))


if __name__ == "__main__":
    main()
