#!/usr/bin/env bash
# Outside CPU A/B of compiled gateways: for each round and each side (sides alternate, the order
# rotating every round), start `node <flags of its npm start> <side>/dist/http/main.js` on the sim with a fresh data
# directory, make an account and API token through the admin API, warm up with wrk for 3 s, then
# run wrk -t1 -c50 -d8s and read the server's utime+stime from /proc/<pid>/stat before and after:
# CPU ms per request = CPU delta / requests. Usage: cpu-ab.sh ROUNDS NAME=DIR [NAME=DIR ...]
# With SVC_AB_BACKEND=openai-compatible (issue 28's method) the gateways proxy through that backend
# to one instant node:http upstream (bench/proxy/instant-upstream-main.ts, started once for the run)
# with SVC_UPSTREAM_CONCURRENCY=512, and wrk posts a two-message request (max_tokens 32).
set -euo pipefail
rounds=$1
shift
sides=("$@")
here=$(cd "$(dirname "$0")" && pwd)
tck=$(getconf CLK_TCK)
admin=bench-admin-key-0123456789abcdef
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
backend=${SVC_AB_BACKEND:-sim}
script=$here/chat-post.lua
upstream_env=()
if [[ $backend == openai-compatible ]]; then
  script=$here/chat-post-two.lua
  up_out=$(mktemp)
  (cd "$here/../.." && exec node --import tsx bench/proxy/instant-upstream-main.ts >"$up_out") &
  up_pid=$!
  trap 'kill -TERM $up_pid 2>/dev/null || true; rm -f "$up_out"' EXIT
  for _ in $(seq 300); do grep -q 'upstream listening on' "$up_out" && break; sleep 0.1; done
  up_port=$(awk '/upstream listening on/ { print $4 }' "$up_out")
  upstream_env=(SVC_BACKEND=openai-compatible "SVC_UPSTREAM_BASE_URL=http://127.0.0.1:$up_port/v1"
    SVC_UPSTREAM_MODEL=instant SVC_UPSTREAM_API_KEY=sk-bench-upstream SVC_UPSTREAM_CONCURRENCY=512)
fi

# The node flags of a side's `npm start` (before its entry), so each side runs as it is deployed.
start_flags() {
  node -p "require('$1/package.json').scripts.start.split(/\\s+/).filter((w) => w.startsWith('--')).join(' ')"
}

measure() {
  local name=$1 dir=$2 data port pid token out reqs before after non2xx
  data=$(mktemp -d)
  port=$((20000 + RANDOM % 20000))
  env "${upstream_env[@]}" PORT=$port SVC_DATA_DIR=$data SVC_ADMIN_KEY=$admin SVC_LOG_LEVEL=warn SVC_CHAT_CACHE_TTL_S=0 \
    node $(start_flags "$dir") "$dir/dist/http/main.js" >"$data/out" 2>"$data/err" &
  pid=$!
  for _ in $(seq 600); do grep -q 'svc listening on' "$data/out" 2>/dev/null && break; sleep 0.1; done
  token=$(curl -sf -X POST "http://127.0.0.1:$port/admin/v1/accounts" \
    -H "authorization: Bearer $admin" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"correct horse battery","credit_usd":100000}' |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).api_token.token))')
  export SVC_BENCH_TOKEN=$token
  wrk -t1 -c50 -d3s -s "$script" "http://127.0.0.1:$port/v1/chat/completions" >/dev/null
  before=$(cpu_ticks $pid)
  out=$(wrk -t1 -c50 -d8s -s "$script" "http://127.0.0.1:$port/v1/chat/completions")
  after=$(cpu_ticks $pid)
  kill -TERM $pid
  wait $pid || true
  rm -rf "$data"
  reqs=$(echo "$out" | awk '/requests in/ { print $1 }')
  non2xx=$(echo "$out" | awk '/Non-2xx/ { print $NF }')
  awk -v n="$name" -v r="$reqs" -v b="$before" -v a="$after" -v t="$tck" -v bad="${non2xx:-0}" -v la="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "%s\trequests=%d\tnon2xx=%d\tcpu_ms_per_req=%.3f\tload=%s\n", n, r, bad, (a - b) * 1000 / t / r, la }'
}

for ((round = 0; round < rounds; round++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    side=${sides[$(((i + round) % ${#sides[@]}))]}
    measure "${side%%=*}" "${side#*=}"
  done
done
