-- GET /products/{id} with ids drawn uniformly from the seeded products
-- (bench/product_ids.txt, written by bench/seed_products.py).
-- Usage: wrk -t2 -c64 -d10s --latency -s bench/product.lua http://127.0.0.1:PORT
local ids = {}
for line in io.lines(os.getenv("AXIOM_PRODUCT_IDS") or "bench/product_ids.txt") do
  ids[#ids + 1] = line
end

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
  return wrk.format("GET", prefix .. ids[math.random(1, #ids)])
end
