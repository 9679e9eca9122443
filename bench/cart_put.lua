-- PUT /cart/items/{product_id} {"quantity":N} as a random seeded shopper:
-- many users (all of $AXIOM_SHOPPER_TOKENS, 256 by default) so writes from
-- different carts contend for the one writer and are group-committed.
-- Products are drawn from the first $AXIOM_CART_PRODUCTS (default 10) of
-- $AXIOM_PRODUCT_IDS, so a cart stays at a usual size (3 seeded lines plus
-- at most 10; the response is the whole priced cart, so its size is part of
-- the cost). Quantity uniform in 1..99.
-- The requests are made once per thread, before the run, and then sent in
-- turn: per request wrk then spends no Lua formatting, like the peer's
-- static post_user.lua.
local tokens, ids = {}, {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_TOKENS") or "bench/shopper_tokens.txt") do
  tokens[#tokens + 1] = line
end
local pool = tonumber(os.getenv("AXIOM_CART_PRODUCTS") or "10")
for line in io.lines(os.getenv("AXIOM_PRODUCT_IDS") or "bench/product_ids.txt") do
  if #ids < pool then ids[#ids + 1] = line end
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local requests, count, next_index = {}, 8192, 0
function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
  for i = 1, count do
    requests[i] = wrk.format("PUT", "/cart/items/" .. ids[math.random(1, #ids)],
      { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)], ["Content-Type"] = "application/json" },
      '{"quantity":' .. math.random(1, 99) .. '}')
  end
end

function request()
  next_index = next_index % count + 1
  return requests[next_index]
end
