#!/usr/bin/env bash
# Exact user-space instructions per request, immune to other load on the machine: each server runs in
# callgrind, is warmed up, its counters are zeroed, it gets N keep-alive requests (ab -k -c4) and is dumped.
#  1. GET /healthz on bench/httpharness (the libmicrohttpd bridge and the middleware alone, no Swift tasks);
#  2. nginx's static 200 (one worker, no master process), counted the same way, as /healthz's peer;
#  3. the real `gatehouse serve` (BINARY): GET /healthz, GET /oauth/userinfo (Bearer), POST /oauth/introspect
#     (HTTP Basic client, a valid access token) and GET /native/session (a session cookie). Swift's async main
#     ends in dispatch_main(), where valgrind 3.19 dies, so bench/valgrind/dispatch-main.c is preloaded: the
#     main thread drains the main queue itself; the request path is the shipped binary's.
# The kernel's share (TCP, epoll) is not counted: these are user-space instructions only.
# Usage: bench/callgrind-http.sh [N]   (default 20000 requests per workload; 5000 is enough for the app rows)
#        BINARY (default .build/release/gatehouse, built when it is the default), TOP (functions listed per
#        workload, default 25; 0 lists none), ONLY=app (section 3 only) or ONLY=healthz (sections 1 and 2 only),
#        KEEP=DIR (keeps each workload's dump there; `INCLUSIVE=1 python3 bench/callgrind_top.py DUMP N` ranks them).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}; PORT=${PORT:-18590}; TOP=${TOP:-25}; ONLY=${ONLY:-all}
OUT=$(mktemp -d)
PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; rm -rf "$OUT"' EXIT

# count NAME VALGRIND_PID URL [ab args...]: zeroes the counters, sends N requests, dumps, prints the row.
count() {
  local name=$1 vg=$2 url=$3; shift 3
  ab -k -c4 -n 500 "$@" "$url" >/dev/null 2>&1
  callgrind_control -z "$vg" >/dev/null 2>&1
  local report; report=$(ab -k -c4 -n "$N" "$@" "$url" 2>/dev/null)
  callgrind_control -d "$vg" >/dev/null 2>&1
  sleep 0.5
  local failed non2xx
  failed=$(awk '/^Failed requests/ {print $3}' <<<"$report"); non2xx=$(awk '/^Non-2xx responses/ {print $3}' <<<"$report")
  # callgrind_annotate 3.19 misreads these dumps (it credits everything to clone), hence the small parser.
  local dump; dump=$(ls -t "$OUT"/cg"$vg".out.* | head -1)
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$dump" "$KEEP/${name//[^A-Za-z0-9]/_}.callgrind"; fi
  python3 bench/callgrind_top.py "$dump" "$N" "$TOP" > "$OUT/top"
  printf '| %s | %s | %s | %s |\n' "$name" "$(sed -n 's/instructions per request: //p' "$OUT/top")" "${failed:-?}" "${non2xx:-0}"
  if [ "$TOP" -gt 0 ]; then tail -n +2 "$OUT/top" | sed 's/^/    /' >> "$OUT/tops"; echo "  ^ $name" >> "$OUT/tops"; fi
}

# under_callgrind LOG CMD...: starts CMD in callgrind; sets VG to its pid.
under_callgrind() {
  local log=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg%p.out" "$@" >"$log" 2>&1 &
  VG=$!; PIDS+=("$VG")
}

wait_url() { for _ in $(seq 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done; echo "no answer from $1" >&2; return 1; }

echo "callgrind, ab -k -c4, $N requests per workload (user-space instructions only)"
echo
echo "| workload | instructions/request | failed | non-2xx |"
echo "|---|---|---|---|"

if [ "$ONLY" != app ]; then
  swift build -c release --product GatehouseHTTPHarness >/dev/null
  under_callgrind "$OUT/harness.log" .build/release/GatehouseHTTPHarness "$PORT"
  wait_url "http://127.0.0.1:$PORT/healthz"
  count "GET /healthz (bench/httpharness)" "$VG" "http://127.0.0.1:$PORT/healthz"
  kill "$VG"; wait "$VG" 2>/dev/null || true

  NGINX_PORT=$((PORT + 1))
  cat > "$OUT/nginx.conf" <<CONF
master_process off;
daemon off;
worker_processes 1;
pid $OUT/nginx.pid;
error_log $OUT/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:$NGINX_PORT; location / { return 200 "ok"; } }
}
CONF
  under_callgrind "$OUT/nginx.log" nginx -c "$OUT/nginx.conf" -p "$OUT"
  wait_url "http://127.0.0.1:$NGINX_PORT/"
  count "nginx static 200" "$VG" "http://127.0.0.1:$NGINX_PORT/"
  kill "$VG"; wait "$VG" 2>/dev/null || true
fi

if [ "$ONLY" != healthz ]; then
  if [ -z "${BINARY:-}" ]; then swift build -c release --product gatehouse >/dev/null; BINARY=.build/release/gatehouse; fi
  cc -O2 -shared -fPIC bench/valgrind/dispatch-main.c -o "$OUT/dispatch-main.so"
  SECRET=bench-client-secret-0123456789abcdefghijkl
  cat > "$OUT/cfg.json" <<JSON
{"access_log": false, "rate_limits": {"enabled": false}, "oauth": {"api_scopes": ["api.read"], "access_token_lifetime_seconds": 86400},
 "clients": [{"id": "bench", "name": "Bench", "type": "confidential", "secret": "$SECRET", "first_party": true,
              "redirect_uris": ["https://bench.example/cb"], "scopes": ["api.read"], "grants": ["password"]}]}
JSON
  APP_PORT=$((PORT + 2)); U=http://127.0.0.1:$APP_PORT
  export GATEHOUSE_LISTEN=127.0.0.1:$APP_PORT GATEHOUSE_PUBLIC_URL=$U GATEHOUSE_DATABASE_URL=sqlite://$OUT/app.sqlite
  echo "bench password 1234" | "$BINARY" user create --email bench@example.com --password-stdin --verified --config "$OUT/cfg.json" >/dev/null
  # Natively first: the signing keys, a session and an access token (Argon2id would take minutes in valgrind).
  "$BINARY" serve --config "$OUT/cfg.json" > "$OUT/native.log" 2>&1 &
  native=$!; PIDS+=("$native"); wait_url "$U/healthz"
  t=$(curl -s -c "$OUT/jar" -b "$OUT/jar" "$U/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  curl -s -o /dev/null -c "$OUT/jar" -b "$OUT/jar" --data-urlencode "csrf_token=$t" --data-urlencode "email=bench@example.com" \
    --data-urlencode "password=bench password 1234" "$U/sign-in"
  SESSION=$(awk '$6 == "gatehouse_session" {print $7}' "$OUT/jar")
  TOKEN=$(curl -s -u "bench:$SECRET" -d grant_type=password -d username=bench@example.com -d "password=bench password 1234" \
    -d "scope=openid profile email" "$U/oauth/token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
  kill "$native"; wait "$native" 2>/dev/null || true
  printf 'token=%s' "$TOKEN" > "$OUT/introspect.form"
  LD_PRELOAD="$OUT/dispatch-main.so" under_callgrind "$OUT/app.log" "$BINARY" serve --config "$OUT/cfg.json"
  wait_url "$U/healthz"
  count "GET /healthz (gatehouse serve)" "$VG" "$U/healthz"
  # The token must still be valid when counted (valgrind is slow; an expired one takes introspection's other path).
  active() { curl -s -u "bench:$SECRET" --data-binary "@$OUT/introspect.form" -H "Content-Type: application/x-www-form-urlencoded" \
    "$U/oauth/introspect" | grep -q '"active":true' || { echo "the access token is not active: the rows are not valid" >&2; exit 1; }; }
  active
  count "GET /oauth/userinfo" "$VG" "$U/oauth/userinfo" -H "Authorization: Bearer $TOKEN"
  count "POST /oauth/introspect" "$VG" "$U/oauth/introspect" -p "$OUT/introspect.form" -T application/x-www-form-urlencoded \
    -H "Authorization: Basic $(printf "bench:$SECRET" | base64 -w0)"
  active
  count "GET /native/session" "$VG" "$U/native/session" -H "Cookie: gatehouse_session=$SESSION"
  kill "$VG"; wait "$VG" 2>/dev/null || true
fi

if [ "$TOP" -gt 0 ]; then
  echo
  echo "Top functions by self cost (instructions/request, share, calls/request), each list above its workload:"
  cat "$OUT/tops"
fi
