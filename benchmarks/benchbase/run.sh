#!/usr/bin/env bash
# BenchBase (github.com/cmu-db/benchbase, which nobody on this project wrote) as a benchmark of Flushless.
#
# Runs BenchBase's workloads against one PostgreSQL server with bare pgjdbc, pgjdbc with reWriteBatchedInserts=true,
# and Flushless in batch and transaction mode, alternating the variants inside every round, at several terminal
# counts and one-way delays (the project's latency proxy in front of the server), and writes one TSV line per run:
# goodput, latency percentiles, the proxy's round trips, the Flushless report and, for TPC-C, its consistency
# conditions checked after the run; for --load-only, the CPU seconds the local server's processes used (reaped backends
# included; the server column, when the server runs on this machine). Nothing of BenchBase is part of this project: point BENCHBASE_HOME at an unpacked
# build of it (docs/benchmarks.md, "BenchBase", says how to build one). Not run in CI.
#
#   BENCHBASE_HOME=/path/to/benchbase-postgres benchmarks/benchbase/run.sh [options]
#
# Options (defaults in brackets):
#   --workloads LIST     tpcc,smallbank,voter                  [tpcc]
#   --terminals LIST     terminal counts                       [1,4,16]
#   --delays LIST        one-way delays in ms (0: no proxy)    [0]
#   --variants LIST      bare,rewrite,batch,transaction        [bare,rewrite,batch,transaction]
#                        (also batch_copy, batch_nocopy: batch mode with flushless.copy=always or off; batch_before:
#                        batch mode with the classes in $FLUSHLESS_BEFORE_CLASSES ahead of the jar, an earlier build's
#                        target/classes, for before/after pairs in one run; transaction_before: the same in transaction
#                        mode; off: Flushless with flushless.mode=off, the wrapper's own cost)
#   --isolation LEVEL    SERIALIZABLE|REPEATABLE_READ|READ_COMMITTED (as BenchBase's TRANSACTION_*) [SERIALIZABLE]
#   --time SECONDS       execute phase per run                 [30]
#   --warmup SECONDS     BenchBase warm-up before measuring    [5]
#   --weights LIST       the workload's transaction weights (e.g. 100,0,0,0,0: TPC-C NewOrder alone, for round
#                        trips per transaction type)          [the sample config's]
#   --rounds N           rounds over every cell                [1]
#   --scale N            scale factor (TPC-C: warehouses)      [4]
#   --load-only          time the loader instead: every variant loads into a fresh database, --rounds times
#   --reload             drop and load the template databases again
#   --server URL         jdbc:postgresql://host:port/ of the server [jdbc:postgresql://127.0.0.1:5432/]
#   --user NAME          database user (trust or password auth) [postgres]
#   --password PW        its password                          []
#   --no-build           use the driver jar already built in target/
#   --out DIR            results directory                     [benchmarks/results/<UTC time>-benchbase]
#   Each run's line also has, over the measured window: the client JVM's cores, its CPU µs per measured request, the
#   machine's busy cores (client_cores, client_us_per_req, machine_cores; from /proc, the client on this machine) and
#   the run's database's commits per second (commits_per_s, pg_stat_database: the transactions that succeeded in the
#   window). BenchBase's own "Goodput" counts the successes of the warm-up too (its workers' success histograms are
#   never reset) over the measured seconds only; its "Throughput" counts the window's transactions, failed ones too.
#   --profile            profile each run's client CPU with async-profiler (tools.profiler:async-profiler from Maven
#                        Central, into benchmarks/target): <run>.collapsed, and one line per run in cpu-share.tsv
#                        (cpu_share.py: the workers' CPU samples per 1,000 commits by owner, the driver's share)
#   BENCHBASE_JAVA_OPTS  extra JVM options for BenchBase (e.g. -XX:StartFlightRecording=filename=/tmp/x.jfr)
#   --long               the issue's full matrix: tpcc,smallbank,voter at 1,4,16,64 terminals, delays 0,0.5,2,
#                        60 s runs, 2 rounds
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

workloads=tpcc terminals=1,4,16 delays=0 variants=bare,rewrite,batch,transaction isolation=SERIALIZABLE
time_s=30 warmup_s=5 weights= rounds=1 scale=4 load_only=false reload=false build=true profile=false
server=jdbc:postgresql://127.0.0.1:5432/ user=postgres password= out=
command_line="$0 $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --workloads) workloads=$2; shift ;;
    --terminals) terminals=$2; shift ;;
    --delays) delays=$2; shift ;;
    --variants) variants=$2; shift ;;
    --isolation) isolation=$2; shift ;;
    --time) time_s=$2; shift ;;
    --warmup) warmup_s=$2; shift ;;
    --weights) weights=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --scale) scale=$2; shift ;;
    --load-only) load_only=true ;;
    --reload) reload=true ;;
    --server) server=$2; shift ;;
    --user) user=$2; shift ;;
    --password) password=$2; shift ;;
    --no-build) build=false ;;
    --profile) profile=true ;;
    --out) out=$2; shift ;;
    --long) workloads=tpcc,smallbank,voter terminals=1,4,16,64 delays=0,0.5,2 time_s=60 rounds=2 ;;
    -h|--help) sed -n '2,47p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

: "${BENCHBASE_HOME:?set BENCHBASE_HOME to an unpacked BenchBase postgres build (benchbase.jar, lib/, config/)}"
[[ -f "$BENCHBASE_HOME/benchbase.jar" ]] || { echo "no benchbase.jar in $BENCHBASE_HOME" >&2; exit 2; }
java_bin=${BENCHBASE_JAVA:-}
if [[ -z "$java_bin" ]]; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/java /usr/lib/jvm/temurin-21-jdk-amd64/bin/java; do
    [[ -x "$j" ]] && { java_bin=$j; break; }
  done
fi
java_bin=${java_bin:-java}
"$java_bin" -version 2>&1 | head -1 | grep -Eq '"(2[1-9]|[3-9][0-9])' \
  || { echo "BenchBase needs JDK 21+; set BENCHBASE_JAVA" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql is needed (database copies and checks)" >&2; exit 2; }

hostport=${server#jdbc:postgresql://}; hostport=${hostport%%/*}
db_host=${hostport%%:*}; db_port=${hostport##*:}; [[ "$db_port" == "$hostport" ]] && db_port=5432
export PGPASSWORD="$password"
sql() { psql -h "$db_host" -p "$db_port" -U "$user" -d postgres -v ON_ERROR_STOP=1 -qAtc "$1"; }

if $build; then
  (cd "$root" && mvn -q -B -DskipTests -Dinvoker.skip=true -Dspotless.check.skip=true install dependency:build-classpath)
fi
jar=$(ls "$root"/target/flushless-jdbc-*.jar | grep -v -e tests -e sources -e javadoc | head -1)
tests_jar=$(ls "$root"/target/flushless-jdbc-*-tests.jar | head -1)
deps=$(cat "$root/target/classpath.txt")
# pgjdbc of the driver's build goes first for every variant (bare included), ahead of BenchBase's own lib/.
cp="$jar:$deps:$BENCHBASE_HOME/benchbase.jar:$BENCHBASE_HOME/lib/*"
profiler= profile_file=
if $profile; then # async-profiler's agent: CPU samples with the JVM's and the kernel's frames, no safepoint bias
  ap_version=4.2 ap_dir="$root/benchmarks/target/async-profiler"
  profiler="$ap_dir/linux-x64/libasyncProfiler.so"
  if [[ ! -f "$profiler" ]]; then
    (cd "$root" && mvn -q -B dependency:copy -Dartifact="tools.profiler:async-profiler:$ap_version" \
      -DoutputDirectory="$ap_dir")
    unzip -o -q "$ap_dir/async-profiler-$ap_version.jar" 'linux-x64/*' -d "$ap_dir"
  fi
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-$root/benchmarks/results/$stamp-benchbase}
mkdir -p "$out" && out=$(cd "$out" && pwd) # absolute: BenchBase runs from BENCHBASE_HOME
mkdir -p "$out/raw"
tsv="$out/runs.tsv"
[[ -f "$tsv" ]] || printf 'workload\tisolation\tterminals\tdelay_ms\tvariant\tround\tgoodput\tthroughput\tp50_ms\tp95_ms\tp99_ms\tround_trips\tconsistency\tserver\tclient_cpu_s\treport\tclient_cores\tclient_us_per_req\tmachine_cores\tcommits_per_s\n' >"$tsv"
{
  echo "command: $command_line"; echo "commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (dirty)')"
  echo "benchbase: $BENCHBASE_HOME"; echo "java: $("$java_bin" -version 2>&1 | head -1)"
  echo "server: $(sql 'SELECT version()')"
} >"$out/run.txt"

url_of() { # variant database -> JDBC URL
  local base="jdbc:postgresql://$1/$2?sslmode=disable&ApplicationName=benchbase"
  case "$3" in
    bare) echo "$base" ;;
    rewrite) echo "$base&reWriteBatchedInserts=true" ;;
    batch) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=batch" ;;
    transaction) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=transaction" ;;
    batch_copy) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=batch&flushless.copy=always" ;;
    batch_before) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=batch" ;;
    transaction_before) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=transaction" ;;
    off) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=off" ;;
    batch_nocopy) echo "jdbc:flushless:${base#jdbc:}&flushless.mode=batch&flushless.copy=off" ;;
    *) echo "unknown variant $3" >&2; exit 2 ;;
  esac
}

config_of() { # workload url terminals file: BenchBase's sample config with our settings
  local sample="$BENCHBASE_HOME/config/postgres/sample_$1_config.xml"
  python3 - "$sample" "$2" "$3" "$4" "$isolation" "$time_s" "$warmup_s" "$scale" "$user" "$password" "$weights" <<'PY'
import sys, xml.etree.ElementTree as ET
sample, url, terminals, out, isolation, time_s, warmup_s, scale, user, password, weights = sys.argv[1:]
tree = ET.parse(sample); root = tree.getroot()
def put(tag, value):
    node = root.find(tag)
    if node is None:
        node = ET.SubElement(root, tag)
    node.text = value
put('url', url); put('username', user); put('password', password)
put('isolation', 'TRANSACTION_' + isolation); put('scalefactor', scale); put('terminals', terminals)
for work in root.iter('work'):
    for tag, value in (('time', time_s), ('warmup', warmup_s), ('rate', 'unlimited')) + ((('weights', weights),) if weights else ()):
        node = work.find(tag)
        if node is None:
            node = ET.SubElement(work, tag)
        node.text = value
tree.write(out)
PY
}

classpath_of() { # variant -> BenchBase's class path (batch_before: the earlier build's classes first)
  if [[ "$1" == *_before ]]; then
    echo "${FLUSHLESS_BEFORE_CLASSES:?set FLUSHLESS_BEFORE_CLASSES to the target/classes of an earlier build}:$cp"
  else
    echo "$cp"
  fi
}

benchbase() { # workload config report-file log-file flags... ; the client's CPU seconds go to $log.cpu
  local wl=$1 cfg=$2 report=$3 log=$4; shift 4
  local TIMEFORMAT='%U %S' rc=0
  local agent=()
  [[ -n "$profile_file" ]] && agent=("-agentpath:$profiler=start,event=ctimer,interval=500us,collapsed,file=$profile_file")
  : >"$log"
  window_cpu "$cfg" "$log" &
  local watcher=$!
  { time { (cd "$BENCHBASE_HOME" && "$java_bin" ${BENCHBASE_JAVA_OPTS:-} "${agent[@]}" -Dflushless.bench.report="$report" \
      -cp "$(classpath_of "${variant:-}")" "$here/FlushlessBenchBase.java" -b "$wl" -c "$cfg" -d "$out/raw" "$@") >"$log" 2>&1 || rc=$?; }; } \
      2>"$log.cpu"
  wait "$watcher" 2>/dev/null || true
  return $rc
}

window_cpu() { # config log: the client JVM's CPU seconds, and the machine's busy cores, over the measured window
  local cfg=$1 log=$2 pid= a b c0 c1 t0 t1 m0 m1 n=0
  local tick; tick=$(getconf CLK_TCK)
  jvm_cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }
  machine() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
  until grep -q 'Warmup complete\|PHASE START' "$log" 2>/dev/null && { [[ "$warmup_s" == 0 ]] || grep -q 'Warmup complete' "$log"; }; do
    sleep 0.2; n=$((n + 1)); [[ $n -gt 3000 ]] && return 0
    grep -q 'DBWorkload writeOutputs\|Exception in thread "main"' "$log" 2>/dev/null && return 0
  done
  pid=$(pgrep -f -- "-c $cfg" | while read -r p; do [[ "$(readlink "/proc/$p/exe" 2>/dev/null)" == */java ]] && echo "$p"; done | head -1)
  [[ -n "$pid" ]] || return 0
  commits() { sql "SELECT xact_commit FROM pg_stat_database WHERE datname = '${db:-}'" 2>/dev/null || echo 0; }
  a=$(jvm_cpu "$pid"); m0=$(machine); c0=$(commits); t0=$(date +%s.%N)
  until grep -q 'TERMINATE' "$log" 2>/dev/null; do sleep 0.2; [[ -d "/proc/$pid" ]] || return 0; done
  b=$(jvm_cpu "$pid"); m1=$(machine); c1=$(commits); t1=$(date +%s.%N)
  echo "$a $b $m0 $m1 $t0 $t1 $tick $c0 $c1" | awk '{s = $7; w = $6 - $5;
    printf "%.2f %.3f %.3f %.1f\n", ($2 - $1) / s, ($2 - $1) / s / w, ($4 - $3) / s / w, ($9 - $8) / w}' >"$log.window"
}

cpu_of() { # log -> the client's user+system CPU seconds
  awk '{printf "%.1f", $1 + $2}' "$1.cpu" 2>/dev/null || echo NA
}

template_of() { echo "fl_bb_${1}_sf${scale}"; }

ensure_template() { # workload
  local tpl; tpl=$(template_of "$1")
  if $reload; then sql "DROP DATABASE IF EXISTS $tpl"; fi
  if [[ "$(sql "SELECT count(*) FROM pg_database WHERE datname = '$tpl'")" == 1 ]]; then return; fi
  echo "[benchbase] loading $1 (scale $scale) into $tpl with bare pgjdbc"
  sql "CREATE DATABASE $tpl"
  config_of "$1" "$(url_of "$hostport" "$tpl" bare)" 1 "$out/load-$1.xml"
  if ! benchbase "$1" "$out/load-$1.xml" /dev/null "$out/load-$1.log" --create=true --load=true --execute=false; then
    sql "DROP DATABASE IF EXISTS $tpl"; tail -30 "$out/load-$1.log" >&2; exit 1
  fi
  psql -h "$db_host" -p "$db_port" -U "$user" -d "$tpl" -qc "VACUUM ANALYZE"
}

consistency() { # workload database -> "ok" or the broken conditions
  [[ "$1" == tpcc ]] || { echo "-"; return; }
  local broken
  broken=$(psql -h "$db_host" -p "$db_port" -U "$user" -d "$2" -qAt -F '=' -f "$here/tpcc-consistency.sql" | grep -v '=0$' || true)
  [[ -z "$broken" ]] && echo ok || echo "BROKEN:$(echo "$broken" | tr '\n' ';')"
}

summary_field() { # summary json, python expression on d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null || echo NA
}

rotate() { # list offset -> the list rotated (alternating the variants' order from run to run)
  local -a items; IFS=, read -ra items <<<"$1"; local n=${#items[@]} i
  for ((i = 0; i < n; i++)); do echo "${items[$(( (i + $2) % n ))]}"; done
}

run_one() { # workload terminals delay variant round
  local wl=$1 terms=$2 delay=$3 variant=$4 round=$5 tpl db tag port proxy_pid= counts=- rt=-
  tpl=$(template_of "$wl"); db="fl_bb_run_$$"; tag="$wl-$isolation-t$terms-d$delay-$variant-r$round"
  sql "DROP DATABASE IF EXISTS $db"; sql "CREATE DATABASE $db TEMPLATE $tpl"
  local stmts=false
  if psql -h "$db_host" -p "$db_port" -U "$user" -d "$db" -qAtc \
      "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()" >/dev/null 2>&1; then
    stmts=true
  fi
  local target=$hostport
  if [[ "$delay" != 0 ]]; then
    rm -f "$out/proxy.port"
    java -cp "$tests_jar" "$here/ProxyMain.java" "$db_host" "$db_port" "$delay" "$out/proxy.port" "$out/$tag.proxy" \
      >"$out/$tag.proxy.log" 2>&1 &
    proxy_pid=$!
    for _ in $(seq 1 100); do [[ -s "$out/proxy.port" ]] && break; sleep 0.1; done
    port=$(cat "$out/proxy.port"); target="127.0.0.1:$port"
  fi
  config_of "$wl" "$(url_of "$target" "$db" "$variant")" "$terms" "$out/$tag.xml"
  local before; before=$(ls "$out/raw" 2>/dev/null | wc -l)
  $profile && profile_file="$out/$tag.collapsed"
  if ! benchbase "$wl" "$out/$tag.xml" "$out/$tag.report" "$out/$tag.log" --execute=true; then
    echo "[benchbase] $tag failed: see $out/$tag.log" >&2
  fi
  profile_file=
  if [[ -n "$proxy_pid" ]]; then kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null || true; rt=$(cat "$out/$tag.proxy" 2>/dev/null || echo -); fi
  local summary; summary=$(ls -t "$out"/raw/*.summary.json 2>/dev/null | sed -n 1p) # sed reads all: head would leave ls to SIGPIPE
  local goodput=NA throughput=NA p50=NA p95=NA p99=NA requests=
  if [[ -n "$summary" && $(ls "$out/raw" | wc -l) -gt $before ]]; then
    requests=$(summary_field "$summary" "d['Measured Requests']")
    goodput=$(summary_field "$summary" "round(d['Goodput (requests/second)'], 2)")
    throughput=$(summary_field "$summary" "round(d['Throughput (requests/second)'], 2)")
    p50=$(summary_field "$summary" "round(d['Latency Distribution']['Median Latency (microseconds)']/1000, 2)")
    p95=$(summary_field "$summary" "round(d['Latency Distribution']['95th Percentile Latency (microseconds)']/1000, 2)")
    p99=$(summary_field "$summary" "round(d['Latency Distribution']['99th Percentile Latency (microseconds)']/1000, 2)")
  fi
  if $stmts; then # what the server spent its time on, per statement text (pg_stat_statements, this database only;
    # with pg_stat_statements.track_planning on, a statement planned but not yet run has calls = 0)
    psql -h "$db_host" -p "$db_port" -U "$user" -d "$db" -qA -F $'\t' -c "SELECT calls, rows,
        round(total_exec_time::numeric, 1) AS exec_ms, round((total_exec_time / nullif(calls, 0))::numeric, 4) AS mean_ms,
        left(regexp_replace(query, '\s+', ' ', 'g'), 300) AS query
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC LIMIT 60" >"$out/$tag.statements" 2>/dev/null || true
  fi
  local server # commits, rollbacks and deadlocks of the run's database (a fresh copy: its counters start at 0)
  server=$(psql -h "$db_host" -p "$db_port" -U "$user" -d "$db" -qAtc "SELECT pg_stat_force_next_flush()" >/dev/null 2>&1;
    psql -h "$db_host" -p "$db_port" -U "$user" -d postgres -qAtc "SELECT 'commits=' || xact_commit || ' rollbacks=' ||
      xact_rollback || ' deadlocks=' || deadlocks FROM pg_stat_database WHERE datname = '$db'" 2>/dev/null || echo -)
  local check; check=$(consistency "$wl" "$db")
  local report; report=$(cat "$out/$tag.report" 2>/dev/null | tr '\t' ' ' || echo -)
  [[ "$variant" == bare || "$variant" == rewrite ]] && report=-
  # the measured window: the client JVM's cores, its CPU per measured request, and the machine's busy cores
  local window=(- - - -)
  if [[ -s "$out/$tag.log.window" ]]; then
    read -r -a window <"$out/$tag.log.window"
    window=("${window[1]}" "$(awk -v c="${window[0]}" -v r="${requests:-0}" 'BEGIN { if (r > 0) printf "%.0f", c * 1e6 / r; else print "-" }')" "${window[2]}" "${window[3]}")
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$isolation" "$terms" \
    "$delay" "$variant" "$round" "$goodput" "$throughput" "$p50" "$p95" "$p99" "$rt" "$check" "$server" \
    "$(cpu_of "$out/$tag.log")" "$report" "${window[0]}" "${window[1]}" "${window[2]}" "${window[3]}" >>"$tsv"
  echo "[benchbase] $tag goodput=$goodput p95=${p95}ms consistency=$check"
  if $profile && [[ -s "$out/$tag.collapsed" ]]; then
    local commits; commits=$(sed -n 's/^commits=\([0-9]*\).*/\1/p' <<<"$server")
    python3 "$here/cpu_share.py" "$out/$tag.collapsed" "${commits:-0}" "$tag" | tee -a "$out/cpu-share.tsv" | head -1
  fi
  sql "DROP DATABASE IF EXISTS $db"
}

server_cpu() { # CPU seconds the local server's processes used so far, reaped backends included ("" when not local)
  local pm; pm=$(pgrep -o -x postgres 2>/dev/null) || { pm=$(pgrep -o -f 'postgres -D' 2>/dev/null) || return 0; }
  local hz; hz=$(getconf CLK_TCK)
  { cat "/proc/$pm/stat"; for c in $(pgrep -P "$pm"); do cat "/proc/$c/stat" 2>/dev/null; done; } | awk -v hz="$hz" \
    'NR == 1 { t += $16 + $17 } { t += $14 + $15 } END { printf "%.1f", t / hz }'
}

load_one() { # workload variant round: a fresh database, BenchBase's create and load through the variant, timed
  local wl=$1 variant=$2 round=$3 db="fl_bb_load_$$" tag="load-$1-$2-r$3"
  sql "DROP DATABASE IF EXISTS $db"; sql "CREATE DATABASE $db"
  config_of "$wl" "$(url_of "$hostport" "$db" "$variant")" 1 "$out/$tag.xml"
  local start end cpu0 cpu1 server=-
  cpu0=$(server_cpu); start=$(date +%s.%N)
  benchbase "$wl" "$out/$tag.xml" "$out/$tag.report" "$out/$tag.log" --create=true --load=true --execute=false \
    || echo "[benchbase] $tag failed: see $out/$tag.log" >&2
  end=$(date +%s.%N); cpu1=$(server_cpu)
  [[ -n "$cpu0" && -n "$cpu1" ]] && server="cpu=$(python3 -c "print(round($cpu1 - $cpu0, 1))")s"
  local seconds; seconds=$(python3 -c "print(round($end - $start, 2))")
  local rows; rows=$(psql -h "$db_host" -p "$db_port" -U "$user" -d "$db" -qAtc \
    "SELECT sum(n_live_tup) FROM pg_stat_user_tables" 2>/dev/null || echo NA)
  local report; report=$(cat "$out/$tag.report" 2>/dev/null | tr '\t' ' ' || echo -)
  [[ "$variant" == bare || "$variant" == rewrite ]] && report=-
  printf '%s\tload\t1\t0\t%s\t%s\t%s\t-\t-\t-\t-\t-\trows=%s\t%s\t%s\t%s\n' "$wl" "$variant" "$round" "$seconds" \
    "$rows" "$server" "$(cpu_of "$out/$tag.log")" "$report" >>"$tsv"
  echo "[benchbase] $tag ${seconds}s rows=$rows server $server client $(cpu_of "$out/$tag.log")s"
  sql "DROP DATABASE IF EXISTS $db"
}

IFS=, read -ra wl_list <<<"$workloads"
IFS=, read -ra term_list <<<"$terminals"
IFS=, read -ra delay_list <<<"$delays"
offset=0
for ((r = 1; r <= rounds; r++)); do
  for wl in "${wl_list[@]}"; do
    if $load_only; then
      for v in $(rotate "$variants" $offset); do load_one "$wl" "$v" "$r"; done
      offset=$((offset + 1)); continue
    fi
    ensure_template "$wl"
    for terms in "${term_list[@]}"; do
      for delay in "${delay_list[@]}"; do
        for v in $(rotate "$variants" $offset); do run_one "$wl" "$terms" "$delay" "$v" "$r"; done
        offset=$((offset + 1))
      done
    done
  done
done
echo "[benchbase] results: $tsv"
column -t -s $'\t' "$tsv" | cut -c1-200
