#!/usr/bin/env bash
# Session-authenticated reads and sign-in throughput: the native app's "who am I" (`/native/session`),
# `/account` for a user with no grants and for one holding 80,000 live refresh-token grants, and the
# sign-in flood with /healthz latency beside it; start-to-ready and RSS of the server.
# Usage: bench/sessions.sh   (WRK_SECONDS, WRK_CONNECTIONS override the defaults 10, 64; GRANTS the 80000)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT

swift build -c release --product gatehouse >/dev/null
swift build -c release --product GatehouseCryptoBench >/dev/null
PORT=18482; URL=http://127.0.0.1:$PORT; GRANTS=${GRANTS:-80000}
DB=$BENCH_TMP/gh.sqlite
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL GATEHOUSE_DATABASE_URL="sqlite://$DB"
SECRET=bench-client-secret-0123456789abcdefghijkl
# Rate limits off: this measures the work, not the brute-force protection.
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "grants": ["refresh_token", "password"]}]}
JSON
for email in bench@example.com heavy@example.com; do
  echo "bench password 1234" | .build/release/gatehouse user create --email "$email" --password-stdin --verified \
    --config "$BENCH_TMP/config.json" >/dev/null
done
start_gatehouse "$BENCH_TMP/gatehouse.log" "$URL" serve --config "$BENCH_TMP/config.json"
sleep 1
RSS_IDLE=$(rss_mb "$GH_PID")

# sign_in EMAIL: prints the session cookie of a fresh sign-in (and leaves the CSRF pair in $BENCH_TMP/jar).
sign_in() {
  local jar=$BENCH_TMP/jar token
  rm -f "$jar"
  token=$(curl -s -c "$jar" -b "$jar" "$URL/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  echo "$token" > "$BENCH_TMP/csrf_token"
  curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf_token=$token" --data-urlencode "email=$1" \
    --data-urlencode "password=bench password 1234" "$URL/sign-in"
  awk '$6 == "gatehouse_session" {print $7}' "$jar"
}
HEAVY=$(sign_in heavy@example.com)
SESSION=$(sign_in bench@example.com)
[ -n "$SESSION" ] && [ -n "$HEAVY" ] || { echo "sign-in failed" >&2; exit 1; }
TOKEN=$(cat "$BENCH_TMP/csrf_token")
CSRF_COOKIE=$(awk '$6 == "gatehouse_csrf" {print $7}' "$BENCH_TMP/jar")

# heavy@ holds GRANTS live grants of the bench client: one through the password grant, the rest copies
# of it (each its own family, a second apart) written straight into the database.
curl -fs -o /dev/null -u "bench:$SECRET" -d grant_type=password -d username=heavy@example.com \
  -d "password=bench password 1234" -d "scope=openid offline_access" "$URL/oauth/token"
sqlite3 "$DB" <<SQL
.timeout 10000
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $GRANTS - 1)
INSERT INTO refresh_tokens (hash, family_id, client_id, user_id, scope, auth_time, auth_methods, created_at, expires_at)
SELECT randomblob(32), 'bench-family-' || n.i, t.client_id, t.user_id, t.scope, t.auth_time, t.auth_methods,
       t.created_at + n.i * 1000, t.expires_at
FROM n, (SELECT * FROM refresh_tokens LIMIT 1) t;
SQL
LIVE=$(sqlite3 "$DB" "SELECT COUNT(*) FROM refresh_tokens WHERE revoked_at IS NULL AND rotated_at IS NULL")

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
wrk_run "GET /native/session (who am I)" "$GH_PID" "$URL/native/session" -H "Cookie: gatehouse_session=$SESSION"
wrk_run "GET /account, no grants" "$GH_PID" "$URL/account" -H "Cookie: gatehouse_session=$SESSION"
wrk_run "GET /account, $LIVE live grants" "$GH_PID" "$URL/account" -H "Cookie: gatehouse_session=$HEAVY"

# Sign-in flood (Argon2id-bound), with a light /healthz probe beside it (bench/lua/probe.lua: ~200 req/s).
CEILING_BEFORE=$(argon2_ceiling)   # and after the flood (bench/lib.sh)
WRK_CONNECTIONS=16 wrk_run "POST /sign-in (Argon2id default)" "$GH_PID" "$URL/sign-in" -s "$BENCH_TMP/signin.lua" &
FLOOD=$!
sleep 1
PROBE=$(wrk -t1 -c2 -d"$(( ${WRK_SECONDS:-10} - 2 ))s" --latency -s bench/lua/probe.lua "$URL/healthz")
wait $FLOOD
sleep 2   # sign-ins still in flight when wrk stops must not overlap the ceiling
CEILING_AFTER=$(argon2_ceiling)
echo
awk -v a="$(cat "$BENCH_TMP/cpu-GET__account__no_grants")" -v b="$(cat "$BENCH_TMP/cpu-GET__account__${LIVE}_live_grants")" -v n="$LIVE" \
  'BEGIN { printf "/account CPU per request with %s live grants / with none: %.2f (target <= 1.5)\n", n, b / a }'
argon2_ratio "sign-in flood" "$(cat "$BENCH_TMP/rps-POST__sign_in__Argon2id_default_")" "$CEILING_BEFORE" "$CEILING_AFTER" "the flood"
echo "/healthz during the sign-in flood: p99 $(awk '$1 == "99%" {print $2}' <<<"$PROBE"), $(awk '/Requests\/sec/ {print $2}' <<<"$PROBE") req/s (target p99 < 50 ms)"
echo "start to ready: $READY_MS ms (target <= 100); RSS idle after start-up $RSS_IDLE MB, after this run $(rss_mb "$GH_PID") MB"
