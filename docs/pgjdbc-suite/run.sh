#!/usr/bin/env bash
# Runs pgjdbc's own JUnit suite through Flushless (issue #17). See README.md next to this script.
#
#   docs/pgjdbc-suite/run.sh [options] [MODE...]
#
# MODE is one or more of (default: bare batch transaction):
#   bare         pgjdbc alone: the suite's URLs stay jdbc:postgresql://
#   off          jdbc:flushless:...&flushless.mode=off (the wrappers only, nothing rewritten)
#   batch        jdbc:flushless:...&flushless.mode=batch&flushless.minBatchRows=2&flushless.bufferFirstWrite=true
#   transaction  as batch, with flushless.mode=transaction
#   defaults     jdbc:flushless:... with no flushless.* setting (batch mode, default size rules)
#
# Options:
#   --pgjdbc-src DIR     a pgjdbc source tree (a checkout or `git archive` of the tag); without it the script
#                        clones --pgjdbc-tag from GitHub into the work directory
#   --pgjdbc-tag TAG     tag to clone (default REL42.7.14); with --pgjdbc-src that is not a git checkout (e.g. a
#                        `git archive` export), the tag it was exported from, recorded in run-info.txt
#   --pgjdbc-version V   the pgjdbc jar (org.postgresql:postgresql:V) the tests are compiled and run against
#                        (default 42.7.14, the version Flushless is built against)
#   --flushless-jar JAR  the driver jar (default: target/flushless-jdbc-*.jar of this checkout, which must have
#                        been built, e.g. `mvn -q -B install -DskipTests`); its runtime dependencies are read
#                        from target/classpath.txt (written by `mvn -q -B dependency:build-classpath` if absent)
#   --work DIR           work directory (default /tmp/flushless-pgjdbc-suite); holds the copied and patched
#                        sources, classes, per-mode reports and logs; never inside the repository
#   --classes FILE       test classes to run (default: classes.txt next to this script)
#   --class NAME         run only this class (repeatable; overrides --classes)
#   --no-db-setup        do not create the test role / grants / hstore (see README.md, "Database")
#   --pghost H --pgport P --pgdb D --pguser U --pgpassword W --privileged-user U
#                        server and logins (defaults 127.0.0.1, 5432, test, test, test, postgres)
#   --results FILE       also write the markdown summary (per-class tables, failures) to FILE
#
# Requires: bash, git (only to clone), a JDK 17+, Maven (to resolve JUnit etc. from Maven Central or ~/.m2),
# psql (for the database setup), python3 (for the summary).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

pgjdbc_src=""
pgjdbc_tag="REL42.7.14"
pgjdbc_tag_given=0
pgjdbc_version="42.7.14"
flushless_jar=""
work="/tmp/flushless-pgjdbc-suite"
classes_file="$here/classes.txt"
only_classes=()
db_setup=1
pghost=127.0.0.1
pgport=5432
pgdb=test
pguser=test
pgpassword=test
privileged_user=postgres
results=""
modes=()

while [[ $# -gt 0 ]]; do
  case "$1" in
    --pgjdbc-src) pgjdbc_src="$2"; shift 2 ;;
    --pgjdbc-tag) pgjdbc_tag="$2"; pgjdbc_tag_given=1; shift 2 ;;
    --pgjdbc-version) pgjdbc_version="$2"; shift 2 ;;
    --flushless-jar) flushless_jar="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --classes) classes_file="$2"; shift 2 ;;
    --class) only_classes+=("$2"); shift 2 ;;
    --no-db-setup) db_setup=0; shift ;;
    --pghost) pghost="$2"; shift 2 ;;
    --pgport) pgport="$2"; shift 2 ;;
    --pgdb) pgdb="$2"; shift 2 ;;
    --pguser) pguser="$2"; shift 2 ;;
    --pgpassword) pgpassword="$2"; shift 2 ;;
    --privileged-user) privileged_user="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    bare|off|batch|transaction|defaults) modes+=("$1"); shift ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ ${#modes[@]} -gt 0 ]] || modes=(bare batch transaction)

log() { printf '[pgjdbc-suite] %s\n' "$*" >&2; }

mkdir -p "$work"
work="$(cd "$work" && pwd)"
case "$work/" in
  "$repo"/*) echo "run.sh: the work directory must not be inside the repository ($repo)" >&2; exit 2 ;;
esac

# ---------------------------------------------------------------------------------------------------------
# 1. pgjdbc's sources (never copied into the repository)
if [[ -z "$pgjdbc_src" ]]; then
  pgjdbc_src="$work/pgjdbc"
  if [[ ! -d "$pgjdbc_src/pgjdbc/src/test/java" ]]; then
    log "cloning pgjdbc $pgjdbc_tag into $pgjdbc_src"
    rm -rf "$pgjdbc_src"
    git clone -q --depth 1 --branch "$pgjdbc_tag" https://github.com/pgjdbc/pgjdbc "$pgjdbc_src"
    pgjdbc_tag_given=1
  fi
fi
pgjdbc_src="$(cd "$pgjdbc_src" && pwd)"
for d in pgjdbc/src/test/java testkit/src/main/java; do
  [[ -d "$pgjdbc_src/$d" ]] || { echo "run.sh: $pgjdbc_src has no $d (not a pgjdbc 42.7.x source tree?)" >&2; exit 2; }
done

# ---------------------------------------------------------------------------------------------------------
# 2. Flushless jar and its runtime dependencies
if [[ -z "$flushless_jar" ]]; then
  flushless_jar="$(ls -t "$repo"/target/flushless-jdbc-*.jar 2>/dev/null | grep -v -E -- '-(tests|sources|javadoc)\.jar$' | head -1 || true)"
  [[ -n "$flushless_jar" ]] || { echo "run.sh: no target/flushless-jdbc-*.jar; build it first (mvn -q -B install -DskipTests)" >&2; exit 2; }
fi
flushless_jar="$(cd "$(dirname "$flushless_jar")" && pwd)/$(basename "$flushless_jar")"
flushless_cp_file="$(dirname "$flushless_jar")/classpath.txt"
if [[ ! -f "$flushless_cp_file" ]]; then
  log "writing $flushless_cp_file (mvn dependency:build-classpath)"
  (cd "$(dirname "$flushless_jar")/.." && mvn -q -B -Dstyle.color=never dependency:build-classpath >&2)
fi
flushless_cp="$(cat "$flushless_cp_file")"

# ---------------------------------------------------------------------------------------------------------
# 3. The suite's test dependencies (the versions pgjdbc's Gradle build uses), resolved with Maven
mkdir -p "$work/deps"
cat > "$work/deps/pom.xml.new" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.flushless</groupId>
  <artifactId>pgjdbc-suite-deps</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId><version>$pgjdbc_version</version></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter-api</artifactId><version>5.14.4</version></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter-params</artifactId><version>5.14.4</version></dependency>
    <dependency><groupId>org.junit.platform</groupId><artifactId>junit-platform-console-standalone</artifactId><version>1.14.4</version></dependency>
    <dependency><groupId>org.hamcrest</groupId><artifactId>hamcrest</artifactId><version>3.0</version></dependency>
    <dependency><groupId>uk.org.webcompere</groupId><artifactId>system-stubs-jupiter</artifactId><version>2.1.8</version></dependency>
    <dependency><groupId>org.checkerframework</groupId><artifactId>checker-qual</artifactId><version>3.55.1</version></dependency>
    <dependency><groupId>org.osgi</groupId><artifactId>org.osgi.service.jdbc</artifactId><version>1.0.0</version></dependency>
  </dependencies>
</project>
EOF
if ! cmp -s "$work/deps/pom.xml.new" "$work/deps/pom.xml"; then mv "$work/deps/pom.xml.new" "$work/deps/pom.xml"; else rm "$work/deps/pom.xml.new"; fi
if [[ ! -s "$work/deps/deps.cp" || "$work/deps/pom.xml" -nt "$work/deps/deps.cp" ]]; then
  log "resolving the suite's dependencies"
  (cd "$work/deps" && mvn -q -B -Dstyle.color=never \
    org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath -Dmdep.outputFile="$work/deps/deps.cp" >&2)
fi
deps_cp="$(cat "$work/deps/deps.cp")"
pgjdbc_jar="$(tr ':' '\n' < "$work/deps/deps.cp" | grep "/postgresql-$pgjdbc_version.jar$")"
# At run time the console launcher brings JUnit; the separate JUnit jars are for compiling only.
run_deps_cp="$(tr ':' '\n' < "$work/deps/deps.cp" | grep -v -E '/(junit-jupiter|junit-platform-(commons|engine|launcher)|opentest4j|apiguardian)' | paste -sd:)"

# ---------------------------------------------------------------------------------------------------------
# 4. Copy, patch and compile the test sources (pgjdbc/src/test/java + testkit) against the pgjdbc jar
#    (again only when the source tree or the pgjdbc version changed; delete $work/classes to force it)
src="$work/src"
classes="$work/classes"
stamp="$pgjdbc_src|$pgjdbc_version|$(sed -n "/^# 4\./,/^# 5\./p" "$0" | md5sum | cut -c1-12)"
if [[ ! -f "$classes/.stamp" || "$(cat "$classes/.stamp")" != "$stamp" ]]; then
  log "copying and compiling pgjdbc's test sources from $pgjdbc_src"
  rm -rf "$src" "$classes"
  mkdir -p "$src" "$classes"
  cp -r "$pgjdbc_src/pgjdbc/src/test/java/." "$src/"
  cp -r "$pgjdbc_src/testkit/src/main/java/." "$src/"
  # The first patch: TestUtil.getURL builds every URL the suite connects with (openDB, openPrivilegedDB,
  # BaseTest4, and the tests that call getURL themselves). Its "jdbc:postgresql://" becomes a system
  # property, so one compiled suite serves every mode. The test.url.* system properties it already appends
  # to the URL carry the flushless.* settings.
  testutil="$src/org/postgresql/test/TestUtil.java"
  grep -q 'new StringBuilder("jdbc:postgresql://")' "$testutil" \
    || { echo "run.sh: TestUtil.getURL no longer starts with new StringBuilder(\"jdbc:postgresql://\"); adapt the patch" >&2; exit 1; }
  sed -i 's|new StringBuilder("jdbc:postgresql://")|new StringBuilder(System.getProperty("pgjdbcsuite.urlPrefix", "jdbc:postgresql://"))|' "$testutil"
  # The second patch: TestUtil's server-fact helpers (haveMinimumServerVersion, getStandardConformingStrings,
  # escapeString, haveIntegerDateTimes) answer "no" for any connection that is not a PgConnection, which
  # would silently skip or misdirect over a hundred tests under a wrapper. haveMinimumServerVersion reads the
  # version from DatabaseMetaData instead (unwrapping would make transaction mode stop buffering on that
  # connection: unwrap hands pgjdbc's connection out); the three others, used by a handful of tests, unwrap.
  # Casts in the tests themselves (and TestUtil.getTransactionState's BaseConnection cast) are left alone.
  grep -q 'con instanceof PgConnection' "$testutil" \
    || { echo "run.sh: TestUtil has no 'con instanceof PgConnection' helper any more; adapt the patch" >&2; exit 1; }
  sed -i -e 's|con instanceof PgConnection|pgjdbcSuitePgConnection(con) != null|' \
    -e 's|return ((PgConnection) con).haveMinimumServerVersion(version);|return pgjdbcSuiteServerVersionNum(con) >= pgjdbcSuiteVersionNum(version);|' \
    -e 's|((PgConnection) con)|pgjdbcSuitePgConnection(con)|' \
    -e 's|^  public static boolean haveMinimumJVMVersion(String version) {|  private static @Nullable PgConnection pgjdbcSuitePgConnection(Connection con) {\
    try {\
      return con.isWrapperFor(PgConnection.class) ? con.unwrap(PgConnection.class) : null;\
    } catch (SQLException e) {\
      return null;\
    }\
  }\
\
  private static int pgjdbcSuiteServerVersionNum(Connection con) throws SQLException {\
    java.sql.DatabaseMetaData md = con.getMetaData();\
    int major = md.getDatabaseMajorVersion();\
    int minor = md.getDatabaseMinorVersion();\
    return major >= 10 ? major * 10000 + minor : major * 10000 + minor * 100;\
  }\
\
  private static int pgjdbcSuiteVersionNum(int version) {\
    return version;\
  }\
\
  private static int pgjdbcSuiteVersionNum(Version version) {\
    return version.getVersionNum();\
  }\
\
&|' "$testutil"
  (cd "$src" && find . -name '*.java' | sort) > "$work/sources.txt"
  if ! (cd "$src" && javac -nowarn -encoding UTF-8 -proc:none -d "$classes" -cp "$deps_cp" @"$work/sources.txt") \
      > "$work/javac.log" 2>&1; then
    cat "$work/javac.log" >&2; exit 1
  fi
  cp -r "$pgjdbc_src/pgjdbc/src/test/resources/." "$classes/"
  echo "$stamp" > "$classes/.stamp"
fi

# The suite reads build.properties from ${build.properties.relative.path} (pgjdbc's root by default).
cat > "$work/build.properties" <<EOF
test.url.PGHOST=$pghost
test.url.PGPORT=$pgport
test.url.PGDBNAME=$pgdb
user=$pguser
password=$pgpassword
privilegedUser=$privileged_user
privilegedPassword=
preparethreshold=5
EOF
# pgjdbc's ssltest.properties: SSL tests off (and not selected anyway).
echo "enable_ssl_tests=false" > "$work/ssltest.properties"

# ---------------------------------------------------------------------------------------------------------
# 5. Database: the role and grants pgjdbc's docker image creates (docker/postgres-server/scripts)
if [[ $db_setup -eq 1 ]]; then
  psql_priv() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h "$pghost" -p "$pgport" -U "$privileged_user" "$@"; }
  if [[ -z "$(psql_priv -d postgres -Atc "select 1 from pg_roles where rolname = '$pguser'")" ]]; then
    log "creating role $pguser"
    psql_priv -d postgres -c "create role \"$pguser\" login password '$pgpassword'"
  fi
  if [[ -z "$(psql_priv -d postgres -Atc "select 1 from pg_database where datname = '$pgdb'")" ]]; then
    log "creating database $pgdb owned by $pguser"
    psql_priv -d postgres -c "create database \"$pgdb\" owner \"$pguser\""
  fi
  psql_priv -d "$pgdb" -c "grant all on database \"$pgdb\" to \"$pguser\"" \
    -c "grant all on schema public to \"$pguser\"" \
    -c "create extension if not exists hstore"
fi

# ---------------------------------------------------------------------------------------------------------
# 6. Run each mode (sequentially: one JVM at a time)
selectors=()
if [[ ${#only_classes[@]} -gt 0 ]]; then
  for c in "${only_classes[@]}"; do selectors+=("--select-class=$c"); done
else
  while read -r c; do selectors+=("--select-class=$c"); done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$classes_file" | grep -v '^$')
fi
launcher="$(tr ':' '\n' < "$work/deps/deps.cp" | grep 'junit-platform-console-standalone')"
runtime_cp="$classes:$run_deps_cp"

flushless_commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$repo" status --porcelain -- src pom.xml 2>/dev/null)" ]]; then flushless_commit="$flushless_commit+dirty"; fi
pgjdbc_rev="$(git -C "$pgjdbc_src" describe --tags 2>/dev/null || true)"
if [[ -z "$pgjdbc_rev" ]]; then
  if [[ $pgjdbc_tag_given -eq 1 ]]; then pgjdbc_rev="$pgjdbc_tag"; else pgjdbc_rev="unknown (not a git checkout; name it with --pgjdbc-tag)"; fi
fi
{
  echo "pgjdbc_src=$pgjdbc_src"
  echo "pgjdbc_rev=$pgjdbc_rev"
  echo "pgjdbc_jar=$pgjdbc_jar"
  echo "flushless_jar=$flushless_jar"
  echo "flushless_commit=$flushless_commit"
  echo "server=$(psql -X -h "$pghost" -p "$pgport" -U "$privileged_user" -d "$pgdb" -Atc 'show server_version' 2>/dev/null || echo '?')"
  echo "java=$(java -version 2>&1 | head -1)"
} > "$work/run-info.txt"

for mode in "${modes[@]}"; do
  case "$mode" in
    bare) props=() ;;
    off) props=(-Dpgjdbcsuite.urlPrefix=jdbc:flushless:postgresql:// -Dtest.url.flushless.mode=off) ;;
    batch|transaction)
      props=(-Dpgjdbcsuite.urlPrefix=jdbc:flushless:postgresql:// -Dtest.url.flushless.mode="$mode"
             -Dtest.url.flushless.minBatchRows=2 -Dtest.url.flushless.bufferFirstWrite=true) ;;
    defaults) props=(-Dpgjdbcsuite.urlPrefix=jdbc:flushless:postgresql://) ;;
  esac
  if [[ "$mode" == bare ]]; then cp_mode="$runtime_cp:$pgjdbc_jar"; else cp_mode="$runtime_cp:$flushless_jar:$flushless_cp"; fi
  reports="$work/reports/$mode"
  rm -rf "$reports"; mkdir -p "$reports"
  echo "$mode ${props[*]}" > "$reports/mode.txt"
  log "mode $mode: ${#selectors[@]} classes; log in $reports/console.log"
  start=$(date +%s)
  # System properties as pgjdbc's Gradle build sets them (build-logic.test-base / test-junit5), assertions
  # on as Gradle's test task has them (some tests call rs.next() inside `assert`), except that classes run
  # one at a time (parallel execution off).
  (cd "$work" && java -ea -Xmx1536m -Djava.awt.headless=true -Duser.language=TR -Duser.country=tr \
     -Dbuild.properties.relative.path="$work" \
     -Djunit.jupiter.execution.parallel.enabled=false \
     -Djunit.jupiter.extensions.autodetection.enabled=true \
     -Djunit.jupiter.execution.timeout.default="5 m" \
     "${props[@]}" \
     -jar "$launcher" execute --disable-banner --disable-ansi-colors --details=summary \
     --class-path "$cp_mode" --reports-dir "$reports" "${selectors[@]}") > "$reports/console.log" 2>&1 || true
  echo "$(( $(date +%s) - start ))" > "$reports/seconds.txt"
  tail -n 20 "$reports/console.log" | grep -E 'tests (successful|failed|aborted|skipped|found)' >&2 || true
done

# ---------------------------------------------------------------------------------------------------------
# 7. Summary: per-class run/passed/failed/skipped per mode, and every failure not also failing in bare
summary_args=("$work" "${modes[@]}")
if [[ -n "$results" ]]; then
  python3 "$here/summarize.py" --out "$results" "${summary_args[@]}"
  log "summary written to $results"
else
  python3 "$here/summarize.py" "${summary_args[@]}"
fi
