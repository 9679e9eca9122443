-- GET /health on keep-alive connections (wrk's default); here only to make
-- the request explicit and identical to the peer's.
wrk.method = "GET"
wrk.path = "/health"
