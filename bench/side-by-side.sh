#!/usr/bin/env bash
# Gatehouse beside a Rails 6.1 + Devise + Doorkeeper 5.5 peer (bench/peer/, Debian packages, puma 2 workers × 5
# threads, SQLite), in one run, with the same wrk settings: req/s, p99, server CPU µs per request (every process of
# each server: puma's master and workers, nginx's master and workers) and RSS. Prints a Markdown table.
# Usage: bench/side-by-side.sh   (WRK_SECONDS, WRK_CONNECTIONS, WRK_THREADS: default 8, 8, 2;
#        GATEHOUSE_BUILD_PATH the SwiftPM scratch path, default .build)
#
# Gatehouse: release build, SQLite, rate limits and access log off. Refresh rows use a distinct, never-used
# refresh token on every request for both servers (bench/peer/refresh-chain.lua passes each rotated token on).
# Works from a fresh clone: installs missing packages through scripts/bootstrap and builds what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
source bench/lib-peer.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
GH_PID="" PEER_PID=""
cleanup() {
  [ -z "$GH_PID" ] || kill "$GH_PID" 2>/dev/null || true
  [ -z "$PEER_PID" ] || kill "$PEER_PID" 2>/dev/null || true   # puma's master stops its workers
  nginx_stop "$BENCH_TMP/nginx"
  wait 2>/dev/null || true
  [ -n "${KEEP_BENCH:-}" ] || rm -rf "$BENCH_TMP"
}
trap cleanup EXIT

export WRK_THREADS=${WRK_THREADS:-2} WRK_CONNECTIONS=${WRK_CONNECTIONS:-8} WRK_SECONDS=${WRK_SECONDS:-8}
# Each wrk thread needs at least one live refresh token per connection; a few spare do no harm.
PER_THREAD=$(( (WRK_CONNECTIONS + WRK_THREADS - 1) / WRK_THREADS + 2 ))
SEEDS=$(( PER_THREAD * WRK_THREADS ))
PASSWORD="bench password 1234"

bench_tools
BUILD=${GATEHOUSE_BUILD_PATH:-.build}
swift build -c release --product gatehouse --scratch-path "$BUILD" >"$BENCH_TMP/build.log" 2>&1 \
  || { tail -20 "$BENCH_TMP/build.log" >&2; die "release build failed"; }
BIN=$BUILD/release/gatehouse

# --- Gatehouse ---------------------------------------------------------------------------------------------
GH_PORT=${GATEHOUSE_BENCH_PORT:-18620}; GH=http://127.0.0.1:$GH_PORT
GH_SECRET=bench-client-secret-0123456789abcdefghijkl
cat > "$BENCH_TMP/gatehouse.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$GH_SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "grants": ["authorization_code", "refresh_token"]},
             {"id": "bench-lean", "name": "Bench lean", "type": "confidential", "secret": "$GH_SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "grants": ["authorization_code", "refresh_token"],
              "refresh_id_token": false}]}
JSON
export GATEHOUSE_LISTEN=127.0.0.1:$GH_PORT GATEHOUSE_PUBLIC_URL=$GH GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/gh.sqlite"
echo "$PASSWORD" | "$BIN" user create --email bench@example.com --password-stdin --verified --config "$BENCH_TMP/gatehouse.json" >/dev/null \
  || die "gatehouse user create failed"
"$BIN" serve --config "$BENCH_TMP/gatehouse.json" >"$BENCH_TMP/gatehouse.log" 2>&1 &
GH_PID=$!
wait_http "$GH/healthz" || { tail -5 "$BENCH_TMP/gatehouse.log" >&2; die "gatehouse did not start"; }
sleep 1; GH_RSS_IDLE=$(rss_mb_of "$GH_PID") GH_PSS_IDLE=$(pss_mb_of "$GH_PID")
GH_SESSION=$(gh_sign_in "$GH" bench@example.com "$PASSWORD")
gh_mint "$GH" "$GH_SESSION" bench "$GH_SECRET" https://bench.example/cb $((SEEDS + 1)) > "$BENCH_TMP/gh-tokens.jsonl"
GH_ACCESS=$(head -1 "$BENCH_TMP/gh-tokens.jsonl" | jq -er .access_token) || die "no Gatehouse access token"
tail -n +2 "$BENCH_TMP/gh-tokens.jsonl" | jq -er .refresh_token > "$BENCH_TMP/gh-refresh" || die "no Gatehouse refresh tokens"
GH_BASIC=$(printf 'bench:%s' "$GH_SECRET" | base64 -w0)
# The same grants for a client registered with refresh_id_token false: its refreshes answer no ID token, like the
# peer's (Doorkeeper without OpenID Connect); the default client's carry an RS256 one (docs/refresh-grant.md).
gh_mint "$GH" "$GH_SESSION" bench-lean "$GH_SECRET" https://bench.example/cb "$SEEDS" | jq -er .refresh_token > "$BENCH_TMP/gh-refresh-lean" \
  || die "no Gatehouse refresh tokens for bench-lean"
GH_LEAN_BASIC=$(printf 'bench-lean:%s' "$GH_SECRET" | base64 -w0)

# --- the Rails peer --------------------------------------------------------------------------------------------
PEER_PORT=${PEER_BENCH_PORT:-18621}; PEER=http://127.0.0.1:$PEER_PORT
export PEER_DATABASE_PATH=$BENCH_TMP/peer.sqlite3 SECRET_KEY_BASE; SECRET_KEY_BASE=$(openssl rand -hex 64)
bench/peer/bin/seed "$SEEDS" > "$BENCH_TMP/peer-seed.json" 2>"$BENCH_TMP/peer-seed.log" || { tail -5 "$BENCH_TMP/peer-seed.log" >&2; die "peer seed failed"; }
PORT=$PEER_PORT bench/peer/bin/start >"$BENCH_TMP/peer.log" 2>&1 &
PEER_PID=$!
wait_answer "$PEER/session" 180 "$PEER_PID" "$BENCH_TMP/peer.log"
for _ in $(seq 50); do [ "$(pgrep -c -P "$PEER_PID" || true)" -ge 2 ] && break; sleep 0.2; done
PEER_PIDS=$(process_tree "$PEER_PID")
[ "$(wc -w <<<"$PEER_PIDS")" -ge 3 ] || { tail -5 "$BENCH_TMP/peer.log" >&2; die "puma did not start its two workers"; }
sleep 1; PEER_RSS_IDLE=$(rss_mb_of $PEER_PIDS) PEER_PSS_IDLE=$(pss_mb_of $PEER_PIDS)
PEER_ACCESS=$(jq -er .access_token "$BENCH_TMP/peer-seed.json")
jq -er '.refresh_tokens[]' "$BENCH_TMP/peer-seed.json" > "$BENCH_TMP/peer-refresh"
PEER_SECRET=$(jq -er .client_secret "$BENCH_TMP/peer-seed.json")
PEER_BASIC=$(printf 'bench:%s' "$PEER_SECRET" | base64 -w0)
jar=$BENCH_TMP/peer-jar
token=$(curl -fsS -c "$jar" -b "$jar" "$PEER/users/sign_in" | grep -o 'name="authenticity_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
curl -sS -o /dev/null -c "$jar" -b "$jar" --data-urlencode "authenticity_token=$token" \
  --data-urlencode "user[email]=bench@example.com" --data-urlencode "user[password]=$PASSWORD" "$PEER/users/sign_in"
PEER_SESSION=$(awk '$6 == "_peer_session" {print $7}' "$jar")
[ -n "$PEER_SESSION" ] || die "Devise sign-in failed on the peer"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: _peer_session=$PEER_SESSION" "$PEER/session")" = 200 ] \
  || die "the peer's session who-am-I does not answer 200"

# --- nginx's static 200 beside /healthz ------------------------------------------------------------------------
NGINX_PORT=${NGINX_BENCH_PORT:-18622}
NGINX_WORKERS=2 nginx_start "$BENCH_TMP/nginx" "$NGINX_PORT" \
  "keepalive_requests 1000000; server { listen 127.0.0.1:$NGINX_PORT; location / { return 200 \"ok\"; } }"
NGINX_PIDS=$(nginx_pids "$BENCH_TMP/nginx")

# --- wrk scripts -------------------------------------------------------------------------------------------------
cat > "$BENCH_TMP/introspect-gh.lua" <<LUA
wrk.method = "POST"; wrk.body = "token=$GH_ACCESS"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"; wrk.headers["Authorization"] = "Basic $GH_BASIC"
LUA
cat > "$BENCH_TMP/introspect-peer.lua" <<LUA
wrk.method = "POST"; wrk.body = "token=$PEER_ACCESS"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"; wrk.headers["Authorization"] = "Basic $PEER_BASIC"
LUA

# row NAME: after measuring both sides into G_* and P_*, prints one table row.
ROWS=()
FAILURES=0
cell() { echo "$1 ($2)"; }
row() {
  local name=$1 ratio cpu_ratio
  ratio=$(awk -v a="$G_RPS" -v b="${P_RPS:-}" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else print "—" }')
  cpu_ratio=$(awk -v a="$G_CPU" -v b="${P_CPU:-}" 'BEGIN { if (a > 0 && b > 0) printf "%.1f×", b / a; else print "—" }')
  ROWS+=("| $name | $G_RPS | $G_P99 | $G_CPU | ${P_RPS:-—} | ${P_P99:-—} | ${P_CPU:-—} | $ratio | $cpu_ratio | $G_BAD / ${P_BAD:-—} |")
  [ "$G_BAD" = 0 ] && [ "${P_BAD:-0}" = 0 ] || FAILURES=$((FAILURES + 1))
}
gh() { wrk_measure "$GH_PID" "$@"; G_RPS=$M_RPS G_P99=$M_P99 G_CPU=$M_CPU G_BAD=$((M_NON2XX + M_SOCKET)); }
peer() { wrk_measure "$1" "${@:2}"; P_RPS=$M_RPS P_P99=$M_P99 P_CPU=$M_CPU P_BAD=$((M_NON2XX + M_SOCKET)); }
none() { P_RPS="" P_P99="" P_CPU="" P_BAD=""; }

echo "wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${WRK_SECONDS}s on $(nproc) cores shared by wrk and both servers; load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# Warm-up: both servers' code paths and caches (puma's workers each need their first requests).
WRK_SECONDS=2 wrk_measure "$GH_PID" "$GH/oauth/userinfo" -H "Authorization: Bearer $GH_ACCESS"
WRK_SECONDS=3 wrk_measure "$PEER_PIDS" "$PEER/api/me" -H "Authorization: Bearer $PEER_ACCESS"
WRK_SECONDS=2 wrk_measure "$PEER_PIDS" "$PEER/session" -H "Cookie: _peer_session=$PEER_SESSION"

gh "$GH/oauth/userinfo" -H "Authorization: Bearer $GH_ACCESS"
peer "$PEER_PIDS" "$PEER/api/me" -H "Authorization: Bearer $PEER_ACCESS"
row '`GET /oauth/userinfo` with a Bearer token (peer: Doorkeeper-protected `/api/me`)'

gh "$GH/oauth/introspect" -s "$BENCH_TMP/introspect-gh.lua"
peer "$PEER_PIDS" "$PEER/oauth/introspect" -s "$BENCH_TMP/introspect-peer.lua"
row 'introspection (RFC 7662, client Basic auth)'

gh "$GH/native/session" -H "Cookie: gatehouse_session=$GH_SESSION"
peer "$PEER_PIDS" "$PEER/session" -H "Cookie: _peer_session=$PEER_SESSION"
row 'session-cookie "who am I" (`/native/session`; peer: Devise JSON `/session`)'

gh "$GH/account" -H "Cookie: gatehouse_session=$GH_SESSION"
none; row '`GET /account` (HTML, session cookie)'

REFRESH_LABEL=Gatehouse REFRESH_SEEDS=$BENCH_TMP/gh-refresh REFRESH_PER_THREAD=$PER_THREAD REFRESH_BASIC=$GH_BASIC \
  gh "$GH/oauth/token" -s bench/peer/refresh-chain.lua
REFRESH_LABEL="Rails peer" REFRESH_SEEDS=$BENCH_TMP/peer-refresh REFRESH_PER_THREAD=$PER_THREAD REFRESH_BASIC=$PEER_BASIC \
  peer "$PEER_PIDS" "$PEER/oauth/token" -s bench/peer/refresh-chain.lua
row 'refresh grant, a distinct never-used token per request (rotation; Gatehouse: openid, RS256 ID token)'

REFRESH_LABEL="Gatehouse, no ID token" REFRESH_SEEDS=$BENCH_TMP/gh-refresh-lean REFRESH_PER_THREAD=$PER_THREAD REFRESH_BASIC=$GH_LEAN_BASIC \
  gh "$GH/oauth/token" -s bench/peer/refresh-chain.lua
none; row 'refresh grant, the same for a client with `refresh_id_token: false` (no ID token, like the peer)'

gh "$GH/healthz"
peer "$NGINX_PIDS" "http://127.0.0.1:$NGINX_PORT/"
row '`/healthz` (peer column: nginx static 200, 2 workers)'

GH_RSS_AFTER=$(rss_mb_of "$GH_PID") GH_PSS_AFTER=$(pss_mb_of "$GH_PID")
PEER_RSS_AFTER=$(rss_mb_of $PEER_PIDS) PEER_PSS_AFTER=$(pss_mb_of $PEER_PIDS)

echo "wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${WRK_SECONDS}s, $(nproc) cores shared by wrk and both servers, $(date -u '+%Y-%m-%d %H:%M UTC'); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| workload | Gatehouse req/s | p99 | server CPU µs/req | Rails peer req/s | p99 | server CPU µs/req | req/s ratio | CPU ratio (peer/GH) | errors GH / peer |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo "| RSS idle / after the run (MB; peer: puma master + 2 workers, summed) | $GH_RSS_IDLE / $GH_RSS_AFTER | | | $PEER_RSS_IDLE / $PEER_RSS_AFTER | | | | | |"
echo "| PSS idle / after the run (MB; shared pages counted once) | $GH_PSS_IDLE / $GH_PSS_AFTER | | | $PEER_PSS_IDLE / $PEER_PSS_AFTER | | | | | |"
echo
grep '^refresh-chain' "$BENCH_TMP/wrk.stderr" | sed 's/^/    /' || true
[ "$FAILURES" = 0 ] || die "$FAILURES row(s) had non-2xx/3xx answers or socket errors (see the errors column)"
