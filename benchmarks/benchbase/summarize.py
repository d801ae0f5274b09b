#!/usr/bin/env python3
"""Summarizes a benchmarks/benchbase/run.sh results file (runs.tsv) as Markdown, one table per workload and isolation.

Each cell (terminals, delay) shows every variant's goodput and p95 as ratios to bare pgjdbc's in the same round. The
goodput is the run's commits per second over the measured window where run.sh recorded them (commits_per_s), else
BenchBase's own "Goodput", which also counts the warm-up's successes over the measured seconds
(mean over rounds when there are several), round trips per commit where the latency proxy counted them, and the
variants' round trips over the run as a ratio to bare's: a variant that sends bare's statements (batch mode on TPC-C's
small batches) and runs equally fast has 1.00 there whatever mix of transaction types each run drew. Cells
where a Flushless variant misses issue #26's bounds (goodput under 0.98x bare's, p95 over 1.05x) are marked with *.

    python3 benchmarks/benchbase/summarize.py benchmarks/results/<run>/runs.tsv
"""
import collections
import csv
import re
import sys


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def rate(row):
    """Successful transactions per second: the window's server commits where recorded, else BenchBase's goodput."""
    window = number(row.get("commits_per_s") or "")
    return window if window is not None else number(row["goodput"])


def field(pattern, text):
    m = re.search(pattern, text or "")
    return float(m.group(1)) if m else None


def main(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["isolation"] != "load"]
    cells = collections.defaultdict(lambda: collections.defaultdict(dict))  # (w, iso, t, d) -> round -> variant -> row
    for r in rows:
        cells[(r["workload"], r["isolation"], int(r["terminals"]), float(r["delay_ms"]))][r["round"]][r["variant"]] = r
    variants = []
    for r in rows:
        if r["variant"] != "bare" and r["variant"] not in variants:
            variants.append(r["variant"])
    groups = collections.defaultdict(list)
    for key in sorted(cells):
        groups[key[:2]].append(key)
    for (workload, isolation), keys in groups.items():
        print(f"\n{workload}, {isolation}\n")
        header = ["terminals", "D ms", "bare goodput"]
        for v in variants:
            header += [f"{v} goodput ×bare", f"{v} p95 ×bare"]
        header += ["round trips / commit (" + ", ".join(["bare"] + variants) + ")"]
        header += [f"{v} round trips ×bare" for v in variants]
        print("| " + " | ".join(header) + " |")
        print("|" + "".join("---|" if h.startswith("round trips /") else "---:|" for h in header))
        for key in keys:
            rounds = cells[key]
            bare_goodput = [rate(rounds[k]["bare"]) for k in rounds if "bare" in rounds[k]]
            line = [str(key[2]), f"{key[3]:g}", " / ".join(f"{g:,.0f}" if g >= 100 else f"{g:.1f}" for g in bare_goodput)]
            trips = {}
            for v in ["bare"] + variants:
                per_commit = []
                for k in rounds:
                    r = rounds[k].get(v)
                    if r:
                        total = field(r"roundTrips=(\d+)", r["round_trips"])
                        commits = field(r"commits=(\d+)", r["server"])
                        if total and commits:
                            per_commit.append(total / commits)
                trips[v] = "/".join(f"{x:.1f}" for x in per_commit) or "–"
            for v in variants:
                goodput, p95 = [], []
                for k in rounds:
                    bare, mine = rounds[k].get("bare"), rounds[k].get(v)
                    if bare and mine and rate(bare) and rate(mine) is not None:
                        goodput.append(rate(mine) / rate(bare))
                        if number(bare["p95_ms"]) and number(mine["p95_ms"]):
                            p95.append(number(mine["p95_ms"]) / number(bare["p95_ms"]))
                g = sum(goodput) / len(goodput) if goodput else None
                p = sum(p95) / len(p95) if p95 else None
                line.append("–" if g is None else f"{g:.2f}" + ("*" if round(g, 2) < 0.98 else ""))
                line.append("–" if p is None else f"{p:.2f}" + ("*" if round(p, 2) > 1.05 else ""))
            line.append(" / ".join(trips[v] for v in ["bare"] + variants))
            for v in variants:
                ratios = []
                for k in rounds:
                    bare, mine = rounds[k].get("bare"), rounds[k].get(v)
                    if bare and mine:
                        a, b = field(r"roundTrips=(\d+)", mine["round_trips"]), field(r"roundTrips=(\d+)", bare["round_trips"])
                        if a and b:
                            ratios.append(a / b)
                line.append("/".join(f"{x:.2f}" for x in ratios) or "–")
            print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "runs.tsv")
