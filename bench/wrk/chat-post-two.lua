-- wrk script of issue 28's outside measurement: POST a two-message, non-streaming chat completion
-- (max_tokens 32) with a Bearer token from the environment (SVC_BENCH_TOKEN, made by cpu-ab.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SVC_BENCH_TOKEN")
wrk.body = '{"model":"pro-1","max_tokens":32,"messages":[{"role":"system","content":"You are terse."},'
  .. '{"role":"user","content":"Say hello to the load test."}]}'
