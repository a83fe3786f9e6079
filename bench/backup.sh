#!/usr/bin/env bash
# `gatehouse backup` of a serving SQLite database, under load, then the copy restored as docs/backup.md says:
# how long the online copy takes, what a paced refresh load sees meanwhile (its p99 against the same load just
# before, the writer-hold bound of bench/scale.sh), and that the copy, served in place of the database, holds the
# same users and refreshes a token issued before the copy.
# Usage: bench/backup.sh DATABASE_FILE EMAIL [USERS]
#   EMAIL: an account of that database (the probe's refresh tokens are minted for it); USERS labels the CSV rows.
#   GATEHOUSE_SECRET_KEY: the database's key (its signing keys are sealed under it); required.
# Environment: BACKUP_OUT (a CSV to append backend,users,measure,value,unit rows to), BACKUP_BUILD (.build/release,
#   built statically like `make run` when it is the default), BACKUP_PORT (18530), BACKUP_PROBE_TOKENS (60000),
#   WRK_SECONDS (5, the quiet probe), SCALE_PACE_MS (20, the probe's pause after each answer).
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/backup.sh DATABASE_FILE EMAIL [USERS]" >&2; exit 2; }
DB=$(realpath "$1"); EMAIL=$2; USERS=${3:-0}
[ -f "$DB" ] || { echo "bench/backup.sh: no database at $1" >&2; exit 2; }
[ -n "${GATEHOUSE_SECRET_KEY:-}" ] || { echo "bench/backup.sh: set GATEHOUSE_SECRET_KEY to the database's key" >&2; exit 2; }
BUILD=${BACKUP_BUILD:-.build/release}; BIN=$BUILD/gatehouse
OUT=${BACKUP_OUT:-/dev/null}
TMP=$(mktemp -d -p "$(dirname "$DB")" backup-bench.XXXXXX)   # beside the database: the copy needs its room
PORT=${BACKUP_PORT:-18530}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL GATEHOUSE_SECRET_KEY
SECRET=bench-client-secret-0123456789abcdefghijkl
BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)
GH_PID=""; PROBE_PID=""
cleanup() {
  [ -n "$PROBE_PID" ] && kill "$PROBE_PID" 2>/dev/null
  [ -n "$GH_PID" ] && kill "$GH_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
die() { echo "bench/backup.sh: $*" >&2; exit 1; }
record() { echo "sqlite,$USERS,$1,$2,$3" >> "$OUT"; echo "$1: $2 $3"; }
ms() { awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /us$/) v /= 1000; else if (t ~ /ms$/) v += 0; else if (t ~ /s$/) v *= 1000; printf "%.2f", v }'; }

if [ "$BUILD" = .build/release ]; then
  swift build -c release --product gatehouse --static-swift-stdlib >/dev/null || die "build failed"
fi
cat > "$TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "maintenance": {"interval_seconds": 86400},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"], "grants": ["refresh_token"]}]}
JSON

serve() {   # DATABASE_FILE
  GATEHOUSE_DATABASE_URL="sqlite://$1" "$BIN" serve --config "$TMP/config.json" >>"$TMP/gatehouse.log" 2>&1 &
  GH_PID=$!
  for _ in $(seq 5000); do curl -fs -o /dev/null "$URL/healthz" && return; done
  tail -5 "$TMP/gatehouse.log" >&2; die "the server did not start"
}
stop_server() { kill "$GH_PID" 2>/dev/null; wait "$GH_PID" 2>/dev/null; GH_PID=""; }
mint() {   # COUNT FILE
  GATEHOUSE_DATABASE_URL="sqlite://$DB" "$BIN" bench refresh-tokens --client bench --email "$EMAIL" --scope api.read \
    --count "$1" --config "$TMP/config.json" > "$2" || die "minting failed"
}
probe_start() {   # TOKENS_FILE: 4 connections, each pausing SCALE_PACE_MS after every answer (bench/lua/refresh-paced.lua)
  REFRESH_TOKENS_FILE=$1 BENCH_BASIC=$BASIC WRK_THREADS=2 PACE_MS=${SCALE_PACE_MS:-20} \
    wrk -t2 -c4 -d3600s --timeout 120s --latency -s bench/lua/refresh-paced.lua "$URL/oauth/token" > "$TMP/probe.txt" 2>&1 &
  PROBE_PID=$!; sleep 0.5
}
probe_stop() {   # NAME
  kill -INT "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; PROBE_PID=""
  record "$1 p99" "$(ms "$(awk '$1 == "99%" {print $2}' "$TMP/probe.txt")")" "ms"
  record "$1 max" "$(ms "$(awk '$1 == "Latency" {print $4}' "$TMP/probe.txt")")" "ms"
  record "$1 req/s" "$(awk '/Requests\/sec/ {print $2}' "$TMP/probe.txt")" "req/s"
  record "$1 non-2xx" "$(awk '/Non-2xx/ {print $NF}' "$TMP/probe.txt" | grep . || echo 0)" "count"
}
refresh_status() {   # TOKEN: the HTTP status of one refresh
  curl -s -o /dev/null -w '%{http_code}' -u "bench:$SECRET" -d grant_type=refresh_token --data-urlencode "refresh_token=$1" \
    "$URL/oauth/token"
}

tokens=${BACKUP_PROBE_TOKENS:-60000}
mint 2000 "$TMP/warm-up.txt"; mint "$tokens" "$TMP/quiet.txt"; mint "$tokens" "$TMP/during.txt"; mint 1 "$TMP/kept.txt"
serve "$DB"
probe_start "$TMP/warm-up.txt"; sleep 2; kill -INT "$PROBE_PID"; wait "$PROBE_PID" 2>/dev/null; PROBE_PID=""
probe_start "$TMP/quiet.txt"; sleep "${WRK_SECONDS:-5}"; probe_stop "backup check: quiet"
probe_start "$TMP/during.txt"
began=$(date +%s%N)
GATEHOUSE_DATABASE_URL="sqlite://$DB" "$BIN" backup "$TMP/copy.sqlite" --config "$TMP/config.json" > "$TMP/backup.out" \
  || die "gatehouse backup failed: $(cat "$TMP/backup.out")"
record "backup: seconds" "$(awk -v n=$(( $(date +%s%N) - began )) 'BEGIN { printf "%.1f", n / 1e9 }')" "s"
sleep 0.5; probe_stop "backup check: during the backup"
record "backup: bytes" "$(stat -c %s "$TMP/copy.sqlite")" "bytes"
grep -q "integrity_check ok" "$TMP/backup.out" || die "the copy was not checked: $(cat "$TMP/backup.out")"
stop_server

# The restore of docs/backup.md into a fresh directory: the copy, no -wal or -shm beside it, the same key.
mkdir "$TMP/restored"; mv "$TMP/copy.sqlite" "$TMP/restored/gatehouse.sqlite"
[ ! -e "$TMP/restored/gatehouse.sqlite-wal" ] || die "the copy has a -wal beside it"
users=$(sqlite3 "$DB" "SELECT COUNT(*) FROM users"); copied=$(sqlite3 "$TMP/restored/gatehouse.sqlite" "SELECT COUNT(*) FROM users")
record "restore: users in the database" "$users" "users"; record "restore: users in the copy" "$copied" "users"
[ "$users" = "$copied" ] || die "the copy holds $copied users, the database $users"
serve "$TMP/restored/gatehouse.sqlite"
status=$(refresh_status "$(head -1 "$TMP/kept.txt")")
record "restore: refresh of a token issued before the copy" "$status" "HTTP status"
[ "$status" = 200 ] || die "the restored copy refused a refresh token issued before the copy ($status)"
stop_server
