-- GET /products?q=… with varied terms: one or two words drawn from
-- $AXIOM_SEARCH_TERMS (written by bench/seed_scale.py: the words product
-- names are made of), the last word sometimes cut to a prefix of 3+
-- letters as a user typing would send it. Anonymous, like the storefront.
-- Each thread cycles $AXIOM_SEARCH_QUERIES queries (default 4096), so a
-- run repeats them; 100000 makes nearly every query a first-time one.
-- Usage: wrk -t2 -c16 -d30s --latency -s bench/search.lua http://127.0.0.1:PORT
local terms = {}
for line in io.lines(os.getenv("AXIOM_SEARCH_TERMS")) do terms[#terms + 1] = line end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local requests, count, next_index = {}, tonumber(os.getenv("AXIOM_SEARCH_QUERIES") or "4096"), 0
function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
  for i = 1, count do
    local last = terms[math.random(1, #terms)]
    if math.random() < 0.3 then last = last:sub(1, math.random(3, math.max(3, #last))) end
    local q = last
    if math.random() < 0.5 then q = terms[math.random(1, #terms)] .. "+" .. last end
    requests[i] = wrk.format("GET", "/products?q=" .. q)
  end
end

function request()
  next_index = next_index % count + 1
  return requests[next_index]
end
