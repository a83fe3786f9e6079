#!/usr/bin/env bash
# Exact user-space instructions per request for GET /healthz, immune to other load on the machine.
# Runs bench/httpharness (same middleware chain as the app, no Swift tasks: valgrind 3.19 crashes once
# libdispatch starts worker threads, so the real `gatehouse serve` cannot run under it) in callgrind,
# warms up, zeroes the counters, sends N keep-alive requests (ab -k -c4) and dumps.
# Usage: bench/callgrind-http.sh [N]   (default 20000; prints Ir/request and the top functions by self cost)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}; PORT=${PORT:-18590}
swift build -c release --product GatehouseHTTPHarness >/dev/null
OUT=$(mktemp -d)
valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" .build/release/GatehouseHTTPHarness "$PORT" >/dev/null 2>"$OUT/valgrind.log" &
VG=$!
trap 'kill $VG 2>/dev/null; rm -rf "$OUT"' EXIT
for _ in $(seq 300); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
ab -k -c4 -n 2000 "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1
callgrind_control -z "$VG" >/dev/null 2>&1
ab -k -c4 -n "$N" "http://127.0.0.1:$PORT/healthz" 2>/dev/null | grep -E "Complete requests|Failed requests"
callgrind_control -d "$VG" >/dev/null 2>&1
sleep 0.5
# callgrind_annotate 3.19 misreads these dumps (it credits everything to clone), hence the small parser.
python3 bench/callgrind_top.py "$(ls -t "$OUT"/cg.out.* | head -1)" "$N" "${TOP:-25}"
