#!/usr/bin/env bash
# Before/after benchmark for issue #18: W1-W6 (bare, flushless_batch, flushless_transaction; D=0 and 1 ms),
# 88ab288 (before the restructuring) against HEAD, alternating A B A B, one fork each.
set -euo pipefail
cd /work/main
after=$(git rev-parse --short HEAD)
echo "after=$after" > /tmp/bench-ab/commits.txt
mvn -q -B install -DskipTests -Dspotless.check.skip=true
(cd benchmarks && mvn -q -B package)
cp benchmarks/target/benchmarks.jar /tmp/bench-ab/after.jar
rm -rf /work/wt/before && git worktree add -q --detach /work/wt/before 88ab288
(cd /work/wt/before && mvn -q -B install -DskipTests && cd benchmarks && mvn -q -B package)
cp /work/wt/before/benchmarks/target/benchmarks.jar /tmp/bench-ab/before.jar
cp /work/main/benchmarks/pinned-java /tmp/bench-ab/pinned-java
echo "before=88ab288" >> /tmp/bench-ab/commits.txt
# the root artifact back to HEAD's (the examples' builds use the installed one)
mvn -q -B install -DskipTests -Dspotless.check.skip=true
export FLUSHLESS_BENCH_CPUS=1
for round in 1 2; do
  for side in before after; do
    echo "[ab] round $round $side $(date -u +%H:%M:%S)"
    taskset -c 0 java -jar /tmp/bench-ab/$side.jar --counts /tmp/bench-ab/counts-$side-$round.jsonl \
      -jvm /tmp/bench-ab/pinned-java -rf json -rff /tmp/bench-ab/$side-$round.json \
      -f 1 -wi 2 -w 1s -i 3 -r 1s -p variant=bare,flushless_batch,flushless_transaction -p delayMs=0,1 \
      'W[1-5]|W6PointSelect' > /tmp/bench-ab/$side-$round.log 2>&1
  done
done
echo "[ab] done $(date -u +%H:%M:%S)"
