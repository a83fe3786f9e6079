#!/usr/bin/env bash
# Server CPU per passkey sign-in beside the Argon2id password sign-in (BENCHMARKS.md, "Passkeys").
# Usage: bench/passkeys.sh [N]   (N sign-ins of each kind, default 200; needs python3-cryptography)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BENCH_TMP=$(mktemp -d); export BENCH_TMP
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$BENCH_TMP"' EXIT
N=${1:-200}

swift build -c release --product gatehouse >/dev/null
# WebAuthn wants a domain as RP ID: the public URL is on localhost.
PORT=18493; URL=http://localhost:$PORT
export GATEHOUSE_LISTEN=127.0.0.1:$PORT GATEHOUSE_PUBLIC_URL=$URL GATEHOUSE_DATABASE_URL="sqlite://$BENCH_TMP/gh.sqlite"
# Rate limits off: this measures the work, not the brute-force protection.
echo '{"access_log": false, "rate_limits": {"enabled": false}}' > "$BENCH_TMP/config.json"
echo "bench password 1234" | .build/release/gatehouse user create --email bench@example.com --password-stdin --verified \
  --config "$BENCH_TMP/config.json" >/dev/null
start_gatehouse "$BENCH_TMP/gatehouse.log" "http://127.0.0.1:$PORT" serve --config "$BENCH_TMP/config.json"
echo "bench/passkeys.sh on $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/passkeys/signins.py "$URL" "$GH_PID" bench@example.com "bench password 1234" "$N"
