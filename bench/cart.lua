-- GET /cart as a random seeded shopper (each with a cart of a few lines).
-- Tokens: one per line in $AXIOM_SHOPPER_TOKENS (written by bench/seed_users.py).
-- Requests are made once per thread (one per shopper, in random order) and
-- sent in turn, so wrk spends no Lua formatting per request.
local tokens = {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_TOKENS") or "bench/shopper_tokens.txt") do
  tokens[#tokens + 1] = line
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local requests, next_index = {}, 0
function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
  for i = 1, 4096 do
    requests[i] = wrk.format("GET", "/cart", { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)] })
  end
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end
