# Sourced by bench.sh, harness.sh, hardbyte/run.sh and pgbench/lib.sh (after setting ROOT, the
# repository): the benchmark jar, built from the reactor when it is missing or older than a source
# or pom of a module it contains (baton-core, baton-cli, baton-benchmarks).
# A pinned jar, BATON_BENCH_JAR (or BATON_HARNESS_JAR, the older name), is used as it is and never
# built: pin one build for a whole run while others build this tree (the jar must not change
# during the run).
#   bench_jar LABEL   sets JAR to the pinned jar when one is given, else to
#                     baton-benchmarks/target/baton-benchmarks.jar, built first when stale; the
#                     build's output goes to stderr, with LABEL in its one line of progress.
bench_jar() {
  local label=$1
  BENCH_PINNED_JAR=${BATON_BENCH_JAR:-${BATON_HARNESS_JAR:-}}
  if [[ -n $BENCH_PINNED_JAR ]]; then
    JAR=$BENCH_PINNED_JAR
  else
    JAR=$ROOT/baton-benchmarks/target/baton-benchmarks.jar
    if [[ ! -f $JAR || -n $(find "$ROOT/pom.xml" "$ROOT/baton-core/pom.xml" "$ROOT/baton-core/src/main" \
          "$ROOT/baton-cli/pom.xml" "$ROOT/baton-cli/src/main" \
          "$ROOT/baton-benchmarks/pom.xml" "$ROOT/baton-benchmarks/src/main" -newer "$JAR" -print -quit) ]]; then
      echo "[$label] building: mvn -q -B -DskipTests package -pl baton-benchmarks -am" >&2
      (cd "$ROOT" && mvn -q -B -Dstyle.color=never -DskipTests package -pl baton-benchmarks -am </dev/null) >&2
    fi
  fi
  if [[ ! -f $JAR ]]; then
    echo "[$label] no jar at $JAR" >&2
    return 1
  fi
}

# A copy of $JAR that no build touches, in RUN_JAR: a build of this tree during a run rewrites
# target/ in place, and a JVM whose jar changes under it fails at its next class lookup. A pinned
# jar is used as it is; otherwise one copy per build (named by the jar's mtime and
# size) is kept under $TMPDIR and reused by every run, so nothing needs removing when a harness
# kills a run.
bench_run_jar() {
  if [[ -n $BENCH_PINNED_JAR ]]; then
    RUN_JAR=$JAR
    return
  fi
  local cache=${TMPDIR:-/tmp}/baton-harness-jars-$(id -u)
  mkdir -p "$cache"
  RUN_JAR=$cache/baton-benchmarks-$(stat -c '%Y-%s' "$JAR").jar
  if [[ ! -f $RUN_JAR ]]; then
    local tmp
    tmp=$(mktemp "$cache/.copy.XXXXXX")
    cp "$JAR" "$tmp" && mv -f "$tmp" "$RUN_JAR"
  fi
}
