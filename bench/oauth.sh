#!/usr/bin/env bash
# Token-endpoint and resource-server throughput: refresh grant, client credentials, introspection,
# userinfo and the password grant (Argon2id at the default cost), with p99 and server CPU per request.
# Usage: bench/oauth.sh   (WRK_SECONDS, WRK_CONNECTIONS override the defaults 10, 64)
#
# Refresh tokens rotate on every use; to replay one token for the whole run the benchmark sets a
# 120 s refresh grace window, so every request still does a full rotation (lookup, rotate, insert,
# two signatures) — the same work as distinct tokens, without minting thousands first.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"' EXIT

swift build -c release --product gatehouse >/dev/null
PORT=${GATEHOUSE_BENCH_PORT:-18483}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL
export GATEHOUSE_DATABASE_URL=${GATEHOUSE_DATABASE_URL:-"sqlite://$BENCH_TMP/gh.sqlite"}
SECRET=bench-client-secret-0123456789abcdefghijkl
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"refresh_grace_seconds": 120, "api_scopes": ["api.read"]},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"],
              "grants": ["authorization_code", "refresh_token", "password", "client_credentials"]}]}
JSON
echo "bench password 1234" | .build/release/gatehouse user create --email bench@example.com --password-stdin --verified --config "$BENCH_TMP/config.json" >/dev/null
start_gatehouse "$BENCH_TMP/gatehouse.log" "$URL" serve --config "$BENCH_TMP/config.json"
sleep 1; RSS_IDLE=$(rss_mb "$GH_PID")

BASIC=$(printf 'bench:%s' "$SECRET" | base64 -w0)
TOKENS=$(curl -s -u "bench:$SECRET" -d grant_type=password -d username=bench@example.com -d "password=bench password 1234" \
  -d "scope=openid profile email" "$URL/oauth/token")
REFRESH=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])' <<<"$TOKENS")
ACCESS=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])' <<<"$TOKENS")

post_script() {   # name, body
  cat > "$BENCH_TMP/$1.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $BASIC"
wrk.body = "$2"
LUA
}
post_script refresh "grant_type=refresh_token&refresh_token=$REFRESH"
post_script credentials "grant_type=client_credentials&scope=api.read"
post_script introspect "token=$ACCESS"
post_script password "grant_type=password&username=bench%40example.com&password=bench+password+1234&scope=openid"

echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s on $(nproc) cores shared by wrk and the server; database ${GATEHOUSE_DATABASE_URL%%:*}"
echo
echo "| workload | req/s | p99 | server CPU µs/req | non-2xx |"
echo "|---|---|---|---|---|"
wrk_run "warm-up" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/credentials.lua" >/dev/null
wrk_run "refresh_token grant (rotation)" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/refresh.lua"
wrk_run "client_credentials grant" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/credentials.lua"
wrk_run "introspection (valid token)" "$GH_PID" "$URL/oauth/introspect" -s "$BENCH_TMP/introspect.lua"
wrk_run "userinfo (Bearer)" "$GH_PID" "$URL/oauth/userinfo" -H "Authorization: Bearer $ACCESS"
WRK_CONNECTIONS=16 wrk_run "password grant (Argon2id 19 MiB, t=2)" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/password.lua"
echo
echo "start to ready: $READY_MS ms; RSS idle after start-up $RSS_IDLE MB, after this run $(rss_mb "$GH_PID") MB"
