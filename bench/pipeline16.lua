-- GET /health pipelined 16 deep: each wrk request is 16 HTTP requests in one
-- write, and wrk counts every response (it parses the script's request to
-- learn the depth). The path comes from here, so the same script serves
-- ours, the Hummingbird peer and limit-c (compare.sh OUR_LUA / PEER_LUA).
init = function(args)
  local requests = {}
  for i = 1, 16 do
    requests[i] = wrk.format("GET", "/health")
  end
  pipelined = table.concat(requests)
end

request = function()
  return pipelined
end
