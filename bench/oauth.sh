#!/usr/bin/env bash
# Token-endpoint and resource-server throughput: refresh grant, client credentials, introspection,
# userinfo and the password grant (Argon2id at the default cost), with p99 and server CPU per request.
# Usage: bench/oauth.sh   (WRK_SECONDS, WRK_CONNECTIONS override the defaults 10, 64;
#        REFRESH_TOKENS (120000) distinct refresh tokens per refresh row, REFRESH_CONNECTIONS (8) for the refresh rows)
#
# The refresh rows present a distinct refresh token per request, each used once: `gatehouse bench
# refresh-tokens` mints them up front straight into the database (no Argon2 sign-in per token), and
# bench/lua/refresh-distinct.lua hands them out. Every request is a full rotation (lookup, claim,
# insert, then the signatures). "access token only" asks for scope api.read; "with openid" adds the
# ID token refresh responses carry by default: RS256 (RSA-2048, whose signature costs more than the rest),
# ES256 for a client registered with id_token_signed_response_alg ES256, or none for a client registered
# with refresh_id_token false (OIDC Core §12.2; docs/refresh-grant.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"' EXIT

swift build -c release --product gatehouse >/dev/null
swift build -c release --product GatehouseCryptoBench >/dev/null
PORT=${GATEHOUSE_BENCH_PORT:-18483}; URL=http://127.0.0.1:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL
export GATEHOUSE_DATABASE_URL=${GATEHOUSE_DATABASE_URL:-"sqlite://$BENCH_TMP/gh.sqlite"}
SECRET=bench-client-secret-0123456789abcdefghijkl
cat > "$BENCH_TMP/config.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"],
              "grants": ["authorization_code", "refresh_token", "password", "client_credentials"]},
             {"id": "bench-es", "name": "Bench ES256", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "grants": ["refresh_token"], "id_token_signed_response_alg": "ES256"},
             {"id": "bench-lean", "name": "Bench lean", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "grants": ["refresh_token"], "refresh_id_token": false}]}
JSON
echo "bench password 1234" | .build/release/gatehouse user create --email bench@example.com --password-stdin --verified --config "$BENCH_TMP/config.json" >/dev/null 2>&1 || true
REFRESH_TOKENS=${REFRESH_TOKENS:-120000}
mint_start=$(date +%s.%N)
.build/release/gatehouse bench refresh-tokens --client bench --email bench@example.com --scope api.read \
  --count "$REFRESH_TOKENS" --config "$BENCH_TMP/config.json" > "$BENCH_TMP/refresh-api.txt"
.build/release/gatehouse bench refresh-tokens --client bench --email bench@example.com --scope openid \
  --count "$REFRESH_TOKENS" --config "$BENCH_TMP/config.json" > "$BENCH_TMP/refresh-openid.txt"
for client in bench-es bench-lean; do
  .build/release/gatehouse bench refresh-tokens --client $client --email bench@example.com --scope openid \
    --count "$REFRESH_TOKENS" --config "$BENCH_TMP/config.json" > "$BENCH_TMP/refresh-$client.txt"
done
mint_seconds=$(awk -v a="$mint_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
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
post_script credentials "grant_type=client_credentials&scope=api.read"
post_script introspect "token=$ACCESS"
post_script password "grant_type=password&username=bench%40example.com&password=bench+password+1234&scope=openid"

echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s (refresh rows: -c${REFRESH_CONNECTIONS:-8}) on $(nproc) cores shared by wrk and the server; database ${GATEHOUSE_DATABASE_URL%%:*}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "minted 4 × $REFRESH_TOKENS distinct refresh tokens in ${mint_seconds} s"
echo
echo "| workload | req/s | p99 | server CPU µs/req | non-2xx |"
echo "|---|---|---|---|---|"
wrk_run "warm-up" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/credentials.lua" >/dev/null
export BENCH_BASIC=$BASIC WRK_THREADS=${WRK_THREADS:-2}
REFRESH_TOKENS_FILE=$BENCH_TMP/refresh-api.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
  wrk_run "refresh_token grant, distinct tokens, access token only" "$GH_PID" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua
RS256_BEFORE=$(rs256_ceiling)
REFRESH_TOKENS_FILE=$BENCH_TMP/refresh-openid.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
  wrk_run "refresh_token grant, distinct tokens, with openid (RS256 ID token)" "$GH_PID" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua
RS256_AFTER=$(rs256_ceiling)
BENCH_BASIC=$(printf 'bench-es:%s' "$SECRET" | base64 -w0) REFRESH_TOKENS_FILE=$BENCH_TMP/refresh-bench-es.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
  wrk_run "refresh_token grant, distinct tokens, with openid (ES256 ID token)" "$GH_PID" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua
BENCH_BASIC=$(printf 'bench-lean:%s' "$SECRET" | base64 -w0) REFRESH_TOKENS_FILE=$BENCH_TMP/refresh-bench-lean.txt WRK_CONNECTIONS=${REFRESH_CONNECTIONS:-8} \
  wrk_run "refresh_token grant, distinct tokens, with openid (refresh_id_token false: no ID token)" "$GH_PID" "$URL/oauth/token" -s bench/lua/refresh-distinct.lua
wrk_run "client_credentials grant" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/credentials.lua"
wrk_run "introspection (valid token)" "$GH_PID" "$URL/oauth/introspect" -s "$BENCH_TMP/introspect.lua"
wrk_run "userinfo (Bearer)" "$GH_PID" "$URL/oauth/userinfo" -H "Authorization: Bearer $ACCESS"
CEILING_BEFORE=$(argon2_ceiling)
WRK_CONNECTIONS=16 wrk_run "password grant (Argon2id 19 MiB, t=2)" "$GH_PID" "$URL/oauth/token" -s "$BENCH_TMP/password.lua"
RSS_AFTER=$(rss_mb "$GH_PID")   # at the instant the row ends, before the ceiling's own hashing
sleep 2   # hashes still in flight when wrk stops must not overlap the ceiling
CEILING_AFTER=$(argon2_ceiling)
echo
rs256_ratio "refresh with an RS256 ID token" "$(cat "$BENCH_TMP/rps-refresh_token_grant__distinct_tokens__with_openid__RS256_ID_token_")" "$RS256_BEFORE" "$RS256_AFTER"
argon2_ratio "password grant" "$(cat "$BENCH_TMP/rps-password_grant__Argon2id_19_MiB__t_2_")" "$CEILING_BEFORE" "$CEILING_AFTER" "the row"
# Right after the row, Argon2id hashes may still be running (19 MiB each); the ceiling (8 s) comes between.
echo "start to ready: $READY_MS ms; RSS idle after start-up $RSS_IDLE MB, after the run $RSS_AFTER MB, 8 s later $(rss_mb "$GH_PID") MB"
