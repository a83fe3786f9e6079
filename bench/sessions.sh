#!/usr/bin/env bash
# Session-authenticated page and sign-in throughput, and /healthz latency during a sign-in flood.
# Usage: bench/sessions.sh   (WRK_SECONDS, WRK_CONNECTIONS override the defaults 10, 64)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT

swift build -c release --product gatehouse >/dev/null
PORT=18482; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/gh.sqlite"
# Rate limits off: this measures the work, not the brute-force protection.
echo '{"access_log": false, "rate_limits": {"enabled": false}}' > "$BENCH_TMP/config.json"
echo "bench password 1234" | .build/release/gatehouse user create --email bench@example.com --password-stdin --config "$BENCH_TMP/config.json" >/dev/null
.build/release/gatehouse serve --config "$BENCH_TMP/config.json" >"$BENCH_TMP/gatehouse.log" &
GH_PID=$!
wait_http "$URL/healthz"

# Sign in once with curl to get a session cookie for the page benchmark.
JAR=$BENCH_TMP/jar
TOKEN=$(curl -s -c "$JAR" -b "$JAR" "$URL/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
CSRF_COOKIE=$(awk '$6 == "gatehouse_csrf" {print $7}' "$JAR")
curl -s -o /dev/null -c "$JAR" -b "$JAR" --data-urlencode "csrf_token=$TOKEN" --data-urlencode "email=bench@example.com" \
  --data-urlencode "password=bench password 1234" "$URL/sign-in"
SESSION=$(awk '$6 == "gatehouse_session" {print $7}' "$JAR")
[ -n "$SESSION" ] || { echo "sign-in failed" >&2; exit 1; }

cat > "$BENCH_TMP/signin.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = "gatehouse_csrf=$CSRF_COOKIE"
wrk.body = "csrf_token=$TOKEN&email=bench%40example.com&password=bench+password+1234"
LUA

echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s on $(nproc) cores shared by wrk and the server"
echo
echo "| workload | req/s | p99 | server CPU µs/req | non-2xx/3xx |"
echo "|---|---|---|---|---|"
wrk_run "warm-up" "$GH_PID" "$URL/account" -H "Cookie: gatehouse_session=$SESSION" >/dev/null
wrk_run "GET /account (session cookie)" "$GH_PID" "$URL/account" -H "Cookie: gatehouse_session=$SESSION"

# Sign-in flood (Argon2id-bound), with a light /healthz probe running beside it.
WRK_CONNECTIONS=16 wrk_run "POST /sign-in (Argon2id default)" "$GH_PID" "$URL/sign-in" -s "$BENCH_TMP/signin.lua" &
FLOOD=$!
sleep 1
PROBE=$(wrk -t1 -c2 -d"$(( ${WRK_SECONDS:-10} - 2 ))s" --latency "$URL/healthz")
wait $FLOOD
echo
echo "/healthz during the sign-in flood: p99 $(awk '$1 == "99%" {print $2}' <<<"$PROBE"), $(awk '/Requests\/sec/ {print $2}' <<<"$PROBE") req/s (target p99 < 50 ms)"
