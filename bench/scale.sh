#!/usr/bin/env bash
# Cost as the data grows: seeds a database at each size and measures the request paths, start-to-ready, idle RSS,
# size per user and the import rate; at the largest size, how long a purge and the migrations hold the writer, and
# (SQLite) what an online backup costs the same probe, with the copy restored and served (bench/backup.sh).
# Usage: bench/scale.sh   Output: a markdown table per backend on stdout, the CSV in $SCALE_OUT (default
#        bench/scale/results.csv); bench/scale/plot.py turns the CSV into docs/scale.svg.
#
# Environment (defaults are the scale target's sizes):
#   SCALE_SIZES="10000 100000 1000000"   users per database
#   SCALE_BACKENDS="sqlite postgres"     PostgreSQL: scripts/postgres (GATEHOUSE_PG_PORT) or GATEHOUSE_BENCH_POSTGRES_URL
#   SCALE_FAMILIES_PER_USER=10           refresh families (1M users: 10M families)
#   SCALE_AUDIT_PER_USER=10              audit rows, spread over a year (1M users: 10M rows)
#   SCALE_PURGE_ROWS=1000000             expired refresh rows seeded at the largest size for the purge check
#   SCALE_BUILD=.build/release           where gatehouse and GatehouseCryptoBench are (the script builds release,
#                                        statically linked like `make run`)
#   SCALE_PORT=18520, SCALE_BACKUP_PORT=SCALE_PORT+1   where the server (and the restored backup's server) listen
#   WRK_SECONDS (5), WRK_CONNECTIONS (64), REFRESH_CONNECTIONS (8), SCALE_CEILING_SECONDS (6)
#   KEEP_BENCH=1                         keep the scratch folder and every seeded database (for profiling after the run)
#
# Seeding: users go through `gatehouse user import` (JSON lines with an external id and a provider identity each;
# every row has one pre-computed Argon2id hash of the bench password, so the import pays no Argon2id per row). The
# tokens the requests present are minted by `gatehouse bench refresh-tokens` (the store's own path). The background
# refresh families and audit rows are bulk SQL: each family is a copy of one minted row with its own hash, family
# and user (the columns are read from the table, so only the hash, family, user and time columns are named), and
# the audit rows are written straight into audit_log. The sign-in user (the middle one) also holds every token
# minted for the refresh rows (~45,000 live grants of one client): its /account row is that heavy case at every size.
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
BUILD=${SCALE_BUILD:-.build/release}
BIN=$BUILD/gatehouse
OUT=${SCALE_OUT:-bench/scale/results.csv}
SIZES=${SCALE_SIZES:-"10000 100000 1000000"}
BACKENDS=${SCALE_BACKENDS:-"sqlite postgres"}
FAMILIES_PER_USER=${SCALE_FAMILIES_PER_USER:-10}
AUDIT_PER_USER=${SCALE_AUDIT_PER_USER:-10}
PURGE_ROWS=${SCALE_PURGE_ROWS:-1000000}
export WRK_SECONDS=${WRK_SECONDS:-5}
LARGEST=$(tr ' ' '\n' <<<"$SIZES" | sort -n | tail -1); SMALLEST=$(tr ' ' '\n' <<<"$SIZES" | sort -n | head -1)
PASSWORD="bench password 1234"
SECRET=bench-client-secret-0123456789abcdefghijkl
PORT=${SCALE_PORT:-18520}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL
export GATEHOUSE_SECRET_KEY; GATEHOUSE_SECRET_KEY=$(openssl rand -base64 32)
GH_PID=""; PROBE_PID=""; STARTED_PG=""; PG_DATABASES=()
cleanup() {
  [ -n "$PROBE_PID" ] && kill "$PROBE_PID" 2>/dev/null
  [ -n "$GH_PID" ] && kill "$GH_PID" 2>/dev/null
  wait 2>/dev/null
  [ -n "${KEEP_BENCH:-}" ] && return
  for db in "${PG_DATABASES[@]}"; do psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1; done
  [ -n "$STARTED_PG" ] && scripts/postgres stop >/dev/null 2>&1
  rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
die() { echo "bench/scale.sh: $*" >&2; [ -n "$GH_PID" ] && tail -5 "$BENCH_TMP/gatehouse.log" >&2; exit 1; }

# The shipped build (`make run`, the Debian package): the Swift runtime linked statically. Start-to-ready and idle
# RSS are targets for that binary; the dynamic runtime's shared libraries alone add about 14 MB of RSS.
if [ "$BUILD" = .build/release ]; then
  swift build -c release --product gatehouse --static-swift-stdlib >/dev/null || die "build failed"
  swift build -c release --product GatehouseCryptoBench --static-swift-stdlib >/dev/null || die "build failed"
fi

# config.json serves the measurements (maintenance practically off, so no purge runs beside them); purge.json
# runs the maintenance job every second (the purge check).
write_config() {   # FILE INTERVAL_SECONDS
  cat > "$1" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "maintenance": {"interval_seconds": $2},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"],
              "grants": ["authorization_code", "refresh_token", "password", "client_credentials"]},
             {"id": "backoffice", "name": "Back office", "type": "confidential", "secret": "$SECRET",
              "grants": ["client_credentials"], "scopes": ["admin"], "admin": true}]}
JSON
}
write_config "$BENCH_TMP/config.json" 86400
write_config "$BENCH_TMP/purge.json" 1
BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)

# One Argon2id hash of the bench password, made by Gatehouse itself in a scratch database.
GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/hash.sqlite" "$BIN" user create --email hash@scale.example \
  --password-stdin --verified --config "$BENCH_TMP/config.json" <<<"$PASSWORD" >/dev/null || die "user create failed"
HASH=$(sqlite3 "$BENCH_TMP/hash.sqlite" "SELECT password_hash FROM users")
[[ $HASH == '$argon2id$'* ]] || die "no Argon2id hash"

if [[ " $BACKENDS " == *" postgres "* ]]; then
  if [ -n "${GATEHOUSE_BENCH_POSTGRES_URL:-}" ]; then PG_ADMIN=$GATEHOUSE_BENCH_POSTGRES_URL
  else scripts/postgres status >/dev/null 2>&1 || STARTED_PG=1; PG_ADMIN=$(scripts/postgres start) || die "no PostgreSQL"; fi
  PG_POSTMASTER=$(head -1 "$(psql "$PG_ADMIN" -qAtX -c "SHOW data_directory")/postmaster.pid") || die "no postmaster pid"
fi

mkdir -p "$(dirname "$OUT")"
echo "backend,users,measure,value,unit" > "$OUT"
record() { echo "$BACKEND,$USERS,$1,$2,$3" >> "$OUT"; }   # MEASURE VALUE UNIT
ms() { awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /us$/) v /= 1000; else if (t ~ /ms$/) v += 0; else if (t ~ /s$/) v *= 1000; printf "%.2f", v }'; }

# sql STATEMENTS: runs SQL on the current database (sqlite3 with a long busy timeout, or psql), stdout = result.
sql() {
  if [ "$BACKEND" = sqlite ]; then sqlite3 -batch -cmd ".timeout 600000" "$DB_FILE" "$1"
  else psql "$PG_URL" -qAtX -v ON_ERROR_STOP=1 -c "$1"; fi
}
# ceiling: Argon2id hashes/s with every core hashing (bench/lib.sh's argon2_ceiling, from this script's build).
ceiling() { "$BUILD/GatehouseCryptoBench" --argon2-ceiling "${SCALE_CEILING_SECONDS:-6}" | sed -n 's/.*: \([0-9.]*\) hashes\/s.*/\1/p'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

serve() {   # CONFIG: starts the server, sets GH_PID and READY_MS (spawn to the first 200 from /healthz)
  local started; started=$(date +%s%N)
  "$BIN" serve --config "$1" >>"$BENCH_TMP/gatehouse.log" 2>&1 &
  GH_PID=$!
  for _ in $(seq 5000); do curl -fs -o /dev/null "$URL/healthz" && break; done
  READY_MS=$(( ($(date +%s%N) - started) / 1000000 ))
  curl -fs -o /dev/null "$URL/healthz" || die "the server did not start"
}
stop_server() { kill "$GH_PID" 2>/dev/null; wait "$GH_PID" 2>/dev/null; GH_PID=""; }

mint() {   # COUNT FILE: distinct refresh tokens of the bench client for the sign-in user
  "$BIN" bench refresh-tokens --client bench --email "$KNOWN" --scope api.read --count "$1" \
    --config "$BENCH_TMP/config.json" > "$2" || die "minting failed"
}

# row NAME ARGS…: a wrk row (bench/lib.sh), printed and recorded as req/s, p99 and server CPU µs per request; on
# PostgreSQL also the cluster's CPU per request (over req/s × the row's seconds).
row() {
  local name=$1 line pg_before="" pg_after; shift
  [ "$BACKEND" = postgres ] && pg_before=$(pg_ticks)
  line=$(wrk_run "$name" "$GH_PID" "$@")
  if [ "$BACKEND" = postgres ]; then
    pg_after=$(pg_ticks)
    record "$name PostgreSQL CPU" "$(awk -v t="$(pg_delta "$pg_before" "$pg_after")" -v hz="$(getconf CLK_TCK)" -v r="$(cat "$BENCH_TMP/rps-${name//[^A-Za-z0-9]/_}")" \
      -v s="${WRK_SECONDS}" 'BEGIN { if (r > 0) printf "%.1f", t / hz * 1e6 / (r * s); else print "n/a" }')" "µs/req"
  fi
  local rps p99 cpu bad
  rps=$(awk -F'|' '{gsub(/ /, "", $3); print $3}' <<<"$line"); p99=$(awk -F'|' '{gsub(/ /, "", $4); print $4}' <<<"$line")
  cpu=$(awk -F'|' '{gsub(/ /, "", $5); print $5}' <<<"$line"); bad=$(awk -F'|' '{gsub(/ /, "", $6); print $6}' <<<"$line")
  record "$name req/s" "$rps" "req/s"; record "$name p99" "$(ms "$p99")" "ms"; record "$name CPU" "$cpu" "µs/req"
  record "$name non-2xx" "$bad" "count"
}

# The bulk families: copies of the one row minted for the bench user, each with its own hash, family, user and
# creation time; the first EXPIRED of them expired a day ago (the purge check's rows).
seed_families() {   # COUNT EXPIRED
  local count=$1 expired=$2 columns list="" select="" column expression now; now=$(now_ms)
  if [ "$BACKEND" = sqlite ]; then
    columns=$(sql "SELECT name FROM pragma_table_info('refresh_tokens') ORDER BY cid")
  else
    columns=$(sql "SELECT column_name FROM information_schema.columns WHERE table_name = 'refresh_tokens' ORDER BY ordinal_position")
  fi
  for column in $columns; do
    case $column in
      hash) if [ "$BACKEND" = sqlite ]; then expression="randomblob(32)"; else expression="sha256(('scale-' || n.i)::bytea)"; fi ;;
      family_id) expression="'scale-family-' || n.i" ;;
      user_id) expression="u.id" ;;
      created_at) expression="t.created_at - n.i" ;;
      expires_at) expression="CASE WHEN n.i <= $expired THEN $now - 86400000 ELSE t.expires_at END" ;;
      *) expression="t.$column" ;;
    esac
    list+="${list:+, }$column"; select+="${select:+, }$expression"
  done
  if [ "$BACKEND" = sqlite ]; then
    sql "PRAGMA cache_size = -1048576;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
         INSERT INTO refresh_tokens ($list) SELECT $select FROM n
         JOIN users u ON u.rowid = 1 + n.i % $USERS CROSS JOIN (SELECT * FROM refresh_tokens LIMIT 1) t;" || die "seeding families failed"
  else
    sql "INSERT INTO refresh_tokens ($list) SELECT $select FROM generate_series(1, $count::bigint) AS n(i)
         JOIN (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS rn FROM users) u ON u.rn = n.i % $USERS
         CROSS JOIN (SELECT * FROM refresh_tokens LIMIT 1) t; ANALYZE;" >/dev/null || die "seeding families failed"
  fi
}

seed_audit() {   # COUNT: a year of entries, round robin over the users and a few event types
  local count=$1 now; now=$(now_ms)
  local values="$now - (n.i * 7919) % 31536000000, u.id,
    CASE n.i % 4 WHEN 0 THEN 'sign_in.succeeded' WHEN 1 THEN 'sign_in.failed' WHEN 2 THEN 'session.ended' ELSE 'password.changed' END,
    '203.0.113.' || (n.i % 250), 'Mozilla/5.0 (bench/scale.sh)', '{}'"
  if [ "$BACKEND" = sqlite ]; then
    sql "PRAGMA cache_size = -1048576;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
         INSERT INTO audit_log (occurred_at, user_id, event_type, ip, user_agent, details)
         SELECT $values FROM n JOIN users u ON u.rowid = 1 + n.i % $USERS;" || die "seeding audit rows failed"
  else
    sql "INSERT INTO audit_log (occurred_at, user_id, event_type, ip, user_agent, details)
         SELECT $values FROM generate_series(1, $count::bigint) AS n(i)
         JOIN (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS rn FROM users) u ON u.rn = n.i % $USERS;
         ANALYZE;" >/dev/null || die "seeding audit rows failed"
  fi
}

sign_in() {   # prints the session cookie of a browser-style sign-in of $KNOWN; leaves the CSRF pair in jar/csrf
  local jar=$BENCH_TMP/jar token; rm -f "$jar"
  token=$(curl -s -c "$jar" -b "$jar" "$URL/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  echo "$token" > "$BENCH_TMP/csrf_token"
  curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf_token=$token" --data-urlencode "email=$KNOWN" \
    --data-urlencode "password=$PASSWORD" "$URL/sign-in"
  awk '$6 == "gatehouse_session" {print $7}' "$jar"
}

# probe_start TOKENS_FILE / probe_stop: the paced refresh load of the writer-hold check, run until stopped.
probe_start() {
  REFRESH_TOKENS_FILE=$1 BENCH_BASIC=$BASIC WRK_THREADS=2 PACE_MS=${SCALE_PACE_MS:-20} \
    wrk -t2 -c4 -d3600s --timeout 120s --latency -s bench/lua/refresh-paced.lua "$URL/oauth/token" > "$BENCH_TMP/probe.txt" 2>&1 &
  PROBE_PID=$!; sleep 0.5
}
probe_stop() {   # NAME: records the probe's p99, max and rate
  kill -INT "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; PROBE_PID=""
  local p99 max rps
  p99=$(ms "$(awk '$1 == "99%" {print $2}' "$BENCH_TMP/probe.txt")")
  max=$(ms "$(awk '$1 == "Latency" {print $4}' "$BENCH_TMP/probe.txt")")
  rps=$(awk '/Requests\/sec/ {print $2}' "$BENCH_TMP/probe.txt")
  local timeouts failed
  timeouts=$(awk '/Socket errors/ { for (i = 1; i <= NF; i++) if ($i == "timeout") print $(i + 1) + 0 }' "$BENCH_TMP/probe.txt")
  failed=$(awk '/Non-2xx/ {print $NF}' "$BENCH_TMP/probe.txt")
  record "$1 p99" "$p99" "ms"; record "$1 max" "$max" "ms"; record "$1 req/s" "${rps:-0}" "req/s"
  record "$1 timeouts" "${timeouts:-0}" "count"; record "$1 non-2xx" "${failed:-0}" "count"
  echo "$1: paced refresh p99 $p99 ms, max $max ms, ${rps:-0} req/s, ${timeouts:-0} timeouts, ${failed:-0} non-2xx" >> "$BENCH_TMP/notes.txt"
}

# The migrations that scale with the data, replayed as the migrator runs them, by the migrator's own code
# (`gatehouse bench online-step`, a process of its own beside the serving one, as `gatehouse migrate` would be): the
# index builds of migrations 18, 19 and 21 (under new names, dropped afterwards) as online index steps — PostgreSQL
# `CREATE INDEX CONCURRENTLY`, SQLite one write transaction (it has no concurrent build) — and the backfill of 23 as
# an online backfill step (its flag is cleared first, outside the probe): batches paced to a 5 ms hold, found through
# a partial index of the rows still to do (an index step first; without it every batch walked the rows already
# done), each row's audit question an index seek (`EXISTS … audit_log_by_user`, not 23's `IN (SELECT …)`, which
# read every `account.imported` row again for every batch). Migration 41 as it would be written now: PostgreSQL an
# index step (the GIN index, concurrently); SQLite its trigram table created empty (one short transaction) and
# filled by a backfill step, in search-row order. Each entry is "NAME|index|INDEX|TABLE|COLUMNS|PREDICATE|METHOD",
# "NAME|backfill|STATEMENT" or "NAME|transaction|STATEMENTS" (SQLite, through sqlite3). The other migrations only add
# a table or a nullable column.
MIGRATION_REPLAY=(
  "18 audit_log_by_event|index|scale_replay_18a|audit_log|event_type, occurred_at|"
  "18 audit_log_by_ip|index|scale_replay_18b|audit_log|ip, occurred_at|"
  "19 users_by_external_id|index|scale_replay_19|users|external_id|"
  "21 refresh_tokens_by_user_created|index|scale_replay_21|refresh_tokens|user_id, client_id, created_at|"
  "23 users_not_imported|index|scale_replay_23|users|id|NOT imported"
  "23 users_import_origin backfill|backfill|UPDATE users SET imported = TRUE WHERE id IN (SELECT id FROM users WHERE NOT imported AND (external_id IS NOT NULL OR EXISTS (SELECT 1 FROM audit_log a WHERE a.user_id = users.id AND a.event_type = 'account.imported')) ORDER BY id LIMIT ?)"
)
migration_41_replay() {   # the backend's entries for migration 41, one a line
  if [ "$BACKEND" = sqlite ]; then
    echo "41 users_email_search table|transaction|CREATE VIRTUAL TABLE scale_replay_41 USING fts5(email, content='', tokenize='trigram')"
    echo "41 users_email_search backfill|backfill|INSERT INTO scale_replay_41 (rowid, email) SELECT r.search_row, u.email FROM user_search_rows r JOIN users u ON u.id = r.user_id WHERE r.search_row > COALESCE((SELECT rowid FROM scale_replay_41 ORDER BY rowid DESC LIMIT 1), 0) ORDER BY r.search_row LIMIT ?"
  else
    echo "41 users_email_search|index|scale_replay_41|users|email gin_trgm_ops||gin"
  fi
}

# timed_sqlite: the statements on stdin (one a line), each followed by sqlite3's own "Run Time: real SECONDS …".
timed_sqlite() { sqlite3 -batch -cmd ".timeout 600000" -cmd ".timer on" "$DB_FILE"; }

# replay NAME KIND FIELDS…: runs one replayed step and records the longest transaction it held (ms, measured around
# each transaction by the migrator, or by sqlite3's timer) and the step's total time.
replay() {
  local name=$1 kind=$2 began longest=0 batches=1 long report
  shift 2
  began=$(date +%s%N)
  if [ "$kind" = transaction ]; then
    longest=$(printf 'BEGIN IMMEDIATE;\n%s;\nCOMMIT;\n' "$1" | timed_sqlite \
      | awk '/^Run Time/ { t += $4 } END { printf "%d", t * 1000 }') || die "replay $name failed"
  else
    if [ "$kind" = index ]; then
      report=$("$BIN" bench online-step index "$1" "$2" "$3" ${4:+--where "$4"} ${5:+--using "$5"} --config "$BENCH_TMP/config.json") \
        || die "replay $name failed"
    else
      report=$("$BIN" bench online-step backfill "$1" --config "$BENCH_TMP/config.json") || die "replay $name failed"
    fi
    read -r longest batches long < <(python3 -c 'import json,sys; r = json.loads(sys.argv[1]); print(round(r["longest_ms"]), r["transactions"], r["over_10ms"])' "$report")
  fi
  local total=$(( ($(date +%s%N) - began) / 1000000 ))
  record "migration $name: longest transaction" "$longest" "ms"
  record "migration $name: transactions" "$batches" "count"
  [ -n "${long:-}" ] && record "migration $name: transactions over 10 ms" "$long" "count"
  record "migration $name: total" "$total" "ms"
  echo "migration $name ($kind): longest transaction $longest ms, $batches transaction(s)${long:+ ($long over 10 ms)}, $total ms in all" >> "$BENCH_TMP/notes.txt"
}

writer_check() {
  local quiet purge_before purge_after started seconds entry fields
  local tokens=${SCALE_PROBE_TOKENS:-60000}
  mint 2000 "$BENCH_TMP/probe-warm-up.txt"; mint "$tokens" "$BENCH_TMP/probe-quiet.txt"
  mint "$tokens" "$BENCH_TMP/probe-purge.txt"; mint "$tokens" "$BENCH_TMP/probe-migrate.txt"
  serve "$BENCH_TMP/config.json"
  probe_start "$BENCH_TMP/probe-warm-up.txt"; sleep 2; probe_stop "writer check: warm-up"
  probe_start "$BENCH_TMP/probe-quiet.txt"; sleep "$WRK_SECONDS"; probe_stop "writer check: quiet"
  stop_server
  # The purge: the maintenance job as it runs in production (batches of maintenance.batch_size), every second.
  purge_before=$(sql "SELECT COUNT(*) FROM refresh_tokens WHERE expires_at <= $(now_ms)")
  serve "$BENCH_TMP/purge.json"
  probe_start "$BENCH_TMP/probe-purge.txt"; started=$(date +%s)
  while [ $(( $(date +%s) - started )) -lt "${SCALE_PURGE_MAX_SECONDS:-240}" ] && kill -0 "$PROBE_PID" 2>/dev/null; do
    sleep 2
    [ "$(sql "SELECT COUNT(*) FROM refresh_tokens WHERE expires_at <= $(now_ms) - 60000")" = 0 ] && break
  done
  seconds=$(( $(date +%s) - started ))
  probe_stop "writer check: during the purge"
  purge_after=$(sql "SELECT COUNT(*) FROM refresh_tokens WHERE expires_at <= $(now_ms) - 60000")
  record "purge: expired rows before" "$purge_before" "rows"; record "purge: rows left" "$purge_after" "rows"
  record "purge: rows/s" "$(( (purge_before - purge_after) / (seconds > 0 ? seconds : 1) ))" "rows/s"
  echo "purge: $purge_before expired rows, $purge_after left after ${seconds} s" >> "$BENCH_TMP/notes.txt"
  stop_server
  sql "UPDATE users SET imported = FALSE" >/dev/null   # the backfill's work, undone outside the probe
  serve "$BENCH_TMP/config.json"
  probe_start "$BENCH_TMP/probe-migrate.txt"; sleep 1
  local replays=("${MIGRATION_REPLAY[@]}"); mapfile -t -O "${#replays[@]}" replays < <(migration_41_replay)
  for entry in "${replays[@]}"; do
    IFS='|' read -r -a fields <<<"$entry"
    replay "${fields[@]}"
  done
  sleep 1; probe_stop "writer check: during the migrations"
  for entry in 18a 18b 19 21 23; do sql "DROP INDEX scale_replay_$entry" >/dev/null; done
  if [ "$BACKEND" = sqlite ]; then sql "DROP TABLE scale_replay_41" >/dev/null; else sql "DROP INDEX scale_replay_41" >/dev/null; fi
  stop_server
  # The online backup under the same probe, and its restore (bench/backup.sh; SQLite only: PostgreSQL has pg_dump).
  if [ "$BACKEND" = sqlite ]; then
    BACKUP_OUT=$OUT BACKUP_BUILD=$BUILD BACKUP_PORT=${SCALE_BACKUP_PORT:-$((PORT + 1))} BACKUP_PROBE_TOKENS=$tokens \
      bench/backup.sh "$DB_FILE" "$KNOWN" "$USERS" >> "$BENCH_TMP/notes.txt" || die "the backup check failed"
  fi
}

# pg_transactions SESSION ACCESS ADMIN RARE: PostgreSQL transactions per request of each path (pg_stat_database;
# an autocommitted statement is one, so this is the round trips for every path but the few that open a
# transaction). A backend reports its counts when it goes idle, at most every 10 s: each path gets its own second
# of wrk and an 11 s pause.
pg_transactions() {
  local name before after requests out
  committed() { sql "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"; }
  mint 3000 "$BENCH_TMP/refresh-pg.txt"; export REFRESH_TOKENS_FILE=$BENCH_TMP/refresh-pg.txt
  while IFS='|' read -r name args; do
    before=$(committed)
    out=$(eval "wrk -t1 -c4 -d1s $args")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    sleep 11
    after=$(committed)
    # psql's own query is one transaction of the count
    record "$name PG transactions" "$(awk -v d=$((after - before - 1)) -v n="$requests" 'BEGIN { printf "%.2f", d / n }')" "per request"
  done <<EOF2
userinfo|-H "Authorization: Bearer $2" "$URL/oauth/userinfo"
introspection|-s "$BENCH_TMP/introspect.lua" "$URL/oauth/introspect"
sign-in page|"$URL/sign-in"
account page|-H "Cookie: gatehouse_session=$1" "$URL/account"
admin search (one match)|-H "Authorization: Bearer $3" "$URL/admin/v1/users?q=$4"
refresh|-s bench/lua/refresh-distinct.lua "$URL/oauth/token"
password sign-in|-s "$BENCH_TMP/signin.lua" "$URL/sign-in"
EOF2
}

measure_size() {
  local families=$((USERS * FAMILIES_PER_USER)) audits=$((USERS * AUDIT_PER_USER)) expired=0 began seconds
  [ "$USERS" = "$LARGEST" ] && expired=$(( PURGE_ROWS < families ? PURGE_ROWS : families ))
  : > "$BENCH_TMP/notes.txt"
  python3 bench/scale/users.py "$USERS" "$HASH" > "$BENCH_TMP/users.jsonl"
  began=$(date +%s%N)
  "$BIN" user import "$BENCH_TMP/users.jsonl" --config "$BENCH_TMP/config.json" > "$BENCH_TMP/import.log" 2>&1 \
    || { tail -3 "$BENCH_TMP/import.log" >&2; die "import failed"; }
  seconds=$(awk -v n=$(( $(date +%s%N) - began )) 'BEGIN { printf "%.2f", n / 1e9 }')
  record "import rows/s" "$(awk -v n="$USERS" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')" "rows/s"
  record "import seconds" "$seconds" "s"
  [ "$(sql "SELECT COUNT(*) FROM external_identities")" = "$USERS" ] || die "the import did not link every identity"
  KNOWN=u$(( (USERS + 1) / 2 ))@scale.example
  mint 1 /dev/null
  began=$(date +%s%N); seed_families "$families" "$expired"; seed_audit "$audits"
  record "bulk seeding seconds" "$(awk -v n=$(( $(date +%s%N) - began )) 'BEGIN { printf "%.1f", n / 1e9 }')" "s"
  record "refresh families" "$(sql "SELECT COUNT(*) FROM refresh_tokens")" "rows"
  record "audit rows" "$(sql "SELECT COUNT(*) FROM audit_log")" "rows"
  mint 5000 "$BENCH_TMP/warm-up.txt"; mint "${SCALE_REFRESH_TOKENS:-40000}" "$BENCH_TMP/refresh.txt"

  # The first start after seeding creates the remaining signing keys (RSA generation): ready is timed on a restart.
  serve "$BENCH_TMP/config.json"; stop_server
  serve "$BENCH_TMP/config.json"
  record "start to ready" "$READY_MS" "ms"
  sleep 1; record "idle RSS" "$(rss_mb "$GH_PID")" "MB"
  local session access admin rare token csrf_cookie
  session=$(sign_in); [ -n "$session" ] || die "sign-in failed"
  token=$(cat "$BENCH_TMP/csrf_token"); csrf_cookie=$(awk '$6 == "gatehouse_csrf" {print $7}' "$BENCH_TMP/jar")
  access=$(curl -s -u "bench:$SECRET" -d grant_type=password -d "username=$KNOWN" -d "password=$PASSWORD" \
    -d "scope=openid profile email" "$URL/oauth/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])') \
    || die "password grant failed"
  admin=$(curl -s -u "backoffice:$SECRET" -d grant_type=client_credentials -d scope=admin "$URL/oauth/token" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])') || die "admin token failed"
  rare=u$(( USERS / 3 + 1 ))%40   # matches one account: the search reads every email
  [ "$(curl -s -H "Authorization: Bearer $admin" "$URL/admin/v1/users?q=$rare" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["users"]))')" = 1 ] \
    || die "the admin search did not find its one account"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\nwrk.headers["Authorization"] = "Basic %s"\nwrk.body = "token=%s"\n' \
    "$BASIC" "$access" > "$BENCH_TMP/introspect.lua"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\nwrk.headers["Cookie"] = "gatehouse_csrf=%s"\nwrk.body = "csrf_token=%s&email=%s&password=bench+password+1234"\n' \
    "$csrf_cookie" "$token" "${KNOWN/@/%40}" > "$BENCH_TMP/signin.lua"

  WRK_SECONDS=2 wrk_run "warm-up" "$GH_PID" "$URL/oauth/userinfo" -H "Authorization: Bearer $access" >/dev/null
  row "userinfo" "$URL/oauth/userinfo" -H "Authorization: Bearer $access"
  row "introspection" "$URL/oauth/introspect" -s "$BENCH_TMP/introspect.lua"
  row "sign-in page" "$URL/sign-in"
  row "account page" "$URL/account" -H "Cookie: gatehouse_session=$session"
  WRK_CONNECTIONS=8 row "admin search (one match)" "$URL/admin/v1/users?q=$rare" -H "Authorization: Bearer $admin"
  WRK_CONNECTIONS=8 row "admin list (first page)" "$URL/admin/v1/users" -H "Authorization: Bearer $admin"
  export BENCH_BASIC=$BASIC WRK_THREADS=${WRK_THREADS:-2}
  REFRESH_TOKENS_FILE=$BENCH_TMP/warm-up.txt WRK_SECONDS=1 WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
    wrk_run "warm-up" "$GH_PID" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua >/dev/null
  REFRESH_TOKENS_FILE=$BENCH_TMP/refresh.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
    row "refresh" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua
  local before after
  before=$(ceiling)
  WRK_CONNECTIONS=16 row "password sign-in" "$URL/sign-in" -s "$BENCH_TMP/signin.lua"
  sleep 2   # sign-ins still in flight when wrk stops must not overlap the ceiling
  after=$(ceiling)
  record "Argon2id ceiling" "$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", (a + b) / 2 }')" "hashes/s"
  record "password sign-in / Argon2id ceiling" "$(awk -v f="$(cat "$BENCH_TMP/rps-password_sign_in")" -v a="$before" -v b="$after" \
    'BEGIN { printf "%.2f", f / ((a + b) / 2) }')" "ratio"
  [ "$BACKEND" = postgres ] && [ "$USERS" = "$SMALLEST" ] && pg_transactions "$session" "$access" "$admin" "$rare"
  stop_server

  local bytes
  if [ "$BACKEND" = sqlite ]; then
    sql "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null; bytes=$(stat -c %s "$DB_FILE")
  else bytes=$(sql "SELECT pg_database_size(current_database())"); fi
  record "database bytes per user" "$(( bytes / USERS ))" "bytes"
  [ "$USERS" = "$LARGEST" ] && writer_check
}

for BACKEND in $BACKENDS; do
  for USERS in $SIZES; do
    echo "== $BACKEND, $USERS users: seeding ($(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    if [ "$BACKEND" = sqlite ]; then
      DB_FILE=$BENCH_TMP/scale-$USERS.sqlite; export GATEHOUSE_DATABASE_URL=sqlite://$DB_FILE
    else
      name=gh_scale_${USERS}_$$; PG_DATABASES+=("$name")
      psql "$PG_ADMIN" -qc "CREATE DATABASE $name" >/dev/null || die "CREATE DATABASE failed"
      PG_URL="${PG_ADMIN%/*}/$name"; export GATEHOUSE_DATABASE_URL="$PG_URL?pool_size=4"
    fi
    "$BIN" migrate --config "$BENCH_TMP/config.json" >/dev/null || die "migrate failed"
    record "load average" "$(cut -d' ' -f1 /proc/loadavg)" "1 min"
    measure_size
    sed 's/^/  /' "$BENCH_TMP/notes.txt" >&2
    if [ -n "${KEEP_BENCH:-}" ]; then echo "kept: $BACKEND database of $USERS users (${DB_FILE:-$PG_URL})" >&2
    elif [ "$BACKEND" = sqlite ]; then rm -f "$DB_FILE" "$DB_FILE-wal" "$DB_FILE-shm"
    else psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null; fi
  done
done
echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS}s (admin rows -c8, refresh -c${REFRESH_CONNECTIONS:-8}, password sign-in -c16) on $(nproc) cores shared by wrk, the database and the server; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/scale/report.py "$OUT"
