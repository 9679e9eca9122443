-- POST /sessions: a seeded shopper signs in with the right password
-- (successes are not throttled). Every request is one argon2id
-- verification on the server's bounded hashing pool, and each success
-- stores a new session. Emails: $AXIOM_SHOPPER_EMAILS; password
-- $AXIOM_BENCH_PASSWORD (both set by scripts/bench.sh).
local emails = {}
for line in io.lines(os.getenv("AXIOM_SHOPPER_EMAILS") or "bench/shopper_emails.txt") do
  emails[#emails + 1] = line
end
local password = os.getenv("AXIOM_BENCH_PASSWORD") or "bench password 1"

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
end

function request()
  return wrk.format("POST", "/sessions", { ["Content-Type"] = "application/json" },
    '{"email":"' .. emails[math.random(1, #emails)] .. '","password":"' .. password .. '"}')
end
