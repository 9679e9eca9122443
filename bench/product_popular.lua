-- GET /products/{id} where a few products take most reads, as in a shop:
-- the product of popularity rank r (1 = most read) is asked for with
-- probability about proportional to 1/r (Zipf, s = 1) over every id in the
-- file. The rank is drawn by inverting the continuous 1/x law, r = N^u for
-- u uniform in [0, 1): one power per request, no table of weights. Ranks
-- map to file lines through a fixed stride, so the popular products are
-- spread over the catalogue rather than being its oldest rows.
-- Usage: AXIOM_PRODUCT_IDS=DIR/product_ids.txt \
--        wrk -t2 -c64 -d10s --latency -s bench/product_popular.lua http://127.0.0.1:PORT
local ids = {}
for line in io.lines(os.getenv("AXIOM_PRODUCT_IDS") or "bench/product_ids.txt") do
  ids[#ids + 1] = line
end
local count = #ids
-- A stride coprime with the count visits every line once as r goes 1…N.
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
local stride = 7919
while gcd(count, stride) ~= 1 do stride = stride + 1 end

-- AXIOM_PATH_PREFIX (default /products/) lets the same draw ask another
-- server: the peer's /users/ over a file of its ids (scripts/bench-reads-1m.sh).
local prefix = os.getenv("AXIOM_PATH_PREFIX") or "/products/"

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
end

function request()
  local rank = math.floor(count ^ math.random())          -- 1 … count
  local line = (rank * stride) % count + 1
  return wrk.format("GET", prefix .. ids[line])
end
