-- wrk script: POST one streamed request (chat completions or Responses, by SVC_BENCH_WIRE) with a
-- Bearer token from SVC_BENCH_TOKEN; the bodies are the proxy scenario's streaming ones.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SVC_BENCH_TOKEN")
if os.getenv("SVC_BENCH_WIRE") == "responses" then
  -- SVC_BENCH_STORE=false measures the path without the stored response (stored by default).
  local store = os.getenv("SVC_BENCH_STORE") == "false" and ',"store":false' or ''
  wrk.body = '{"model":"pro-1","input":"Proxy probe","max_output_tokens":64,"stream":true' .. store .. '}'
else
  wrk.body = '{"model":"pro-1","messages":[{"role":"user","content":"Proxy probe"}],"max_tokens":64,'
    .. '"stream":true,"stream_options":{"include_usage":true}}'
end
