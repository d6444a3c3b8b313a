#!/usr/bin/env bash
# Server instructions per single enqueue, for the job table of each schema version given: a
# throwaway PostgreSQL 15 server runs under valgrind's callgrind, the tables come from the
# migrations in this tree, and pgbench sends Baton's single-job INSERT (a plain job: no uniqueness,
# no cap, no dependency) as a prepared statement. Each backend's instruction count is read twice,
# after a short and a long run, and the difference divided by the difference in inserts: the cost
# of one insert without the connection's set-up. Instruction counts do not depend on what else the
# machine runs, so two versions compare exactly. Needs valgrind and Debian's postgresql-15;
# run as root (the server runs as the user postgres).
#
#   baton-benchmarks/insert-instructions.sh 6 10     # version 6 against version 10
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIGRATIONS=$ROOT/baton-core/src/main/resources/dev/baton/migrate
BIN=/usr/lib/postgresql/15/bin
PORT=${PORT:-5498}
SHORT=300
LONG=1300
[[ $# -ge 1 ]] || { echo "usage: $0 VERSION..." >&2; exit 2; }

DIR=$(mktemp -d /tmp/baton-insert-instr.XXXXXX)
chown postgres "$DIR"
as_pg() { su postgres -c "$*"; }
cleanup() {
  as_pg "$BIN/pg_ctl -D $DIR/data stop -m immediate" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

as_pg "$BIN/initdb -D $DIR/data -A trust -U postgres" >/dev/null
as_pg "cd $DIR && nohup valgrind --tool=callgrind --trace-children=yes \
  --callgrind-out-file=$DIR/cg.%p $BIN/postgres -D $DIR/data -p $PORT -k $DIR \
  -c fsync=off -c synchronous_commit=off -c autovacuum=off >$DIR/server.log 2>&1 &"
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U postgres -d postgres)
for _ in $(seq 120); do "${PSQL[@]}" -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done

# The migrations up to a version, into the schema v<version>: the Migrator's ${schema}
# placeholder becomes that name.
migrate() {
  local version=$1 schema=v$1 f v
  "${PSQL[@]}" -c "CREATE SCHEMA $schema"
  for f in $(ls "$MIGRATIONS" | grep -E '^V[0-9]+__' | grep -v -e '\.down\.sql$' -e '__inbox' | sort); do
    v=$((10#$(echo "$f" | sed -E 's/^V0*([0-9]+)__.*/\1/')))
    ((v <= version)) || continue
    sed "s/\${schema}/$schema/g" "$MIGRATIONS/$f" | "${PSQL[@]}" >/dev/null
  done
}

# The statement of EnqueueStore.ENQUEUE, its values bound as the harness's W3 binds them.
script() {
  cat <<EOF
\set i random(1, 1000000000)
INSERT INTO $1.job
  (queue, kind, args, state, priority, max_attempts, scheduled_at, idempotency_key, metadata)
VALUES ('default', 'bench.Noop', ('{"n":' || :i || '}')::jsonb,
        CASE WHEN NULL::timestamptz > now() THEN 'scheduled' ELSE 'available' END,
        0, 25, coalesce(NULL::timestamptz, now()), NULL, '{}'::jsonb)
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING id, queue, kind, args::text AS args, state, priority, attempt, max_attempts,
  (extract(epoch FROM scheduled_at) * 1000000)::bigint AS scheduled_at, fence,
  CASE WHEN state = 'available' THEN pg_notify('baton_bench', queue) IS NULL END AS notified;
EOF
}

# Instructions of the backend of one pgbench run of n inserts: the largest profile among those
# written since the run began (pgbench also opens a short connection of its own first).
run() {
  local schema=$1 n=$2 mark
  mark=$DIR/mark.$schema.$n
  touch "$mark"
  pgbench -n -M prepared -t "$n" -c 1 -h "$DIR" -p "$PORT" -U postgres -f "$DIR/$schema.sql" postgres >/dev/null
  sleep 3 # each backend writes its profile as it exits
  find "$DIR" -maxdepth 1 -name 'cg.*' -newer "$mark" -exec grep -h '^summary' {} + \
    | awk '$2 > max { max = $2 } END { print max }'
}

printf '%-8s %s\n' version "instructions per insert"
for version in "$@"; do
  migrate "$version"
  script "v$version" >"$DIR/v$version.sql"
  short=$(run "v$version" $SHORT)
  long=$(run "v$version" $LONG)
  printf '%-8s %d\n' "$version" $(((long - short) / (LONG - SHORT)))
done
