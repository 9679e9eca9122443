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

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("tid", #threads)
end

-- Globals, not locals: done() reads them from each thread.
next_index, lap = nil, nil
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

-- How far into the buyers the run went (requests still in flight when it
-- ended included), so a caller can start the next run after them.
function done()
  local used = 0
  for _, thread in ipairs(threads) do
    local index, laps = thread:get("next_index"), thread:get("lap")
    if index then used = math.max(used, (laps or 0) * #tokens + index - 1) end
  end
  io.write(string.format("buyers used: %d\n", used))
end
