-- POST /users: a new customer per request (unique email per thread, run and
-- counter). Every request is one argon2id hash on the server's bounded
-- hashing pool, then a durable insert.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local count = 0
local run = tostring(os.time())
function request()
  count = count + 1
  return wrk.format("POST", "/users", { ["Content-Type"] = "application/json" },
    '{"name":"Bench Registrant","email":"reg-' .. run .. '-' .. (tid or 0) .. '-' .. count ..
    '@example.com","password":"bench password 1"}')
end
