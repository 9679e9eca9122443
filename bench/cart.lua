-- GET /cart as a random seeded shopper (each with a cart of a few lines).
-- Tokens: one per line in $AXIOM_SHOPPER_TOKENS (written by bench/seed_users.py).
local tokens = {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_TOKENS") or "bench/shopper_tokens.txt") do
  tokens[#tokens + 1] = line
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
end

function request()
  return wrk.format("GET", "/cart", { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)] })
end
