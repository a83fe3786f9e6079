#!/usr/bin/env bash
# What the upgrade test and the second review's attack suite add to `make test` (BENCHMARKS.md, "make test: the
# upgrade and the review's attack suite"). Wall time and CPU (user+sys of the test and every child it waited for),
# from /usr/bin/time; the once-per-machine build of the previous release is read from its cache.
# Usage: bench/make-test-cost.sh [cold]   (cold: empty the previous release's cache first; minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/metadata
CACHE=${GATEHOUSE_COMMIT_CACHE:-$PWD/.build/commits}/$PREVIOUS_RELEASE_COMMIT
if [ "${1:-}" = cold ]; then rm -rf "$CACHE"; fi
echo "bench/make-test-cost.sh on $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
measure() {
  local name=$1; shift
  /usr/bin/time -f "$name: %e s wall, %U s user + %S s sys (exit %x)" "$@" >/dev/null 2>"$BENCH_LOG" || true
  tail -1 "$BENCH_LOG"
}
BENCH_LOG=$(mktemp); trap 'rm -f "$BENCH_LOG"' EXIT
measure "e2e/package/test_upgrade.py" python3 -m pytest e2e/package/test_upgrade.py -q -p no:cacheprovider
echo "previous release build (${PREVIOUS_RELEASE_COMMIT:0:7}, once per machine): $(cat "$CACHE/build-seconds" 2>/dev/null || echo '?') s wall"
measure "e2e/security/test_review_findings.py" python3 -m pytest e2e/security/test_review_findings.py -q -p no:cacheprovider
