#!/bin/sh
# Builds the crypto benchmark in release mode and runs it pinned to one core, then measures the Argon2id
# ceiling on every core.
# Usage: bench/crypto.sh [seconds-per-measurement] [rounds]   (defaults: 2 s, 3 rounds)
set -eu
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
swift build -c release --scratch-path "$SCRATCH" --product GatehouseCryptoBench >&2
BIN="$SCRATCH/release/GatehouseCryptoBench"
if command -v taskset >/dev/null 2>&1; then
    taskset -c 1 "$BIN" "$@"
else
    "$BIN" "$@"
fi
# The password sign-in target's ceiling: every core hashing at once (not pinned).
"$BIN" --argon2-ceiling 6
