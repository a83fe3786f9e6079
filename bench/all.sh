#!/usr/bin/env bash
# Runs every benchmark in turn and prints their tables (what BENCHMARKS.md records).
# Usage: bench/all.sh   (WRK_SECONDS shortens or lengthens each wrk run; default 10)
set -uo pipefail
cd "$(dirname "$0")/.."
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for script in bench/http.sh bench/sessions.sh bench/oauth.sh bench/read-paths.sh bench/postgres.sh bench/side-by-side.sh bench/load.sh; do
  [ -x "$script" ] || continue
  # The previous script's files are still being written back (its databases, deleted on exit): a refresh
  # run's fsyncs queue behind that writeback and its p99 grows by 100+ ms. Each script starts on a settled disk.
  sync; sleep 3
  echo; echo "## $script"; "$script" 2>&1 | grep -v '^$' || echo "($script failed)"
done
sync; sleep 3
echo; echo "## bench/crypto.sh 2 3"; bench/crypto.sh 2 3 2>/dev/null
