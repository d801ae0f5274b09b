#!/usr/bin/env python3
"""Where a BenchBase run's client CPU went, from async-profiler's collapsed stacks (run.sh --profile).

Usage: cpu_share.py <run.collapsed> <commits> [label]

Prints one line (and, with --calls, the driver's samples by JDBC call): samples per 1,000 commits of the worker
threads, split by who owns the innermost frame that is not the JDK's (Flushless, pgjdbc, BenchBase; "other": the
JDK, the kernel or the JVM below a frame of none of them), the driver's share of the workers' samples, and the rest of
the process (JIT compiler, GC, other threads). One sample is one interval of CPU time (run.sh asks for 0.5 ms), so a
ratio between variants of one run compares CPU per commit without timing anything.
"""
import collections
import sys

OWNERS = (('dev/flushless', 'flushless'), ('org/postgresql', 'pgjdbc'), ('com/oltpbenchmark', 'benchbase'))


def owner(frame):
    for prefix, name in OWNERS:
        if frame.startswith(prefix):
            return name
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    calls_wanted = '--calls' in sys.argv
    path, commits = args[0], int(args[1])
    label = args[2] if len(args) > 2 else path
    workers = collections.Counter()
    rest = collections.Counter()
    calls = collections.Counter()
    for line in open(path, encoding='utf-8', errors='replace'):
        stack, _, count = line.rstrip('\n').rpartition(' ')
        if not stack:
            continue
        n = int(count)
        frames = stack.split(';')
        if not any('oltpbenchmark/api/Worker.run' in f for f in frames):
            joined = stack[:2000]
            kind = 'jit' if ('Compile' in joined or 'C2Compiler' in joined) else 'gc' if 'G1' in joined else 'other'
            rest[kind] += n
            continue
        who = 'other'
        for f in reversed(frames):
            o = owner(f)
            if o:
                who = o
                break
        workers[who] += n
        if who == 'flushless':
            outer = next(f for f in frames if f.startswith('dev/flushless'))
            calls[outer.rsplit('/', 1)[-1]] += n
    per = 1000.0 / max(commits, 1)
    total = sum(workers.values())
    share = 100.0 * workers['flushless'] / max(total, 1)
    parts = ' '.join(f'{k}={workers[k] * per:.2f}' for k in ('flushless', 'pgjdbc', 'benchbase', 'other'))
    others = ' '.join(f'{k}={rest[k] * per:.2f}' for k in ('jit', 'gc', 'other'))
    print(f'{label}\tcommits={commits}\tworkers={total * per:.2f} ({parts})\tdriver_share={share:.1f}%\t'
          f'rest: {others}')
    if calls_wanted:
        for call, n in calls.most_common(10):
            print(f'    {n * per:7.3f} {call}')


if __name__ == '__main__':
    main()
