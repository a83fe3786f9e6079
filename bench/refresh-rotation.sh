#!/usr/bin/env bash
# What one refresh-token rotation costs the server on SQLite (synchronous=FULL), counted in terms a loaded
# machine does not change: read and write syscalls per refresh (/proc/PID/io), context switches per refresh,
# and — with STRACE=1 — the storage calls themselves (pwrite64, pread64, fdatasync per refresh, counted by
# `strace -c -f` over a separate run). Server CPU µs per refresh is printed too; on a shared machine it is
# noisy, and req/s and p99 there are noise.
#
# Usage: bench/refresh-rotation.sh [BINARY ...]   (default: .build/release/gatehouse, built first)
#   Several binaries (e.g. a release build of main and of a branch) are alternated ROUNDS times, each serving
#   a database it minted itself with `gatehouse bench refresh-tokens` (so each mints its own token format).
#   REFRESH_TOKENS (40000) distinct tokens per run, WRK_SECONDS (4), REFRESH_CONNECTIONS (8), ROUNDS (2),
#   SCOPE (api.read: access token only; `openid` adds the RS256 ID token), STRACE (0; 1 adds the strace run).
# On a quiet machine the same command checks the refresh target (≥ 6,000 refreshes/s, p99 ≤ 25 ms, access token
# only): TARGET=1 bench/refresh-rotation.sh   (prints the verdict under the table).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"' EXIT

if [ $# -eq 0 ]; then
  swift build -c release --product gatehouse >/dev/null
  set -- .build/release/gatehouse
fi
PORT=${GATEHOUSE_BENCH_PORT:-18493}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL
SECRET=bench-client-secret-0123456789abcdefghijkl
export BENCH_BASIC; BENCH_BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)
export WRK_THREADS=${WRK_THREADS:-2} WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} WRK_SECONDS=${WRK_SECONDS:-4}
REFRESH_TOKENS=${REFRESH_TOKENS:-40000}; SCOPE=${SCOPE:-api.read}; ROUNDS=${ROUNDS:-2}; STRACE_REFRESHES=2000

io_field() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/io"; }
ctx_switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n}'; }

# run BINARY ROUND: one fresh database minted and served by BINARY, one wrk run; prints a table row.
run() {
  local bin=$1 dir="$BENCH_TMP/run-$2-$RANDOM"
  mkdir -p "$dir"
  export GATEHOUSE_DATABASE_URL="sqlite://$dir/gh.sqlite"
  cat > "$dir/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"], "grants": ["refresh_token", "password"]}]}
JSON
  echo "bench password 1234" | "$bin" user create --email bench@example.com --password-stdin --verified --config "$dir/config.json" >/dev/null 2>&1
  "$bin" bench refresh-tokens --client bench --email bench@example.com --scope "$SCOPE" --count "$REFRESH_TOKENS" \
    --config "$dir/config.json" > "$dir/tokens.txt"
  "$bin" serve --config "$dir/config.json" > "$dir/server.log" 2>&1 &
  local pid=$!
  wait_http "$URL/healthz"
  local r0 w0 c0 x0 r1 w1 c1 x1 out reqs non2xx ok hz rps p99
  r0=$(io_field $pid syscr); w0=$(io_field $pid syscw); c0=$(cpu_ticks $pid); x0=$(ctx_switches $pid)
  out=$(REFRESH_TOKENS_FILE="$dir/tokens.txt" wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" --latency \
    -s bench/lua/refresh-distinct.lua "$URL/oauth/token")
  r1=$(io_field $pid syscr); w1=$(io_field $pid syscw); c1=$(cpu_ticks $pid); x1=$(ctx_switches $pid)
  reqs=$(awk '/requests in/ {print $1}' <<<"$out"); non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out"); ok=$((reqs - ${non2xx:-0}))
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out"); p99=$(awk '$1 == "99%" {print $2}' <<<"$out"); hz=$(getconf CLK_TCK)
  local strace_cols="| | |"
  if [ "${STRACE:-0}" = 1 ] && [ "$(wc -l < "$dir/tokens.txt")" -gt $((ok + STRACE_REFRESHES + 100)) ]; then
    tail -n $STRACE_REFRESHES "$dir/tokens.txt" > "$dir/strace-tokens.txt"
    strace -q -f -c -e trace=pwrite64,pread64,fdatasync,fsync -p $pid -o "$dir/strace.txt" 2>/dev/null & local tracer=$!
    sleep 1
    REFRESH_TOKENS_FILE="$dir/strace-tokens.txt" WRK_THREADS=1 wrk -t1 -c"$WRK_CONNECTIONS" -d60s \
      -s bench/lua/refresh-distinct.lua "$URL/oauth/token" > "$dir/strace-wrk.txt"
    kill -INT $tracer; wait $tracer 2>/dev/null || true
    strace_cols=$(awk -v n=$STRACE_REFRESHES '$NF == "pwrite64" {w = $4} $NF == "pread64" {r = $4} $NF == "fdatasync" {s = $4}
      END { printf "| %.1f | %.1f | %.2f", w / n, r / n, s / n }' "$dir/strace.txt")
  fi
  kill $pid; wait $pid 2>/dev/null || true
  awk -v bin="$bin" -v ok=$ok -v n2=${non2xx:-0} -v r=$((r1 - r0)) -v w=$((w1 - w0)) -v c=$((c1 - c0)) -v x=$((x1 - x0)) \
      -v hz="$hz" -v rps="$rps" -v p99="$p99" -v st="$strace_cols" \
    'BEGIN { printf "| %s | %d | %.1f | %.1f | %.1f | %.0f %s | %s / %s |\n", bin, ok, w / ok, r / ok, x / ok, c / hz * 1e6 / ok, st, int(rps), p99 }'
  echo "$rps $p99 ${non2xx:-0}" > "$BENCH_TMP/last"
  rm -rf "$dir"
}

echo "wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${WRK_SECONDS}s, distinct tokens, scope $SCOPE, SQLite synchronous=FULL, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| binary | refreshes | write syscalls / refresh | read syscalls / refresh | context switches / refresh | server CPU µs / refresh | pwrite64 / refresh (strace) | pread64 | fdatasync | req/s / p99 (noise unless quiet) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for round in $(seq "$ROUNDS"); do
  for bin in "$@"; do run "$bin" "$round"; done
done
if [ -n "${TARGET:-}" ]; then
  read -r rps p99 non2xx < "$BENCH_TMP/last"
  awk -v rps="$rps" -v p99="$p99" -v n2="$non2xx" 'BEGIN {
    ms = p99; if (p99 ~ /us$/) ms = p99 / 1000; else if (p99 ~ /ms$/) ms = p99 + 0; else if (p99 ~ /s$/) ms = p99 * 1000
    printf "refresh target (last run): %d refreshes/s (>= 6000: %s), p99 %.2f ms (<= 25: %s), non-2xx %d\n",
      rps, (rps >= 6000 ? "met" : "NOT met"), ms, (ms <= 25 ? "met" : "NOT met"), n2 }'
fi
