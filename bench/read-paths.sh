#!/usr/bin/env bash
# The hot read paths on one or several gatehouse binaries in the same run, interleaved, so a
# before/after comparison is fair on a loaded machine: userinfo, introspection, /native/session, /account
# without grants and with GRANTS (80000) live grants, /healthz; start-to-ready (on a restart) and RSS.
# Usage: bench/read-paths.sh [BINARY...]   (default .build/release/gatehouse; e.g. a copy of main's binary
#        first, then this build). WRK_SECONDS, WRK_CONNECTIONS (defaults 10, 64), GRANTS, ROUNDS (2).
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
[ $# -gt 0 ] || { swift build -c release --product gatehouse >/dev/null; set -- .build/release/gatehouse; }
BINARIES=("$@")
SECRET=bench-client-secret-0123456789abcdefghijkl
GRANTS=${GRANTS:-80000}
cat > $BENCH_TMP/cfg.json <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"]},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"],
              "grants": ["authorization_code", "refresh_token", "password", "client_credentials"]}]}
JSON
declare -A PIDS URLS SESS HEAVY ACC READY IDLE BIN INDEX
port=18700
NAMES=()
for index in "${!BINARIES[@]}"; do
  v="#$((index + 1))"; NAMES+=("$v"); BIN[$v]=${BINARIES[$index]}; INDEX[$v]=$index
  port=$((port+1)); U=http://127.0.0.1:$port; DB=$BENCH_TMP/db$index.sqlite
  export GATEHOUSE_LISTEN=127.0.0.1:$port GATEHOUSE_PUBLIC_URL=$U GATEHOUSE_DATABASE_URL=sqlite://$DB
  for e in bench@example.com heavy@example.com; do echo "bench password 1234" | "${BIN[$v]}" user create --email $e --password-stdin --verified --config $BENCH_TMP/cfg.json >/dev/null; done
  # A first start creates the signing keys (RSA generation); start-to-ready is measured on the restart.
  "${BIN[$v]}" serve --config $BENCH_TMP/cfg.json > $BENCH_TMP/first$index.log 2>&1 &
  first=$!; for _ in $(seq 2000); do curl -fs -o /dev/null $U/healthz && break; sleep 0.05; done; kill $first; wait $first
  started=$(date +%s%N)
  "${BIN[$v]}" serve --config $BENCH_TMP/cfg.json > $BENCH_TMP/gh$index.log 2>&1 &
  PIDS[$v]=$!
  for _ in $(seq 2000); do curl -fs -o /dev/null $U/healthz && break; done
  READY[$v]=$(( ($(date +%s%N) - started) / 1000000 ))
  sleep 1; IDLE[$v]=$(rss_mb ${PIDS[$v]})
  URLS[$v]=$U
  for e in bench heavy; do
    jar=$BENCH_TMP/jar; rm -f $jar
    t=$(curl -s -c $jar -b $jar $U/sign-in | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
    curl -s -o /dev/null -c $jar -b $jar --data-urlencode "csrf_token=$t" --data-urlencode "email=$e@example.com" --data-urlencode "password=bench password 1234" $U/sign-in
    s=$(awk '$6 == "gatehouse_session" {print $7}' $jar)
    if [ $e = bench ]; then SESS[$v]=$s; else HEAVY[$v]=$s; fi
  done
  ACC[$v]=$(curl -s -u "bench:$SECRET" -d grant_type=password -d username=bench@example.com -d "password=bench password 1234" -d "scope=openid profile email" $U/oauth/token | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
  curl -fs -o /dev/null -u "bench:$SECRET" -d grant_type=password -d username=heavy@example.com -d "password=bench password 1234" -d "scope=openid offline_access" $U/oauth/token
  sqlite3 $DB ".timeout 10000" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $GRANTS - 1) INSERT INTO refresh_tokens (hash, family_id, client_id, user_id, scope, auth_time, auth_methods, created_at, expires_at) SELECT randomblob(32), 'bench-family-' || n.i, t.client_id, t.user_id, t.scope, t.auth_time, t.auth_methods, t.created_at + n.i * 1000, t.expires_at FROM n, (SELECT * FROM refresh_tokens WHERE user_id = (SELECT id FROM users WHERE email = 'heavy@example.com') LIMIT 1) t;"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\nwrk.headers["Authorization"] = "Basic %s"\nwrk.body = "token=%s"\n' "$(printf "bench:$SECRET" | base64 -w0)" "${ACC[$v]}" > $BENCH_TMP/intro$index.lua
done
row() { local name=$1 v=$2; shift 2; wrk_run "$name ($v)" ${PIDS[$v]} "$@"; }
echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s on $(nproc) cores shared by wrk and the servers, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for index in "${!BINARIES[@]}"; do echo "#$((index + 1)) = ${BINARIES[$index]}"; done
echo
echo "| workload (binary) | req/s | p99 | server CPU µs/req | non-2xx |"
echo "|---|---|---|---|---|"
for round in $(seq "${ROUNDS:-2}"); do
for v in "${NAMES[@]}"; do   # not reported: the first calls after the bulk insert and start-up are slow
  WRK_SECONDS=2 row "warm-up" $v ${URLS[$v]}/oauth/userinfo -H "Authorization: Bearer ${ACC[$v]}" >/dev/null
  WRK_SECONDS=2 row "warm-up" $v ${URLS[$v]}/native/session -H "Cookie: gatehouse_session=${SESS[$v]}" >/dev/null
done
for v in "${NAMES[@]}"; do row "GET /oauth/userinfo" $v ${URLS[$v]}/oauth/userinfo -H "Authorization: Bearer ${ACC[$v]}"; done
for v in "${NAMES[@]}"; do row "POST /oauth/introspect" $v ${URLS[$v]}/oauth/introspect -s $BENCH_TMP/intro${INDEX[$v]}.lua; done
for v in "${NAMES[@]}"; do row "GET /native/session" $v ${URLS[$v]}/native/session -H "Cookie: gatehouse_session=${SESS[$v]}"; done
for v in "${NAMES[@]}"; do row "GET /account, no grants" $v ${URLS[$v]}/account -H "Cookie: gatehouse_session=${SESS[$v]}"; done
for v in "${NAMES[@]}"; do WRK_CONNECTIONS=8 row "GET /account, $GRANTS grants" $v ${URLS[$v]}/account -H "Cookie: gatehouse_session=${HEAVY[$v]}"; done
for v in "${NAMES[@]}"; do row "GET /healthz" $v ${URLS[$v]}/healthz; done
done
echo
for v in "${NAMES[@]}"; do
  echo "$v: start to ready ${READY[$v]} ms (a restart), RSS idle ${IDLE[$v]} MB, after these runs $(rss_mb ${PIDS[$v]}) MB"
done
