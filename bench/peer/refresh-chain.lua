-- wrk script: the refresh grant with a distinct, never-used refresh token on every request.
-- Each thread holds a pool of live refresh tokens (seeded by the caller); a request takes one out, and the
-- rotated token in its answer goes back in, so no token is ever sent twice and no pre-minting is needed.
-- A failed answer loses its token; once a pool is empty the thread sends "exhausted" and wrk counts the 4xx.
-- Environment: REFRESH_SEEDS (a file, one token a line), REFRESH_PER_THREAD, REFRESH_BASIC (base64 id:secret),
-- REFRESH_PATH (default /oauth/token).
local seeds, per = {}, tonumber(os.getenv("REFRESH_PER_THREAD") or "0")
for line in io.lines(os.getenv("REFRESH_SEEDS")) do if #line > 0 then seeds[#seeds + 1] = line end end
local dealt = 0
local threads = {}

function setup(thread)
  local mine = {}
  for i = 1, per do mine[i] = seeds[dealt + i] or "" end
  dealt = dealt + per
  thread:set("seed_list", table.concat(mine, ","))
  threads[#threads + 1] = thread
end

function init(args)
  pool, failed, rotated = {}, 0, 0
  for token in string.gmatch(seed_list, "[^,]+") do pool[#pool + 1] = token end
  path = os.getenv("REFRESH_PATH") or "/oauth/token"
  headers = { ["Content-Type"] = "application/x-www-form-urlencoded",
              ["Authorization"] = "Basic " .. os.getenv("REFRESH_BASIC") }
end

function request()
  local token = table.remove(pool, 1) or "exhausted"
  return wrk.format("POST", path, headers, "grant_type=refresh_token&refresh_token=" .. token)
end

function response(status, _, body)
  local token = status == 200 and body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if token then pool[#pool + 1] = token; rotated = rotated + 1 else failed = failed + 1 end
end

function done()
  local r, f = 0, 0
  for _, thread in ipairs(threads) do r = r + thread:get("rotated"); f = f + thread:get("failed") end
  io.stderr:write(string.format("refresh-chain (%s): %d rotations, %d failed answers\n", os.getenv("REFRESH_LABEL") or "?", r, f))
end
