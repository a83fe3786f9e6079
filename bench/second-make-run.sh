#!/usr/bin/env bash
# "A second `make run` on a machine that has everything starts in seconds".
# Runs `make run` twice on a free loopback port with its own SQLite file: the first run installs and builds
# whatever is missing (not timed), the second is timed from the command to the first `/healthz` 200, and its
# steps are timed on their own (bootstrap no-op, release no-op build). Fails past MAX_SECONDS (default 10).
#
#   bench/second-make-run.sh            # prints the numbers; exit 1 when the second run is slower than MAX_SECONDS
set -euo pipefail
cd "$(dirname "$0")/.."
MAX_SECONDS=${MAX_SECONDS:-10}
PORT=${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=http://127.0.0.1:$PORT
export GATEHOUSE_DATABASE_URL=sqlite://$WORK/gatehouse.sqlite

now() { date +%s.%N; }
# run_once LABEL: `make run` in its own process group until /healthz answers 200, then stopped; prints seconds.
run_once() {
  local started pid elapsed
  started=$(now)
  setsid make -s run >"$WORK/$1.log" 2>&1 &
  pid=$!
  until curl -fs -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "make run exited:" >&2; tail -20 "$WORK/$1.log" >&2; return 1; fi
    sleep 0.05
  done
  elapsed=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$elapsed"
}
step() { local started; started=$(now); "$@" >/dev/null 2>&1; awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

first=$(run_once first)
second=$(run_once second)
bootstrap=$(step scripts/bootstrap serve)
build=$(step make -s release)
echo "| step | seconds |"
echo "|---|---|"
echo "| first make run (install/build what is missing) | $first |"
echo "| second make run, command to /healthz 200 | $second |"
echo "| of which scripts/bootstrap serve (no-op) | $bootstrap |"
echo "| of which make release (no-op build, incl. bootstrap) | $build |"
awk -v s="$second" -v m="$MAX_SECONDS" 'BEGIN { exit !(s <= m) }' || { echo "second make run took ${second}s (> ${MAX_SECONDS}s)" >&2; exit 1; }
