# Helpers for bench/side-by-side.sh and bench/load.sh (source after bench/lib.sh): CPU and RSS summed over a
# server's processes, wrk runs parsed into variables, nginx in front or beside, and Gatehouse sessions and
# refresh tokens minted over HTTP the way a client gets them.

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# bench_tools: installs what the peer benchmarks run (wrk, nginx, Rails+Devise+Doorkeeper, puma) through
# scripts/bootstrap when any of it is missing; apt is reached only through that script.
bench_tools() {
  local tool missing=0
  for tool in wrk nginx puma ruby curl jq openssl python3; do command -v "$tool" >/dev/null || missing=1; done
  ruby -e 'gem "rails", "~> 6.1.0"; gem "devise"; gem "doorkeeper", "~> 5.5.0"; gem "sqlite3"' 2>/dev/null || missing=1
  [ "$missing" = 0 ] || scripts/bootstrap test || die "scripts/bootstrap test failed"
}

# process_tree PID: the process and its children (puma's master and its forked workers).
process_tree() { echo "$1" $(pgrep -P "$1" 2>/dev/null || true); }

# cpu_ticks_of PID…: user+system clock ticks summed over the processes. The command name in /proc/PID/stat
# may hold spaces (puma retitles itself), so fields are counted after its closing parenthesis.
cpu_ticks_of() {
  local total=0 pid
  for pid in "$@"; do total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}'))); done
  echo "$total"
}

# rss_mb_of PID…: resident memory summed over the processes, in MB.
rss_mb_of() {
  local pid
  for pid in "$@"; do awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; done | awk '{s += $1} END {printf "%d", s / 1024}'
}

# pss_mb_of PID…: proportional set size summed, in MB — pages shared between the processes (puma's workers and the
# master they were forked from) counted once in total rather than once per process.
pss_mb_of() {
  local pid
  for pid in "$@"; do awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup"; done | awk '{s += $1} END {printf "%d", s / 1024}'
}

# wrk_measure "PID…" URL [wrk args…]: one wrk run; sets M_RPS, M_P99, M_CPU (server µs per request over the
# listed processes), M_REQS, M_NON2XX (answers ≥ 400) and M_SOCKET (connect+read+write+timeout errors).
# wrk's own stderr (a script's done() summary) goes to $BENCH_TMP/wrk.stderr.
wrk_measure() {
  local pids=$1 url=$2 before after out hz; shift 2
  # shellcheck disable=SC2086
  before=$(cpu_ticks_of $pids)
  out=$(wrk -t"${WRK_THREADS:-2}" -c"${WRK_CONNECTIONS:-8}" -d"${WRK_SECONDS:-8}s" --latency "$@" "$url" 2>>"$BENCH_TMP/wrk.stderr") \
    || die "wrk failed against $url"
  # shellcheck disable=SC2086
  after=$(cpu_ticks_of $pids)
  hz=$(getconf CLK_TCK)
  M_RPS=$(awk '/Requests\/sec/ {printf "%d", $2}' <<<"$out")
  M_P99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  M_REQS=$(awk '/requests in/ {print $1}' <<<"$out")
  M_NON2XX=$(awk '/Non-2xx/ {print $NF}' <<<"$out"); M_NON2XX=${M_NON2XX:-0}
  M_SOCKET=$(awk -F'[ ,]+' '/Socket errors/ {print $4 + $6 + $8 + $10}' <<<"$out"); M_SOCKET=${M_SOCKET:-0}
  M_CPU=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$M_REQS" 'BEGIN { if (n > 0) printf "%.0f", t / hz * 1e6 / n; else print "n/a" }')
  M_OUT=$out
}

# nginx_start DIR PORT CONF_BODY: a private nginx (one worker unless NGINX_WORKERS) whose http {} block is
# CONF_BODY; its pid file is DIR/nginx.pid (nginx_stop DIR ends it).
nginx_start() {
  local dir=$1 port=$2 body=$3
  mkdir -p "$dir"
  cat > "$dir/nginx.conf" <<NGINX
worker_processes ${NGINX_WORKERS:-1};
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  $body
}
NGINX
  nginx -p "$dir" -c "$dir/nginx.conf" || die "nginx did not start on port $port (see $dir/error.log)"
  wait_http "http://127.0.0.1:$port/healthz" || die "nginx on port $port does not answer"
}
nginx_stop() { [ -f "$1/nginx.pid" ] && kill "$(cat "$1/nginx.pid")" 2>/dev/null; rm -f "$1/nginx.pid"; return 0; }
# nginx_pids DIR: master and workers.
nginx_pids() { [ -f "$1/nginx.pid" ] && process_tree "$(cat "$1/nginx.pid")"; }

# nginx_proxy_body PORT UPSTREAM_PORT…: the deploy/nginx-gatehouse.conf shape on plain HTTP (keep-alive upstream).
nginx_proxy_body() {
  local port=$1 servers="" p; shift
  for p in "$@"; do servers+="server 127.0.0.1:$p;"; done
  cat <<NGINX
upstream gatehouse { $servers keepalive 32; }
  server {
    listen 127.0.0.1:$port;
    location / {
      proxy_pass http://gatehouse; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host \$host; proxy_set_header X-Forwarded-For \$remote_addr;
      proxy_set_header X-Forwarded-Proto \$scheme;
    }
  }
NGINX
}

# gh_sign_in URL EMAIL PASSWORD: signs in through the rendered form (CSRF cookie and token); prints the session cookie.
gh_sign_in() {
  local url=$1 jar=$BENCH_TMP/jar-$RANDOM csrf session
  csrf=$(curl -fsS -c "$jar" -b "$jar" "$url/sign-in" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  [ -n "$csrf" ] || die "no CSRF token on $url/sign-in"
  curl -sS -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf_token=$csrf" --data-urlencode "email=$2" \
    --data-urlencode "password=$3" "$url/sign-in"
  session=$(awk '$6 == "gatehouse_session" {print $7}' "$jar")
  [ -n "$session" ] || die "sign-in as $2 failed on $url"
  echo "$session"
}

# The PKCE pair every minted code uses (a benchmark needs no fresh verifier per code).
GH_VERIFIER=bench-verifier-0123456789abcdefghijklmnopqrstuvwxyz
GH_CHALLENGE=$(printf '%s' "$GH_VERIFIER" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')

# gh_authorize_query CLIENT REDIRECT: the query of an authorization-code request with PKCE.
gh_authorize_query() {
  echo "response_type=code&client_id=$1&redirect_uri=$2&scope=openid%20email%20offline_access&state=bench-state&code_challenge=$GH_CHALLENGE&code_challenge_method=S256"
}

# gh_mint URL SESSION CLIENT SECRET REDIRECT N: N token responses (one JSON a line) through the code flow with the
# signed-in session — an authorize GET (first-party: no consent) and a code exchange each, no password hashing.
gh_mint() {
  local url=$1 session=$2 client=$3 secret=$4 redirect=$5 n=$6 i location code
  for i in $(seq "$n"); do
    location=$(curl -sS -o /dev/null -w '%{redirect_url}' -H "Cookie: gatehouse_session=$session" \
      "$url/oauth/authorize?$(gh_authorize_query "$client" "$redirect")")
    code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$location")
    [ -n "$code" ] || die "authorize gave no code (redirect: ${location:-none})"
    curl -sS -u "$client:$secret" -d grant_type=authorization_code -d "code=$code" -d "redirect_uri=$redirect" \
      -d "code_verifier=$GH_VERIFIER" "$url/oauth/token"
    echo
  done
}

# wait_answer URL SECONDS [PID LOG]: waits until anything answers over HTTP (a 401 counts: the peer's pages need a
# session); gives up at once, showing the end of LOG, when the process PID has exited.
wait_answer() {
  local i code
  for i in $(seq $(( ${2:-60} * 5 ))); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$1" 2>/dev/null || true)
    [ "$code" != "000" ] && [ -n "$code" ] && return 0
    if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
      [ -z "${4:-}" ] || tail -15 "$4" >&2
      die "the server for $1 exited before answering"
    fi
    sleep 0.2
  done
  die "no answer from $1 within ${2:-60} s"
}
