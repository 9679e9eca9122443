-- PUT /cart/items/{product_id} {"quantity":N} as a random seeded shopper:
-- many users (all of $AXIOM_SHOPPER_TOKENS, 256 by default) so writes from
-- different carts contend for the one writer and are group-committed.
-- Products are drawn from the first $AXIOM_CART_PRODUCTS (default 20) of
-- $AXIOM_PRODUCT_IDS, so a cart stays at a realistic size (a cart holds at
-- most 100 lines; uniform over 10k products would fill every cart and turn
-- later requests into 422s). Quantity uniform in 1..99.
local tokens, ids = {}, {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_TOKENS") or "bench/shopper_tokens.txt") do
  tokens[#tokens + 1] = line
end
local pool = tonumber(os.getenv("AXIOM_CART_PRODUCTS") or "20")
for line in io.lines(os.getenv("AXIOM_PRODUCT_IDS") or "bench/product_ids.txt") do
  if #ids < pool then ids[#ids + 1] = line end
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
  return wrk.format("PUT", "/cart/items/" .. ids[math.random(1, #ids)],
    { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)], ["Content-Type"] = "application/json" },
    '{"quantity":' .. math.random(1, 99) .. '}')
end
