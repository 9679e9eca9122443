-- POST /checkout with an Idempotency-Key, as a client in front of several
-- replicas sends it (a retry through the balancer may reach another
-- replica; the key's unique index joins it to the first order). Buyers as
-- in bench/checkout.lua: thread t of $WRK_THREADS takes buyers t, t+T, ...
-- of $AXIOM_BUYER_TOKENS once each; the key is this run's start time, the
-- lap and the buyer's index, so no two requests share one: a thread that
-- runs out of buyers starts over and gets 409 empty_cart (Non-2xx: seed
-- more buyers), never a cheap replay of an order already placed.
local tokens = {}
for line in io.lines(os.getenv("AXIOM_BUYER_TOKENS") or "bench/buyer_tokens.txt") do
  tokens[#tokens + 1] = line
end
local stride = tonumber(os.getenv("WRK_THREADS") or "2")
local run = tostring(os.time())

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local next_index, lap
function request()
  next_index = next_index or (tid or 1)
  lap = lap or 0
  local index = next_index
  next_index = next_index + stride
  if next_index > #tokens then next_index, lap = tid or 1, lap + 1 end
  return wrk.format("POST", "/checkout", {
    ["Authorization"] = "Bearer " .. tokens[index],
    ["Idempotency-Key"] = "bench-" .. run .. "-" .. lap .. "-" .. index,
  })
end
