#!/usr/bin/env python3
"""Where a BenchBase JVM's CPU goes, by thread: run beside benchmarks/benchbase/run.sh (Linux, same machine).

Polls /proc twice a second for java processes running benchbase.jar, and when one exits appends to OUT its run (the
config file's name, which run.sh makes from the workload, isolation, terminals, delay, variant and round) and its
threads' user+system CPU seconds summed by thread name with digits folded (the workers, the JIT's compiler threads,
GC threads, "java" the main thread). A thread that ends between two polls loses at most half a second.

    python3 benchmarks/benchbase/thread_cpu.py /tmp/threads.txt &
    benchmarks/benchbase/run.sh ...
"""
import collections
import os
import re
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def thread_class(name):
    return re.sub(r"\d+", "#", name)


def dump(out, pid, tag, threads):
    totals = collections.Counter()
    for name, ticks in threads.values():
        totals[thread_class(name)] += ticks
    with open(out, "a") as f:
        f.write(f"pid {pid} {tag} total {sum(totals.values()) / HZ:.1f}s\n")
        for name, ticks in totals.most_common():
            if ticks:
                f.write(f"  {ticks / HZ:7.2f} {name}\n")


def benchbase_jvms():
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"benchbase.jar" in cmd and b"java" in cmd.split(b"\0")[0]:
            args = cmd.split(b"\0")
            found[pid] = next((a.decode().rsplit("/", 1)[-1] for a in args if a.endswith(b".xml")), "")
    return found


def main(out):
    seen, tags = {}, {}
    while True:
        running = benchbase_jvms()
        for pid, tag in running.items():
            tags.setdefault(pid, tag)
            threads = seen.setdefault(pid, {})
            try:
                for tid in os.listdir(f"/proc/{pid}/task"):
                    try:
                        stat = open(f"/proc/{pid}/task/{tid}/stat").read()
                    except OSError:
                        continue
                    name = stat[stat.index("(") + 1 : stat.rindex(")")]
                    fields = stat[stat.rindex(")") + 2 :].split()
                    threads[tid] = (name, int(fields[11]) + int(fields[12]))
            except OSError:
                pass
        for pid in [p for p in seen if p not in running]:
            dump(out, pid, tags.pop(pid, ""), seen.pop(pid))
        time.sleep(0.5)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "threads.txt")
