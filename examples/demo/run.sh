#!/usr/bin/env bash
# The Flushless demo: an order-processing workload (Hibernate 6 + HikariCP) run through bare pgjdbc and
# through Flushless (flushless.mode=batch, then flushless.mode=transaction), each into a fresh database,
# directly (D = 0) and through the project's latency proxy at 0.25 ms (same zone) and 1 ms (cross-zone) one way;
# then one table comparing server statements, client round trips, YugabyteDB flushes (modelled), wall time at
# each delay, and whether the data is identical in all of them (the run fails if it is not).
#
#   examples/demo/run.sh                     embedded PostgreSQL (needs only JDK 17+ and Maven)
#   examples/demo/run.sh --url 'jdbc:postgresql://host:5432/postgres?user=u&password=p'   any server
#   examples/demo/run.sh --mode transaction  bare pgjdbc vs one Flushless mode only (batch|transaction|both)
#   examples/demo/run.sh --delay 0,5         other one-way delays (ms)
#   examples/demo/run.sh --help              all options
#
# Works from any directory. Builds the driver (`mvn -q -B install -DskipTests` at the repository root),
# compiles the demo, and runs it with plain `java` (arguments passed through; exit code kept).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# --help needs no fresh build when the demo was built before.
build=true
for arg in "$@"; do
  case "$arg" in -h|--help) [[ -f "$here/target/classpath.txt" ]] && build=false ;; esac
done

if $build; then
  echo "[run.sh] building the driver (mvn -q -B install -DskipTests in $root) and the demo ..."
  (cd "$root" && mvn -q -B -Dstyle.color=never install -DskipTests)
  mvn -q -B -Dstyle.color=never -f "$here/pom.xml" compile dependency:build-classpath
fi

exec java -Xmx1g -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" dev.flushless.demo.Demo "$@"
