-- wrk script for bench/load.sh: every connection cycles through five requests a browser, an app and an API make —
-- the sign-in page, the session "who am I", a refresh grant with a distinct never-used token (the rotated token
-- goes back into the thread's pool, as in bench/peer/refresh-chain.lua), userinfo with a Bearer token, and an
-- authorization request with a signed-in session (first-party: answered with a redirect carrying a code).
-- done() prints the answers by status class and counts redirects that carry no code (a lost session); wrk's own summary counts the ≥ 400 answers and socket errors.
-- Environment: MIX_SESSION (cookie value), MIX_ACCESS, MIX_AUTHORIZE (path and query), REFRESH_SEEDS,
-- REFRESH_PER_THREAD, REFRESH_BASIC.
local seeds, per = {}, tonumber(os.getenv("REFRESH_PER_THREAD") or "0")
for line in io.lines(os.getenv("REFRESH_SEEDS")) do if #line > 0 then seeds[#seeds + 1] = line end end
local dealt, threads = 0, {}

function setup(thread)
  local mine = {}
  for i = 1, per do mine[i] = seeds[dealt + i] or "" end
  dealt = dealt + per
  thread:set("seed_list", table.concat(mine, ","))
  thread:set("offset", #threads)
  threads[#threads + 1] = thread
end

function init(args)
  pool, counts, rotated, stray = {}, { 0, 0, 0, 0, 0 }, 0, 0
  for token in string.gmatch(seed_list, "[^,]+") do pool[#pool + 1] = token end
  turn = offset
  local cookie = { ["Cookie"] = "gatehouse_session=" .. os.getenv("MIX_SESSION") }
  local requests = {
    wrk.format("GET", "/sign-in"),
    wrk.format("GET", "/native/session", cookie),
    "refresh",
    wrk.format("GET", "/oauth/userinfo", { ["Authorization"] = "Bearer " .. os.getenv("MIX_ACCESS") }),
    wrk.format("GET", os.getenv("MIX_AUTHORIZE"), cookie),
  }
  kinds = requests
  refresh_headers = { ["Content-Type"] = "application/x-www-form-urlencoded",
                      ["Authorization"] = "Basic " .. os.getenv("REFRESH_BASIC") }
end

function request()
  turn = turn % #kinds + 1
  local r = kinds[turn]
  if r ~= "refresh" then return r end
  local token = table.remove(pool, 1) or "exhausted"
  return wrk.format("POST", "/oauth/token", refresh_headers, "grant_type=refresh_token&refresh_token=" .. token)
end

function response(status, headers, body)
  local class = math.floor(status / 100)
  if class >= 1 and class <= 5 then counts[class] = counts[class] + 1 end
  if class == 3 then
    -- The only redirect in the mix is the authorization answer: it must carry a code, not send to /sign-in.
    local location = headers["Location"] or headers["location"] or ""
    if not location:match("[?&]code=") then stray = stray + 1 end
  elseif status == 200 then
    local token = body:match('"refresh_token"%s*:%s*"([^"]+)"')
    if token then pool[#pool + 1] = token; rotated = rotated + 1 end
  end
end

function done()
  local total, r, s = { 0, 0, 0, 0, 0 }, 0, 0
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for i = 1, 5 do total[i] = total[i] + c[i] end
    r = r + thread:get("rotated")
    s = s + thread:get("stray")
  end
  io.stderr:write(string.format("load-mix: 2xx %d, 3xx %d, 4xx %d, 5xx %d; refresh rotations %d; redirects without a code %d\n",
    total[2], total[3], total[4], total[5], r, s))
end
