#!/usr/bin/env bash
# Interleaved A/B of streaming CPU through compiled gateways on the openai-compatible backend (the
# proxy scenario's instant upstream, 20-chunk answers), chat completions and /v1/responses side by
# side. Every side runs at once as its own server (fresh data directory, own account); a round
# gives each side (order rotating) a chat row and a responses row (order alternating), each
# `wrk -t1 -c50 -d${SECONDS_PER_ROW:-3}s` after a 1 s warm-up, the server's utime+stime from
# /proc/<pid>/stat around the row ÷ requests. Prints every row, then per side the median CPU ms
# per stream over the rounds and the median of the per-round responses ÷ chat ratios; round 0 is
# the servers' JIT warm-up and stays out of the medians (run at least 2 rounds).
# Usage: stream-ab.sh ROUNDS NAME=DIR [NAME=DIR ...]   (DIR holds a built dist/; npm run build)
set -euo pipefail
rounds=$1
shift
sides=("$@")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" # tsx (for the upstream) resolves from here
tck=$(getconf CLK_TCK)
admin=bench-admin-key-0123456789abcdef
secs=${SECONDS_PER_ROW:-3}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# The node flags of a side's `npm start` (before its entry), so each side runs as it is deployed.
start_flags() {
  node -p "require('$1/package.json').scripts.start.split(/\\s+/).filter((w) => w.startsWith('--')).join(' ')"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

node --import tsx "$root/bench/proxy/instant-upstream-main.ts" >"$work/upstream.out" &
pids+=($!)
for _ in $(seq 300); do grep -q 'listening on' "$work/upstream.out" 2>/dev/null && break; sleep 0.1; done
upstream=$(awk '/listening on/ { print $NF }' "$work/upstream.out")

declare -A port pid token
for side in "${sides[@]}"; do
  name=${side%%=*} dir=${side#*=}
  mkdir -p "$work/$name"
  PORT=0 SVC_DATA_DIR=$work/$name SVC_ADMIN_KEY=$admin SVC_LOG_LEVEL=warn SVC_CHAT_CACHE_TTL_S=0 \
    SVC_BACKEND=openai-compatible SVC_UPSTREAM_BASE_URL=http://127.0.0.1:$upstream/v1 \
    SVC_UPSTREAM_MODEL=instant SVC_UPSTREAM_API_KEY=sk-bench-upstream SVC_UPSTREAM_CONCURRENCY=512 \
    node $(start_flags "$dir") ${NODE_FLAGS:-} "$dir/dist/http/main.js" >"$work/$name.out" 2>"$work/$name.err" &
  pid[$name]=$!
  pids+=($!)
  for _ in $(seq 600); do grep -q 'svc listening on' "$work/$name.out" 2>/dev/null && break; sleep 0.1; done
  port[$name]=$(sed -n 's/.*svc listening on \([0-9]*\).*/\1/p' "$work/$name.out" | head -1)
  token[$name]=$(curl -sf -X POST "http://127.0.0.1:${port[$name]}/admin/v1/accounts" \
    -H "authorization: Bearer $admin" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"correct horse battery","credit_usd":1000000}' |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).api_token.token))')
done

row() {
  local name=$1 wire=$2 round=$3 path out reqs before after bad
  path=/v1/chat/completions
  [ "$wire" = responses ] && path=/v1/responses
  export SVC_BENCH_TOKEN=${token[$name]} SVC_BENCH_WIRE=$wire
  wrk -t1 -c50 -d1s -s "$here/sse-post.lua" "http://127.0.0.1:${port[$name]}$path" >/dev/null
  before=$(cpu_ticks "${pid[$name]}")
  out=$(wrk -t1 -c50 -d"${secs}"s -s "$here/sse-post.lua" "http://127.0.0.1:${port[$name]}$path")
  after=$(cpu_ticks "${pid[$name]}")
  reqs=$(echo "$out" | awk '/requests in/ { print $1 }')
  bad=$(echo "$out" | awk '/Non-2xx/ { print $NF }')
  awk -v n="$name" -v w="$wire" -v r="$reqs" -v b="$before" -v a="$after" -v t="$tck" -v bad="${bad:-0}" \
    -v k="$round" -v la="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "row\t%s\t%s\t%d\trequests=%d\tnon2xx=%d\tcpu_ms=%.4f\tload=%s\n", n, w, k, r, bad, (a - b) * 1000 / t / r, la }' |
    tee -a "$work/rows"
}

for ((round = 0; round < rounds; round++)); do
  for ((i = 0; i < ${#sides[@]}; i++)); do
    side=${sides[$(((i + round) % ${#sides[@]}))]}
    name=${side%%=*}
    if ((round % 2 == 0)); then row "$name" chat $round; row "$name" responses $round
    else row "$name" responses $round; row "$name" chat $round; fi
  done
done

# Medians per side and wire, and the median of the per-round responses ÷ chat ratios.
awk -F'\t' '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $4 > 0 { split($7, c, "="); v[$2, $3, $4] = c[2]; all[$2, $3] = all[$2, $3] " " c[2]; names[$2] = 1; maxr = $4 > maxr ? $4 : maxr }
  END {
    for (n in names) {
      ratios = ""
      for (k = 1; k <= maxr; k++) ratios = ratios " " sprintf("%.3f", v[n, "responses", k] / v[n, "chat", k])
      printf "side %s: chat %.4f ms/stream (%s ), responses %.4f (%s ); responses/chat per round:%s; median %.3f\n",
        n, median(all[n, "chat"]), all[n, "chat"], median(all[n, "responses"]), all[n, "responses"], ratios, median(ratios)
    }
  }' "$work/rows"
