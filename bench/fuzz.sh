#!/bin/sh
# Long fuzzing run: every fuzzer for SECONDS each (default 300), keeping the grown corpus in
# .build-fuzz/corpus. Prints execs/s and coverage per fuzzer; exits non-zero on any finding.
# Usage: bench/fuzz.sh [seconds-per-fuzzer] [fuzzer...]
set -eu
cd "$(dirname "$0")/.."
EACH=${1:-300}
[ $# -gt 0 ] && shift
FUZZ_EACH="$EACH" exec scripts/fuzz "$EACH" "$@"
