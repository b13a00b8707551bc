-- wrk script: POST one non-streaming chat completion with a Bearer token.
-- The token comes from the environment (SVC_BENCH_TOKEN), made by cpu-ab.sh through the admin API.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SVC_BENCH_TOKEN")
wrk.body = '{"model":"pro-1","max_tokens":16,"messages":[{"role":"user","content":"Say hello to the load test."}]}'

-- Non-2xx answers are counted by wrk ("Non-2xx or 3xx responses"); cpu-ab.sh refuses a round with any.
