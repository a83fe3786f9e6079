# Shared helpers for the bench scripts: wrk runs parsed into req/s, p99 and server CPU per request.

# cpu_ticks PID: user+system clock ticks the process has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wrk_run NAME PID URL [extra wrk args...]: runs wrk and prints one table row.
wrk_run() {
  local name=$1 pid=$2 url=$3; shift 3
  local before after out rps p99 reqs cpu_us
  before=$(cpu_ticks "$pid")
  out=$(wrk -t"${WRK_THREADS:-2}" -c"${WRK_CONNECTIONS:-64}" -d"${WRK_SECONDS:-10}s" --latency "$@" "$url")
  after=$(cpu_ticks "$pid")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  local hz; hz=$(getconf CLK_TCK)
  cpu_us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$reqs" 'BEGIN { if (n > 0) printf "%.1f", t / hz * 1e6 / n; else print "n/a" }')
  local non2xx; non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  # A refresh row whose wrk threads used every token stopped early, and its req/s is only a floor.
  if [ -n "${REFRESH_TOKENS_FILE:-}" ] && [ "${reqs:-0}" -ge $(( $(wc -l <"$REFRESH_TOKENS_FILE") - ${WRK_THREADS:-2} )) ]; then
    name="$name (every token used: req/s is a floor)"
  fi
  printf '| %s | %s | %s | %s | %s |\n' "$name" "${rps%.*}" "$p99" "$cpu_us" "${non2xx:-0}"
  echo "$rps" > "${BENCH_TMP:-/tmp}/rps-${name//[^A-Za-z0-9]/_}"
  echo "$cpu_us" > "${BENCH_TMP:-/tmp}/cpu-${name//[^A-Za-z0-9]/_}"
}

# pg_ticks: "pid ticks" for each process of the PostgreSQL cluster whose postmaster is $PG_POSTMASTER (the
# postmaster and its children: the pooled backends of the server, which live through a row, and the background
# processes).
pg_ticks() {
  local pid
  for pid in $PG_POSTMASTER $(pgrep -P "$PG_POSTMASTER"); do echo "$pid $(cpu_ticks "$pid" 2>/dev/null || echo 0)"; done
}
# pg_delta BEFORE AFTER: ticks used between the two pg_ticks lists by the processes alive at both (a worker that
# exited in between would otherwise count negative) and by those started in between.
pg_delta() {
  awk 'NR == FNR { before[$1] = $2; next } { total += $2 - (($1 in before) ? before[$1] : 0) } END { print total + 0 }' \
    <(echo "$1") <(echo "$2")
}

# wait_http URL: waits until the URL answers.
wait_http() {
  for _ in $(seq 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "no answer from $1" >&2; return 1
}

# rss_mb PID: resident set size of the process in MB (one decimal).
rss_mb() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# start_gatehouse LOGFILE URL ARGS...: starts `gatehouse ARGS` in the background, sets GH_PID and
# READY_MS (spawn to the first 200 from URL/healthz, polled without sleeping).
start_gatehouse() {
  local log=$1 url=$2; shift 2
  local started; started=$(date +%s%N)
  .build/release/gatehouse "$@" >"$log" 2>&1 &
  GH_PID=$!
  for _ in $(seq 2000); do curl -fs -o /dev/null "$url/healthz" && break; done
  READY_MS=$(( ($(date +%s%N) - started) / 1000000 ))
}

# argon2_ceiling: hashes/s with every core hashing at once (`GatehouseCryptoBench --argon2-ceiling`; build the
# product first). This machine's speed drifts by 20% and more within minutes, so a row bound by Argon2id is
# compared with ceilings measured right before and after it, not with one from another script.
argon2_ceiling() {
  .build/release/GatehouseCryptoBench --argon2-ceiling 6 | sed -n 's/.*: \([0-9.]*\) hashes\/s.*/\1/p'
}

# rs256_ceiling: RS256 (RSA-2048) signatures/s with one signing thread per core (`GatehouseCryptoBench --rs256-ceiling`):
# the physical limit of a refresh row whose every answer carries an RS256 ID token. Measured right before and after it.
rs256_ceiling() {
  .build/release/GatehouseCryptoBench --rs256-ceiling 4 | sed -n 's/.*: \([0-9.]*\) signatures\/s.*/\1/p'
}

# rs256_ratio WHAT RPS BEFORE AFTER: prints RPS against the mean of the RS256 ceilings before and after the row.
rs256_ratio() {
  awk -v what="$1" -v f="$2" -v a="$3" -v b="$4" \
    'BEGIN { printf "%s / RS256 ceiling (every core signing, %.1f before and %.1f after the row): %.2f (target >= 0.9)\n", what, a, b, f / ((a + b) / 2) }'
}

# argon2_ratio WHAT RPS BEFORE AFTER SPAN: prints RPS against the mean of the ceilings before and after SPAN.
argon2_ratio() {
  awk -v what="$1" -v f="$2" -v a="$3" -v b="$4" -v span="$5" \
    'BEGIN { printf "%s / Argon2id ceiling (every core hashing, %.1f before and %.1f after %s): %.2f (target >= 0.9)\n", what, a, b, span, f / ((a + b) / 2) }'
}
