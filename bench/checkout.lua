-- POST /checkout: each seeded buyer ($AXIOM_BUYER_TOKENS) has a cart of one
-- line and checks out exactly once (checkout clears the cart). Thread t of
-- $WRK_THREADS (default 2) takes buyers t, t+T, t+2T, ... in order, so no
-- two requests use one buyer; when a thread runs out it starts over and
-- those requests get 409 empty_cart (shown as Non-2xx: seed more buyers).
local tokens = {}
for line in io.lines(os.getenv("AXIOM_BUYER_TOKENS") or "bench/buyer_tokens.txt") do
  tokens[#tokens + 1] = line
end
local stride = tonumber(os.getenv("WRK_THREADS") or "2")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local next_index
function request()
  next_index = next_index or (tid or 1)
  local token = tokens[next_index]
  next_index = next_index + stride
  if next_index > #tokens then next_index = tid or 1 end
  return wrk.format("POST", "/checkout", { ["Authorization"] = "Bearer " .. token })
end
