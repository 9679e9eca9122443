-- GET /orders as one of the signed-in seeded users ($AXIOM_SHOPPER_TOKENS,
-- one bearer token a line), drawn at random per request.
local tokens = {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_TOKENS")) do tokens[#tokens + 1] = line end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
end

function request()
  return wrk.format("GET", "/orders", { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)] })
end
