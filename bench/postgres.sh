#!/usr/bin/env bash
# The refresh-grant and session-page figures of bench/oauth.sh and bench/sessions.sh on SQLite,
# on PostgreSQL with one process, and on PostgreSQL with two processes behind nginx (the
# deploy/ set-up, plain HTTP on loopback), in one run.
# Usage: bench/postgres.sh   (WRK_SECONDS, WRK_CONNECTIONS override the defaults 10, 64;
#        GATEHOUSE_BUILD_PATH the SwiftPM scratch path, default .build;
#        GATEHOUSE_BENCH_POSTGRES_URL a cluster to use instead of starting scripts/postgres)
#
# Rate limits are off (this measures the work). The refresh rows present a distinct refresh token per
# request (scope api.read: access token only), each used once, minted up front with `gatehouse bench
# refresh-tokens` (REFRESH_TOKENS per setup, default 120000; REFRESH_CONNECTIONS, default 8, for those rows).
# "two processes" goes through nginx (one worker, keep-alive upstream): that adds a proxy hop and
# nginx's own CPU on the same two cores, so the row "one process via nginx" is there to separate
# the proxy's cost from the second process's gain. Server CPU sums both Gatehouse processes.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
BUILD=${GATEHOUSE_BUILD_PATH:-.build}
STARTED_PG=""
PIDS=()   # Gatehouse processes started (not through $(…): a subshell's children are not our jobs)
cleanup() {
  [ ${#PIDS[@]} -eq 0 ] || kill "${PIDS[@]}" 2>/dev/null || true
  [ -f "$BENCH_TMP/nginx.pid" ] && kill "$(cat "$BENCH_TMP/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -n "${DB_NAME:-}" ] && psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1 || true
  [ -n "$STARTED_PG" ] && scripts/postgres stop >/dev/null 2>&1 || true
  rm -rf "$BENCH_TMP"
}
trap cleanup EXIT

# cpu_ticks PID[,PID…]: summed over several processes (two Gatehouse processes behind nginx).
cpu_ticks() { local total=0 pid; for pid in ${1//,/ }; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo "$total"; }

swift build -c release --product gatehouse --scratch-path "$BUILD" >/dev/null
BIN=$BUILD/release/gatehouse

if [ -n "${GATEHOUSE_BENCH_POSTGRES_URL:-}" ]; then
  PG_ADMIN=$GATEHOUSE_BENCH_POSTGRES_URL
else
  scripts/postgres status 2>/dev/null || STARTED_PG=1
  PG_ADMIN=$(scripts/postgres start)
fi
DB_NAME=gh_bench_$$
psql "$PG_ADMIN" -qc "CREATE DATABASE $DB_NAME" >/dev/null
PG_URL="${PG_ADMIN%/*}/$DB_NAME?pool_size=4"

SECRET=bench-client-secret-0123456789abcdefghijkl
export GATEHOUSE_SECRET_KEY; GATEHOUSE_SECRET_KEY=$(openssl rand -base64 32)
PUBLIC=http://127.0.0.1:18490
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"],
              "grants": ["authorization_code", "refresh_token", "password"]}]}
JSON
BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)

# start_gatehouse DATABASE_URL PORT: starts one process, waits for it, appends its pid to PIDS.
start_gatehouse() {
  GATEHOUSE_DATABASE_URL=$1 GATEHOUSE_LISTEN=127.0.0.1:$2 GATEHOUSE_PUBLIC_URL=$PUBLIC \
    "$BIN" serve --config "$BENCH_TMP/config.json" >>"$BENCH_TMP/gatehouse-$2.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$2/healthz" || { tail -5 "$BENCH_TMP/gatehouse-$2.log" >&2; exit 1; }
}

start_nginx() {   # upstream ports…
  local servers="" port
  for port in "$@"; do servers+="server 127.0.0.1:$port;"; done
  mkdir -p "$BENCH_TMP/nginx"
  cat > "$BENCH_TMP/nginx.conf" <<NGINX
worker_processes 1;
pid $BENCH_TMP/nginx.pid;
error_log $BENCH_TMP/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $BENCH_TMP/nginx; proxy_temp_path $BENCH_TMP/nginx;
  fastcgi_temp_path $BENCH_TMP/nginx; uwsgi_temp_path $BENCH_TMP/nginx; scgi_temp_path $BENCH_TMP/nginx;
  upstream gatehouse { $servers keepalive 32; }
  server {
    listen 127.0.0.1:18490;
    location / {
      proxy_pass http://gatehouse; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host \$host; proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
    }
  }
}
NGINX
  nginx -p "$BENCH_TMP/nginx" -c "$BENCH_TMP/nginx.conf"
}

stop_all() {
  if [ -f "$BENCH_TMP/nginx.pid" ]; then kill "$(cat "$BENCH_TMP/nginx.pid")"; rm -f "$BENCH_TMP/nginx.pid"; sleep 0.3; fi
  [ ${#PIDS[@]} -eq 0 ] || { kill "${PIDS[@]}" 2>/dev/null || true; wait "${PIDS[@]}" 2>/dev/null || true; }
  PIDS=()
}

# mint DATABASE_URL COUNT FILE: distinct refresh tokens for the bench user, one per line.
mint() {
  GATEHOUSE_DATABASE_URL=$1 "$BIN" bench refresh-tokens --client bench --email bench@example.com --scope api.read \
    --count "$2" --config "$BENCH_TMP/config.json" > "$3"
}

# measure LABEL PIDS URL DATABASE_URL: one refresh-grant row and one session-page row.
measure() {
  local label=$1 pids=$2 url=$3 database=$4 jar csrf session
  mint "$database" 5000 "$BENCH_TMP/warm-up.txt"
  mint "$database" "${REFRESH_TOKENS:-120000}" "$BENCH_TMP/refresh.txt"
  jar=$BENCH_TMP/jar; rm -f "$jar"
  csrf=$(curl -s -c "$jar" -b "$jar" "$url/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf_token=$csrf" --data-urlencode "email=page@example.com" \
    --data-urlencode "password=bench password 1234" "$url/sign-in"
  session=$(awk '$6 == "gatehouse_session" {print $7}' "$jar")
  [ -n "$session" ] || { echo "sign-in failed on $label" >&2; exit 1; }
  export BENCH_BASIC=$BASIC WRK_THREADS=${WRK_THREADS:-2}
  REFRESH_TOKENS_FILE=$BENCH_TMP/warm-up.txt WRK_SECONDS=2 WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
    wrk_run "warm-up" "$pids" "$url/oauth/token" -s bench/lua/refresh-distinct.lua >/dev/null
  REFRESH_TOKENS_FILE=$BENCH_TMP/refresh.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
    wrk_run "$label: refresh_token grant (distinct tokens, -c${REFRESH_CONNECTIONS:-8})" "$pids" "$url/oauth/token" -s bench/lua/refresh-distinct.lua
  wrk_run "$label: GET /account (session)" "$pids" "$url/account" -H "Cookie: gatehouse_session=$session"
}

# Two users: the refresh benchmark leaves thousands of live rotated tokens on its user, which
# the account page would then list; the page is measured for a user with none, as in sessions.sh.
create_users() {
  local email
  for email in bench@example.com page@example.com; do
    echo "bench password 1234" | GATEHOUSE_DATABASE_URL=$1 "$BIN" user create --email "$email" --password-stdin --verified \
      --config "$BENCH_TMP/config.json" >/dev/null 2>&1 || true
  done
}

echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s on $(nproc) cores shared by wrk, nginx, PostgreSQL and Gatehouse; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| setup: workload | req/s | p99 | Gatehouse CPU µs/req | non-2xx |"
echo "|---|---|---|---|---|"

SQLITE_URL="sqlite://$BENCH_TMP/gh.sqlite"
create_users "$SQLITE_URL"
start_gatehouse "$SQLITE_URL" 18491
measure "SQLite, 1 process" "${PIDS[0]}" http://127.0.0.1:18491 "$SQLITE_URL"
stop_all

create_users "$PG_URL"
start_gatehouse "$PG_URL" 18491
measure "PostgreSQL, 1 process" "${PIDS[0]}" http://127.0.0.1:18491 "$PG_URL"
start_nginx 18491; wait_http "$PUBLIC/healthz"
measure "PostgreSQL, 1 process via nginx" "${PIDS[0]}" "$PUBLIC" "$PG_URL"
stop_all

start_gatehouse "$PG_URL" 18491; start_gatehouse "$PG_URL" 18492
start_nginx 18491 18492; wait_http "$PUBLIC/healthz"
measure "PostgreSQL, 2 processes via nginx" "${PIDS[0]},${PIDS[1]}" "$PUBLIC" "$PG_URL"
stop_all
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
