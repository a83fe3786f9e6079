#!/usr/bin/env bash
# The cost of DPoP (RFC 9449) at the token endpoint and userinfo: server CPU per request of a DPoP-bound refresh and
# userinfo beside the Bearer ones (bench/dpop.py measures; see BENCHMARKS.md "DPoP").
# Usage: bench/dpop.sh   (BINARY: the gatehouse to run, default the release build; DPOP_BENCH_REQUESTS, default 400)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"' EXIT
BINARY=${BINARY:-.build/release/gatehouse}
[ "$BINARY" != .build/release/gatehouse ] || swift build -c release --product gatehouse >/dev/null
PORT=${GATEHOUSE_BENCH_PORT:-18493}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/gh.sqlite"
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "passwords": {"argon2_memory_kib": 8192, "argon2_iterations": 1},
 "clients": [{"id": "bench-native", "name": "Bench native", "type": "public", "first_party": true,
              "grants": ["password", "refresh_token"]}]}
JSON
echo "bench password 1234" | "$BINARY" user create --email bench@example.com --password-stdin --verified --config "$BENCH_TMP/config.json" >/dev/null
"$BINARY" serve --config "$BENCH_TMP/config.json" > "$BENCH_TMP/gatehouse.log" 2>&1 &
GH_PID=$!
for _ in $(seq 100); do curl -sf "$URL/.well-known/openid-configuration" >/dev/null && break; sleep 0.1; done
echo "binary: $BINARY ($(git rev-parse --short HEAD))"
python3 bench/dpop.py "$URL" "$GH_PID"
