#!/usr/bin/env bash
# The admin API's account search as the accounts grow (SQLite, or PostgreSQL): for each size, imports users whose emails are NOT
# in creation order (bench/scale/users.py … shuffled, as in a real user base; bench/scale.sh's are in order, which
# FTS5's lists compress and skip far better), then measures three searches with each given build on the same file:
#   one match, local part   ?q=u<N/3+1>@                (the query bench/scale.sh measures)
#   one match, whole address ?q=u<N/3+1>@scale.example  (an administrator pasting an address)
#   every account, domain   ?q=@scale.example          (common trigrams only: the first page)
# Usage: bench/search.sh [GATEHOUSE_BINARY …]   (default: .build/release/gatehouse, built static like `make run`)
# Environment: SEARCH_SIZES ("10000 1000000"), SEARCH_ORDER (shuffled, or ordered), SEARCH_BACKEND (sqlite, or
#              postgres: scripts/postgres's test cluster, a database per size), WRK_SECONDS (5),
#              WRK_CONNECTIONS (8). Output: a markdown table, and the CSV in $SEARCH_OUT (bench/results/search.csv).
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
SIZES=${SEARCH_SIZES:-"10000 1000000"}
ORDER=${SEARCH_ORDER:-shuffled}
BACKEND=${SEARCH_BACKEND:-sqlite}
OUT=${SEARCH_OUT:-bench/results/search.csv}
export WRK_SECONDS=${WRK_SECONDS:-5} WRK_CONNECTIONS=${WRK_CONNECTIONS:-8}
SECRET=bench-client-secret-0123456789abcdefghijkl
PORT=${SEARCH_PORT:-18530}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL
export GATEHOUSE_SECRET_KEY; GATEHOUSE_SECRET_KEY=$(openssl rand -base64 32)
GH_PID=""; PG_DATABASE=""
cleanup() {
  [ -n "$GH_PID" ] && kill "$GH_PID" 2>/dev/null; wait 2>/dev/null
  [ -n "$PG_DATABASE" ] && psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $PG_DATABASE WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
die() { echo "bench/search.sh: $*" >&2; exit 1; }

if [ $# -eq 0 ]; then
  swift build -c release --product gatehouse --static-swift-stdlib >/dev/null || die "build failed"
  set -- .build/release/gatehouse
fi
for bin in "$@"; do [ -x "$bin" ] || die "$bin is not an executable"; done
if [ "$BACKEND" = postgres ]; then
  PG_ADMIN=$(scripts/postgres start) || die "no PostgreSQL"
  PG_POSTMASTER=$(head -1 "$(psql "$PG_ADMIN" -qAtX -c "SHOW data_directory")/postmaster.pid") || die "no postmaster pid"
fi

cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "maintenance": {"interval_seconds": 86400},
 "clients": [{"id": "backoffice", "name": "Back office", "type": "confidential", "secret": "$SECRET",
              "grants": ["client_credentials"], "scopes": ["admin"], "admin": true}]}
JSON
GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/hash.sqlite" "$1" user create --email hash@scale.example \
  --password-stdin --verified --config "$BENCH_TMP/config.json" <<<"bench password 1234" >/dev/null || die "user create failed"
HASH=$(sqlite3 "$BENCH_TMP/hash.sqlite" "SELECT password_hash FROM users")

mkdir -p "$(dirname "$OUT")"
echo "backend,build,users,query,req/s,p99,cpu_us_per_req,postgres_cpu_us_per_req,matches" > "$OUT"
echo "| backend | build | users | query | req/s | p99 | CPU µs/req | PostgreSQL CPU µs/req | matches on the first page |"
echo "|---|---|---|---|---|---|---|---|---|"
for USERS in $SIZES; do
  if [ "$BACKEND" = postgres ]; then
    PG_DATABASE=gh_search_${USERS}_$$
    psql "$PG_ADMIN" -qc "CREATE DATABASE $PG_DATABASE" >/dev/null || die "CREATE DATABASE failed"
    export GATEHOUSE_DATABASE_URL="${PG_ADMIN%/*}/$PG_DATABASE?pool_size=4"
  else
    DB=$BENCH_TMP/search-$USERS.sqlite; export GATEHOUSE_DATABASE_URL=sqlite://$DB
  fi
  python3 bench/scale/users.py "$USERS" "$HASH" "$([ "$ORDER" = shuffled ] && echo shuffled)" > "$BENCH_TMP/users.jsonl"
  "$1" migrate --config "$BENCH_TMP/config.json" >/dev/null || die "migrate failed"
  "$1" user import "$BENCH_TMP/users.jsonl" --config "$BENCH_TMP/config.json" >/dev/null 2>&1 || die "import failed"
  rare=u$(( USERS / 3 + 1 ))
  for bin in "$@"; do
    "$bin" serve --config "$BENCH_TMP/config.json" >>"$BENCH_TMP/gatehouse.log" 2>&1 &
    GH_PID=$!
    wait_http "$URL/healthz" || die "the server did not start"
    admin=$(curl -s -u "backoffice:$SECRET" -d grant_type=client_credentials -d scope=admin "$URL/oauth/token" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])') || die "admin token failed"
    for query in "local part|$rare%40" "whole address|$rare%40scale.example" "domain|%40scale.example"; do
      name=${query%%|*}; q=${query#*|}
      matches=$(curl -s -H "Authorization: Bearer $admin" "$URL/admin/v1/users?q=$q" \
        | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["users"]))') || die "the search failed"
      [ "$BACKEND" = postgres ] && pg_before=$(pg_ticks)
      line=$(wrk_run "$name" "$GH_PID" "$URL/admin/v1/users?q=$q" -H "Authorization: Bearer $admin")
      IFS='|' read -r _ _ rps p99 cpu bad _ <<<"$line"
      pg_cpu=""
      [ "$BACKEND" = postgres ] && pg_cpu=$(awk -v t="$(pg_delta "$pg_before" "$(pg_ticks)")" -v hz="$(getconf CLK_TCK)" \
        -v r="${rps// /}" -v s="$WRK_SECONDS" 'BEGIN { if (r > 0) printf "%.1f", t / hz * 1e6 / (r * s); else print "n/a" }')
      [ "${bad// /}" = 0 ] || die "$name: ${bad// /} answers were not 2xx"
      echo "| $BACKEND | $bin | $USERS | $name | ${rps// /} | ${p99// /} | ${cpu// /} | $pg_cpu | $matches |"
      echo "$BACKEND,$bin,$USERS,$name,${rps// /},${p99// /},${cpu// /},$pg_cpu,$matches" >> "$OUT"
    done
    kill "$GH_PID"; wait "$GH_PID" 2>/dev/null; GH_PID=""
  done
  if [ "$BACKEND" = postgres ]; then psql "$PG_ADMIN" -qc "DROP DATABASE $PG_DATABASE WITH (FORCE)" >/dev/null; PG_DATABASE=""
  else rm -f "$DB" "$DB-wal" "$DB-shm"; fi
done
echo "wrk -t${WRK_THREADS:-2} -c$WRK_CONNECTIONS -d${WRK_SECONDS}s on $(nproc) cores shared by wrk and the server; emails $ORDER; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
