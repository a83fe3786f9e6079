#!/usr/bin/env bash
# Load test: 60 s at 64 connections over a mix — the sign-in page, the session "who am I", refresh grants with
# distinct never-used tokens, userinfo with a Bearer token, and authorization requests with a session — on
# SQLite (one process) and on PostgreSQL with two processes behind nginx (the deploy/ shape, plain HTTP on
# loopback). Passes only with zero errors: no answer ≥ 400 and no socket error. Prints a Markdown table with p99.
# Usage: bench/load.sh   (LOAD_SECONDS, LOAD_CONNECTIONS: default 60, 64; GATEHOUSE_BUILD_PATH default .build;
#        GATEHOUSE_BENCH_POSTGRES_URL a cluster to use instead of starting scripts/postgres; LOAD_SETUPS
#        "sqlite postgres" by default)
#
# Rate limits are off: one client address at thousands of requests a second is what the limits exist to stop,
# and this measures whether the server itself answers everything. The mix is one request of each kind in turn on
# every connection (so a fifth of the requests are refreshes, each a full rotation).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/lib-peer.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
BUILD=${GATEHOUSE_BUILD_PATH:-.build}
STARTED_PG="" DB_NAME="" PG_ADMIN=""
PIDS=()
stop_all() {
  nginx_stop "$BENCH_TMP/nginx"
  [ ${#PIDS[@]} -eq 0 ] || { kill "${PIDS[@]}" 2>/dev/null || true; wait "${PIDS[@]}" 2>/dev/null || true; }
  PIDS=()
}
cleanup() {
  stop_all
  [ -z "$DB_NAME" ] || psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1 || true
  [ -z "$STARTED_PG" ] || scripts/postgres stop >/dev/null 2>&1 || true
  [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"
}
trap cleanup EXIT

SECONDS_RUN=${LOAD_SECONDS:-60} CONNECTIONS=${LOAD_CONNECTIONS:-64} THREADS=2
PER_THREAD=$(( (CONNECTIONS + THREADS - 1) / THREADS + 2 ))
PASSWORD="bench password 1234"
SECRET=bench-client-secret-0123456789abcdefghijkl
REDIRECT=https://bench.example/cb
BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)
PUBLIC_PORT=18630

bench_tools
swift build -c release --product gatehouse --scratch-path "$BUILD" >"$BENCH_TMP/build.log" 2>&1 \
  || { tail -20 "$BENCH_TMP/build.log" >&2; die "release build failed"; }
BIN=$BUILD/release/gatehouse
export GATEHOUSE_SECRET_KEY; GATEHOUSE_SECRET_KEY=$(openssl rand -base64 32)   # shared by both processes
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["$REDIRECT"], "grants": ["authorization_code", "refresh_token"]}]}
JSON

# start_gatehouse DATABASE_URL PORT PUBLIC_URL: one process, appended to PIDS once it answers.
start_gatehouse() {
  GATEHOUSE_DATABASE_URL=$1 GATEHOUSE_LISTEN=127.0.0.1:$2 GATEHOUSE_PUBLIC_URL=$3 \
    "$BIN" serve --config "$BENCH_TMP/config.json" >>"$BENCH_TMP/gatehouse-$2.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$2/healthz" || { tail -5 "$BENCH_TMP/gatehouse-$2.log" >&2; die "gatehouse on port $2 did not start"; }
}

ROWS=() FAILED=0
# run_mix LABEL URL: signs in, mints the refresh seeds, runs the mix, appends a row.
run_mix() {
  local label=$1 url=$2 session access out
  session=$(gh_sign_in "$url" bench@example.com "$PASSWORD")
  gh_mint "$url" "$session" bench "$SECRET" "$REDIRECT" $((PER_THREAD * THREADS + 1)) > "$BENCH_TMP/tokens.jsonl"
  access=$(head -1 "$BENCH_TMP/tokens.jsonl" | jq -er .access_token) || die "no access token on $label"
  tail -n +2 "$BENCH_TMP/tokens.jsonl" | jq -er .refresh_token > "$BENCH_TMP/refresh" || die "no refresh tokens on $label"
  : > "$BENCH_TMP/wrk.stderr"
  MIX_SESSION=$session MIX_ACCESS=$access MIX_AUTHORIZE="/oauth/authorize?$(gh_authorize_query bench "$REDIRECT")" \
  REFRESH_SEEDS=$BENCH_TMP/refresh REFRESH_PER_THREAD=$PER_THREAD REFRESH_BASIC=$BASIC \
  WRK_THREADS=$THREADS WRK_CONNECTIONS=$CONNECTIONS WRK_SECONDS=$SECONDS_RUN \
    wrk_measure "${PIDS[*]}" "$url/" -s bench/load/mix.lua
  local p50 p90 classes rss
  p50=$(awk '$1 == "50%" {print $2}' <<<"$M_OUT"); p90=$(awk '$1 == "90%" {print $2}' <<<"$M_OUT")
  classes=$(sed -n 's/^load-mix: //p' "$BENCH_TMP/wrk.stderr")
  rss=$(rss_mb_of "${PIDS[@]}")
  ROWS+=("| $label | $M_REQS | $M_RPS | $p50 | $p90 | **$M_P99** | $M_NON2XX | $M_SOCKET | ${classes:-?} | $M_CPU | $rss |")
  local stray; stray=$(sed -n 's/.*redirects without a code \([0-9]*\).*/\1/p' "$BENCH_TMP/wrk.stderr")
  [ "$M_NON2XX" = 0 ] && [ "$M_SOCKET" = 0 ] && [ "${stray:-1}" = 0 ] || FAILED=$((FAILED + 1))
}

create_user() {
  echo "$PASSWORD" | GATEHOUSE_DATABASE_URL=$1 "$BIN" user create --email bench@example.com --password-stdin --verified \
    --config "$BENCH_TMP/config.json" >/dev/null || die "user create failed on ${1%%:*}"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for setup in ${LOAD_SETUPS:-sqlite postgres}; do
  case "$setup" in
    sqlite)
      url=sqlite://$BENCH_TMP/gh.sqlite
      create_user "$url"
      start_gatehouse "$url" 18631 "http://127.0.0.1:18631"
      run_mix "SQLite, 1 process" http://127.0.0.1:18631
      stop_all ;;
    postgres)
      command -v psql >/dev/null || die "psql missing (scripts/bootstrap test installs postgresql)"
      if [ -n "${GATEHOUSE_BENCH_POSTGRES_URL:-}" ]; then PG_ADMIN=$GATEHOUSE_BENCH_POSTGRES_URL
      else scripts/postgres status >/dev/null 2>&1 || STARTED_PG=1; PG_ADMIN=$(scripts/postgres start); fi
      DB_NAME=gh_load_$$
      psql "$PG_ADMIN" -qc "CREATE DATABASE $DB_NAME" >/dev/null || die "cannot create database $DB_NAME"
      url="${PG_ADMIN%/*}/$DB_NAME?pool_size=4"
      create_user "$url"
      start_gatehouse "$url" 18632 "http://127.0.0.1:$PUBLIC_PORT"
      start_gatehouse "$url" 18633 "http://127.0.0.1:$PUBLIC_PORT"
      nginx_start "$BENCH_TMP/nginx" "$PUBLIC_PORT" "$(nginx_proxy_body "$PUBLIC_PORT" 18632 18633)"
      run_mix "PostgreSQL, 2 processes behind nginx" "http://127.0.0.1:$PUBLIC_PORT"
      stop_all ;;
    *) die "unknown setup $setup (sqlite, postgres)" ;;
  esac
done

echo "wrk -t$THREADS -c$CONNECTIONS -d${SECONDS_RUN}s, $(nproc) cores shared by wrk, nginx, PostgreSQL and Gatehouse, $(date -u '+%Y-%m-%d %H:%M UTC'); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| setup | requests | req/s | p50 | p90 | p99 | answers ≥ 400 | socket errors | answers by class | Gatehouse CPU µs/req | Gatehouse RSS after (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
[ "$FAILED" = 0 ] || die "$FAILED setup(s) had errors"
