#!/bin/sh
# Builds the crypto benchmark in release mode and runs it pinned to one core.
# Usage: bench/crypto.sh [seconds-per-measurement] [rounds]   (defaults: 2 s, 3 rounds)
set -eu
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
swift build -c release --scratch-path "$SCRATCH" --product GatehouseCryptoBench >&2
BIN="$SCRATCH/release/GatehouseCryptoBench"
if command -v taskset >/dev/null 2>&1; then
    exec taskset -c 1 "$BIN" "$@"
else
    exec "$BIN" "$@"
fi
