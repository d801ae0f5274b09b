#!/usr/bin/env python3
"""Summarises run.sh's reports: per-mode totals, a per-class table, and every failure (or skip) of a
Flushless mode that bare pgjdbc does not have.

    summarize.py [--out FILE] [--all-classes] WORK_DIR MODE...

Reads WORK_DIR/reports/<MODE>/TEST-junit-jupiter.xml (the JUnit console launcher's legacy XML report).
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET


def load(work, mode):
    path = os.path.join(work, "reports", mode, "TEST-junit-jupiter.xml")
    tests = {}
    if not os.path.exists(path):
        return None
    for case in ET.parse(path).getroot().iter("testcase"):
        key = (case.get("classname"), case.get("name"))
        status, message = "passed", ""
        for tag in ("failure", "error"):
            node = case.find(tag)
            if node is not None:
                status = "failed"
                message = node.get("message") or (node.text or "").strip().split("\n")[0]
                message = "%s: %s" % ((node.get("type") or "").rsplit(".", 1)[-1], message)
        if status == "passed" and case.find("skipped") is not None:
            node = case.find("skipped")
            status = "skipped"
            message = node.get("message") or (node.text or "").strip().split("\n")[0]
        tests[key] = (status, " ".join(message.split())[:300])
    return tests


def read(work, mode, name):
    try:
        with open(os.path.join(work, "reports", mode, name)) as f:
            return f.read().strip()
    except OSError:
        return ""


def counts(tests):
    c = {"run": 0, "passed": 0, "failed": 0, "skipped": 0}
    for status, _ in tests.values():
        c["run"] += 1
        c[status] += 1
    return c


def short(cls):
    return cls.replace("org.postgresql.", "")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--all-classes", action="store_true", help="table every class, not only those with a failure")
    parser.add_argument("work")
    parser.add_argument("modes", nargs="+")
    args = parser.parse_args()

    results = {}
    for mode in args.modes:
        tests = load(args.work, mode)
        if tests is None:
            print("no report for mode %s" % mode, file=sys.stderr)
            continue
        results[mode] = tests
    modes = [m for m in args.modes if m in results]
    out = []
    w = out.append

    w("## Totals\n")
    w("| mode | run | passed | failed | skipped | seconds | settings |")
    w("|---|---:|---:|---:|---:|---:|---|")
    for mode in modes:
        c = counts(results[mode])
        settings = read(args.work, mode, "mode.txt").split(" ", 1)[1:] or [""]
        settings = " ".join(p.replace("-Dtest.url.", "").replace("-Dpgjdbcsuite.urlPrefix=", "url prefix ")
                            for p in settings[0].split())
        w("| %s | %d | %d | %d | %d | %s | %s |" % (mode, c["run"], c["passed"], c["failed"], c["skipped"],
                                                  read(args.work, mode, "seconds.txt"), settings or "jdbc:postgresql://"))
    w("")

    classes = sorted({cls for tests in results.values() for (cls, _) in tests})
    per_class = {}
    for mode in modes:
        for (cls, name), (status, _) in results[mode].items():
            c = per_class.setdefault((mode, cls), {"run": 0, "passed": 0, "failed": 0, "skipped": 0})
            c["run"] += 1
            c[status] += 1
    failing = [cls for cls in classes if any(per_class.get((m, cls), {}).get("failed", 0) for m in modes)]
    shown = classes if args.all_classes else failing
    w("## Per class%s\n" % ("" if args.all_classes else " (classes with a failure in any mode)"))
    w("run/passed/failed/skipped per mode.\n")
    w("| class | " + " | ".join(modes) + " |")
    w("|---|" + "---|" * len(modes))
    for cls in shown:
        cells = []
        for mode in modes:
            c = per_class.get((mode, cls))
            cells.append("-" if c is None else "%d/%d/%d/%d" % (c["run"], c["passed"], c["failed"], c["skipped"]))
        w("| %s | %s |" % (short(cls), " | ".join(cells)))
    w("")
    w("%d classes ran; %d had a failure in some mode.\n" % (len(classes), len(failing)))

    if "bare" in results:
        bare = results["bare"]
        for mode in modes:
            if mode == "bare":
                continue
            tests = results[mode]
            new_fail = sorted(k for k, (s, _) in tests.items() if s == "failed" and bare.get(k, ("?",))[0] != "failed")
            new_skip = sorted(k for k, (s, _) in tests.items() if s == "skipped" and bare.get(k, ("?",))[0] == "passed")
            fixed = sorted(k for k, (s, _) in tests.items() if s != "failed" and bare.get(k, ("?",))[0] == "failed")
            missing = sorted(set(bare) - set(tests))
            w("## %s: %d failures bare pgjdbc does not have\n" % (mode, len(new_fail)))
            for cls, name in new_fail:
                w("- `%s.%s`: %s" % (short(cls), name, tests[(cls, name)][1].replace("|", "\\|")))
            if new_skip:
                w("\nSkipped (assumption) in %s, passed bare:\n" % mode)
                for cls, name in new_skip:
                    w("- `%s.%s`: %s" % (short(cls), name, tests[(cls, name)][1]))
            if fixed:
                w("\nFailing bare, not in %s: %s" % (mode, ", ".join("`%s.%s`" % (short(c), n) for c, n in fixed)))
            if missing:
                w("\nRun bare, not in %s: %d tests" % (mode, len(missing)))
            w("")
        bare_fail = sorted(k for k, (s, _) in bare.items() if s == "failed")
        if bare_fail:
            w("## bare: %d failures\n" % len(bare_fail))
            for cls, name in bare_fail:
                w("- `%s.%s`: %s" % (short(cls), name, bare[(cls, name)][1].replace("|", "\\|")))
            w("")

    text = "\n".join(out) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
