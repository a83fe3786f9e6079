#!/usr/bin/env bash
# GET /healthz on Gatehouse vs a static 200 from nginx, in the same run, same wrk settings.
# Usage: bench/http.sh   (WRK_SECONDS, WRK_CONNECTIONS, WRK_THREADS override the defaults 10, 64, 2)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT

swift build -c release --product gatehouse >/dev/null
GH_PORT=18480; NGINX_PORT=18481

cat > "$BENCH_TMP/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $BENCH_TMP/nginx.pid;
error_log $BENCH_TMP/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { return 200 "ok"; }
  }
}
CONF
nginx -c "$BENCH_TMP/nginx.conf" -p "$BENCH_TMP" &
NGINX_PID=$!
echo '{"access_log": false}' > "$BENCH_TMP/gatehouse.json"
GATEHOUSE_LISTEN=127.0.0.1:$GH_PORT GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/gh.sqlite" \
  .build/release/gatehouse serve --config "$BENCH_TMP/gatehouse.json" >"$BENCH_TMP/gatehouse.log" &
GH_PID=$!
wait_http "http://127.0.0.1:$NGINX_PORT/"; wait_http "http://127.0.0.1:$GH_PORT/healthz"

# nginx runs a master and two workers, and both serve these connections: its CPU per request is the sum
# over the workers (counting one of them, as this script once did, halved nginx's figure).
NGINX_WORKERS=$(pgrep -P "$NGINX_PID" | paste -sd, -)
# cpu_ticks accepts a comma-separated list of pids here (lib.sh's takes one).
cpu_ticks() { local total=0 pid; for pid in ${1//,/ }; do total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat") )); done; echo "$total"; }
echo "wrk -t${WRK_THREADS:-2} -c${WRK_CONNECTIONS:-64} -d${WRK_SECONDS:-10}s, $(nproc) cores shared by wrk and the server"
echo
echo "| server | req/s | p99 | server CPU µs/req | non-2xx |"
echo "|---|---|---|---|---|"
wrk_run "warm-up" "$GH_PID" "http://127.0.0.1:$GH_PORT/healthz" >/dev/null
wrk_run "nginx static 200" "$NGINX_WORKERS" "http://127.0.0.1:$NGINX_PORT/"
wrk_run "gatehouse /healthz" "$GH_PID" "http://127.0.0.1:$GH_PORT/healthz"
awk -v a="$(cat "$BENCH_TMP/rps-gatehouse__healthz")" -v b="$(cat "$BENCH_TMP/rps-nginx_static_200")" \
  'BEGIN { printf "\nratio gatehouse / nginx: %.2f (target >= 0.90)\n", a / b }'
awk -v a="$(cat "$BENCH_TMP/cpu-gatehouse__healthz")" -v b="$(cat "$BENCH_TMP/cpu-nginx_static_200")" \
  'BEGIN { printf "server CPU per request gatehouse / nginx: %.2f (target <= 1.2; nginx: both workers summed)\n", a / b }'
