#!/usr/bin/env bash
# Builds the driver and the benchmarks, runs the suite, and writes the results page.
#
#   benchmarks/run.sh                      short suite (under 10 minutes on 2 cores) on the embedded PostgreSQL
#   benchmarks/run.sh --long               long, precise suite (about an hour on 2 cores)
#   benchmarks/run.sh --paired             low-latency paired suite: bare pgjdbc against each Flushless mode in one fork
#                                          (W2-W6, W7 1-1,000 rows, W9, W8 1-64 threads; D=0, 0.25, 1 ms; about 18 minutes + build)
#   benchmarks/run.sh --paired --long      the same with 3 forks, D=0, 0.25, 1, 5 ms and more pairs (about 2 hours)
#   benchmarks/run.sh --bulk               bulk suite: Flushless (batch, transaction) against bare pgjdbc, reWriteBatchedInserts
#                                          and COPY in one fork (narrow and wide rows, 50-10,000 rows per batch, loads of
#                                          10,000 rows; D=0, 1 ms; estimated 10-15 minutes + build)
#   benchmarks/run.sh --bulk --long        the same at D=0, 0.25, 1, 5 ms with 2 forks, more rounds and loads of 100,000 rows
#                                          (estimated 2.5-3 hours)
#   benchmarks/run.sh --url 'jdbc:postgresql://host:5432/db?user=u&password=p'   any server
#   benchmarks/run.sh --testcontainers postgres|yugabytedb                       a container (needs Docker;
#                                          YugabyteDB's image: FLUSHLESS_YUGABYTE_IMAGE, default the newest pinned)
#
# Other options: --no-build (reuse benchmarks/target/benchmarks.jar), --results-only (do not touch docs/),
# and anything after `--` goes to JMH (e.g. `-- -p delayMs=1 W2`, which also replaces the default
# selection). JMH JSON, the per-trial counts and the log go to benchmarks/results/<UTC time>/; the
# chart tool then rewrites the results section of docs/benchmarks-suite.md and the PNGs in docs/benchmarks/
# (docs/benchmarks.md, the summary across runs, is written by hand).
# --paired writes to benchmarks/results/<UTC time>-paired/ and never touches docs/: its table (paired.md,
# also printed) comes from PairedReport. --bulk likewise writes benchmarks/results/<UTC time>-bulk/ with bulk.md
# (BulkReport); with `--`, the bulk sides are added unless the arguments name -p variants.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

long=false; paired=false; bulk=false; build=true; docs=true; url=""; container=""; extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --long) long=true ;;
    --paired) paired=true ;;
    --bulk) bulk=true ;;
    --no-build) build=false ;;
    --results-only) docs=false ;;
    --url) url="$2"; shift ;;
    --testcontainers) container="$2"; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [[ -n "$container" ]]; then
  case "$container" in postgres|yugabytedb) ;; *) echo "--testcontainers takes postgres or yugabytedb" >&2; exit 2 ;; esac
  # Without Docker the run is skipped (exit 0); FLUSHLESS_REQUIRE_DOCKER=true (CI) makes that a failure.
  skip_status=0
  [[ "${FLUSHLESS_REQUIRE_DOCKER:-}" == "true" ]] && skip_status=1
  if ! command -v docker >/dev/null 2>&1; then
    echo "[run.sh] SKIPPED --testcontainers $container: no docker CLI on this machine (Testcontainers needs a Docker engine)."
    exit $skip_status
  fi
  if ! docker info >/dev/null 2>&1; then
    echo "[run.sh] SKIPPED --testcontainers $container: the docker CLI is installed but no Docker engine answers"
    reason="$(docker info 2>&1 | grep -m1 -iE 'cannot connect|error' || true)"
    echo "         (${reason:-docker info failed})."
    echo "         Run against the embedded PostgreSQL (default) or --url instead."
    exit $skip_status
  fi
fi

if $build; then
  echo "[run.sh] building the driver (mvn -q -B install -DskipTests) and benchmarks/target/benchmarks.jar"
  mvn -q -B install -DskipTests
  (cd "$here" && mvn -q -B package)
fi
jar="$here/target/benchmarks.jar"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
$paired && stamp="$stamp-paired"
$bulk && stamp="$stamp-bulk"
out="$here/results/$stamp"
mkdir -p "$out"
counts="$out/counts.jsonl"

# CPU placement: the host JVM and the embedded PostgreSQL on CPU 0, the benchmark forks on the others.
cpus="$(nproc)"
host=(java)
jvm=()
if command -v taskset >/dev/null 2>&1 && [[ "$cpus" -ge 2 ]]; then
  if [[ "$cpus" -eq 2 ]]; then export FLUSHLESS_BENCH_CPUS="1"; else export FLUSHLESS_BENCH_CPUS="1-$((cpus - 1))"; fi
  host=(taskset -c 0 java)
  jvm=(-jvm "$here/pinned-java")
  placement="host JVM and embedded PostgreSQL pinned to CPU 0, benchmark forks to CPUs $FLUSHLESS_BENCH_CPUS"
else
  placement="no CPU pinning (taskset missing or one CPU)"
fi

target=()
[[ -n "$url" ]] && target=(--url "$url")
[[ -n "$container" ]] && target=(--testcontainers "$container")

run_jmh() { # name, JMH arguments...
  local name="$1"; shift
  echo "[run.sh] JMH run '$name': $*"
  "${host[@]}" -jar "$jar" "${target[@]}" --counts "$counts" "${jvm[@]}" -rf json -rff "$out/$name.json" "$@" \
    2>&1 | tee -a "$out/log.txt"
}

start=$(date +%s)
if $paired && $bulk; then
  echo "--paired and --bulk are separate suites; give one" >&2
  exit 2
fi
if $bulk; then
  # The bulk suite: LowLatencyPaired with five sides per fork (bare, rewrite, copy, flushless_batch,
  # flushless_transaction) on the bulk workloads (BulkInsert); the lowLatencyPair lines of counts.jsonl are the result.
  sides="rewrite+copy+flushless_batch+flushless_transaction"
  batches="narrow_50,narrow_100,narrow_1000,narrow_10000,wide_50,wide_100,wide_1000,wide_10000"
  if [[ ${#extra[@]} -gt 0 ]]; then
    if [[ " ${extra[*]} " == *" variants="* ]]; then
      run_jmh custom "${extra[@]}"
    else
      run_jmh custom -p "variants=$sides" "${extra[@]}"
    fi
    mode="bulk, custom: ${extra[*]}"
  elif $long; then
    run_jmh ping -p delays=0+0.25+1+5 ProxyDelayCheck
    run_jmh batches -f 2 -p variants=$sides -p workload=$batches,narrow_load_10000,wide_load_10000 \
      -p delayMs=0,0.25,1,5 -p pairs=20 -p blockMs=250 -p warmupMs=3000 LowLatencyPaired
    run_jmh loads -f 2 -p variants=$sides -p workload=narrow_load_100000,wide_load_100000 \
      -p delayMs=0,0.25,1,5 -p pairs=8 -p warmupMs=3000 LowLatencyPaired
    mode="bulk, long: 2 forks; LowLatencyPaired (narrow and wide, 50/100/1,000/10,000 rows per batch and loads of 10,000 rows, 20 rounds of 250 ms blocks; loads of 100,000 rows, 8 rounds of one load; bare + rewrite + copy + batch + transaction); D=0, 0.25, 1, 5 ms"
  else
    run_jmh ping -p delays=0+1 ProxyDelayCheck
    run_jmh batches -p variants=$sides -p workload=$batches,narrow_load_10000,wide_load_10000 \
      -p delayMs=0,1 -p pairs=8 -p maxWarmupMs=10000 LowLatencyPaired
    mode="bulk, short: 1 fork; LowLatencyPaired (narrow and wide, 50/100/1,000/10,000 rows per batch and loads of 10,000 rows; bare + rewrite + copy + batch + transaction) 8 rounds of 200 ms blocks, warm-up at most 10 s; D=0, 1 ms"
  fi
  elapsed=$(( $(date +%s) - start ))
  {
    echo "Bulk suite, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown): $mode; $elapsed s."
    echo "Machine: $cpus CPUs, $(java -version 2>&1 | head -n 1); $placement; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."
    echo
    "${host[@]}" -cp "$jar" dev.flushless.benchmarks.BulkReport --counts "$counts"
  } > "$out/bulk.md"
  cat "$out/bulk.md"
  echo "[run.sh] done in $elapsed s of benchmarking; results in benchmarks/results/$stamp (bulk.md, counts.jsonl, log.txt)"
  exit 0
fi
if $paired; then
  # The low-latency paired suite: every JMH trial holds bare pgjdbc and the Flushless variant(s) in one fork,
  # alternating blocks (see LowLatencyPaired, W8PairedThroughput); the JMH score is not the result, the
  # lowLatencyPair lines of counts.jsonl are. First the proxy's achieved delay (SELECT 1 pings).
  if [[ ${#extra[@]} -gt 0 ]]; then
    run_jmh custom "${extra[@]}"
    mode="paired, custom: ${extra[*]}"
  elif $long; then
    run_jmh ping -p delays=0+0.1+0.25+0.5+1+5 ProxyDelayCheck
    run_jmh single -f 3 -p delayMs=0,0.25,1,5 -p pairs=30 -p blockMs=250 -p warmupMs=3000 LowLatencyPaired
    run_jmh w8 -f 3 -p delayMs=0,0.25,1,5 -p pairs=12 -p blockMs=1000 -p warmupMs=4000 W8PairedThroughput
    mode="paired, long: 3 forks; LowLatencyPaired (W2, W3, W4 with commit and in autocommit, W5, W6, W7 1/10/100/1,000 rows, W9; bare + batch + transaction) 30 rounds of 250 ms blocks; W8PairedThroughput (1/4/16/64 threads, bare + group commit) 12 pairs of 1 s blocks; D=0, 0.25, 1, 5 ms"
  else
    run_jmh ping ProxyDelayCheck
    run_jmh single LowLatencyPaired
    run_jmh w8 W8PairedThroughput
    mode="paired, short: 1 fork; LowLatencyPaired (W2, W3, W4 with commit and in autocommit, W5, W6, W7 1/10/100/1,000 rows, W9; bare + batch + transaction) 16 rounds of 200 ms blocks; W8PairedThroughput (1/4/16/64 threads, bare + group commit) 8 pairs of 500 ms blocks; D=0, 0.25, 1 ms"
  fi
  elapsed=$(( $(date +%s) - start ))
  {
    echo "Low-latency paired suite, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown): $mode; $elapsed s."
    echo "Machine: $cpus CPUs, $(java -version 2>&1 | head -n 1); $placement; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."
    echo
    "${host[@]}" -cp "$jar" dev.flushless.benchmarks.PairedReport --counts "$counts"
  } > "$out/paired.md"
  cat "$out/paired.md"
  echo "[run.sh] done in $elapsed s of benchmarking; results in benchmarks/results/$stamp (paired.md, counts.jsonl, log.txt)"
  exit 0
fi
if [[ ${#extra[@]} -gt 0 ]]; then
  run_jmh custom "${extra[@]}"
  mode="custom: ${extra[*]}"
elif $long; then
  # Long: every workload, 2 forks x 5 measured iterations of 1 s after 3 warm-up iterations; W7 over 9
  # group sizes and three delays; the wrapper overhead with 6 forks x 10 iterations.
  run_jmh main -f 2 -wi 3 -w 1s -i 5 -r 1s 'W[1-5]|W6PointSelect'
  run_jmh sweep -f 2 -wi 3 -w 1s -i 5 -r 1s -p rows=1,3,10,30,100,300,1000,3000,10000 -p delayMs=0,1,5 W7
  run_jmh overhead -f 6 -wi 3 -w 1s -i 10 -r 1s W6WrapperOverhead
  run_jmh paired -p pairs=100 W6PairedOverhead
  mode="long: W1-W6 -f 2 -wi 3 -w 1s -i 5 -r 1s; W7 9 sizes x D=0,1,5 same settings; W6WrapperOverhead -f 6 -wi 3 -i 10 -r 1s; W6PairedOverhead 100 pairs x 1,000 SELECTs"
else
  # Short (default): one fork, one warm-up iteration of 1 s, two measured iterations of 0.5 s per
  # configuration; W7 at D=1 ms only; the wrapper overhead with its own settings (3 forks x 4 x 1 s)
  # and as a paired comparison in one fork (W6PairedOverhead).
  run_jmh main -f 1 -wi 1 -w 1s -i 2 -r 500ms 'W[1-5]|W6PointSelect|W7'
  run_jmh overhead W6WrapperOverhead
  run_jmh paired W6PairedOverhead
  mode="short: W1-W7 -f 1 -wi 1 -w 1s -i 2 -r 500ms (W7 at D=1 ms); W6WrapperOverhead -f 3 -wi 2 -w 1s -i 4 -r 1s; W6PairedOverhead 40 pairs x 1,000 SELECTs"
fi
elapsed=$(( $(date +%s) - start ))

jvmver="$(java -version 2>&1 | head -n 1)"
cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//' || true)"
mem="$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || true)"
server="$(grep -m1 -E '\[flushless bench\] (target|SKIPPED)' "$out/log.txt" | sed -e 's/.*\] //' -e 's/^target: //' || true)"
cmd="benchmarks/run.sh"
$long && cmd="$cmd --long"
[[ -n "$url" ]] && cmd="$cmd --url <url>"
[[ -n "$container" ]] && cmd="$cmd --testcontainers $container"
[[ ${#extra[@]} -gt 0 ]] && cmd="$cmd -- ${extra[*]}"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$root" diff --quiet HEAD -- src pom.xml benchmarks/src benchmarks/pom.xml 2>/dev/null || commit="$commit (with local changes)"
note="Run of $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit: \`$cmd\`, $mode; $elapsed s of benchmarking.
Machine: $cpus CPUs ($cpu), $mem; $jvmver; $placement. Target: $server.
Results: \`benchmarks/results/$stamp/\`."

chart=("${host[@]}" -Djava.awt.headless=true -cp "$jar" dev.flushless.benchmarks.ChartTool --counts "$counts" --note "$note")
for f in "$out"/*.json; do chart+=(--jmh "$f"); done
if $docs; then
  chart+=(--charts "$root/docs/benchmarks" --doc "$root/docs/benchmarks-suite.md")
else
  chart+=(--charts "$out/charts" --doc "$out/benchmarks.md")
fi
"${chart[@]}"
echo "[run.sh] done in $elapsed s of benchmarking; results in benchmarks/results/$stamp"
