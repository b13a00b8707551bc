-- wrk script: POST the JSON body in SVC_BENCH_BODY with the Bearer token in SVC_BENCH_TOKEN (used by
-- bench/proxy/responses-ab-main.ts, which sets both per row).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SVC_BENCH_TOKEN")
wrk.headers["anthropic-version"] = "2023-06-01"
wrk.body = os.getenv("SVC_BENCH_BODY")
