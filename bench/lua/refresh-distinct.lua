-- wrk script: every request presents a refresh token never presented before.
-- REFRESH_TOKENS_FILE: one token per line (gatehouse bench refresh-tokens); BENCH_BASIC: the client's
-- Basic credentials; WRK_THREADS: wrk's -t (thread i takes lines i, i+t, i+2t, …, so no token is sent
-- twice). A thread that runs out stops, and its last request is a reuse (counted as non-2xx).
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local threads = tonumber(os.getenv("WRK_THREADS") or "2")
  local basic = os.getenv("BENCH_BASIC")
  headers = { ["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = "Basic " .. basic }
  tokens = {}
  local line_number = 0
  for line in io.lines(os.getenv("REFRESH_TOKENS_FILE")) do
    if line_number % threads == id then tokens[#tokens + 1] = line end
    line_number = line_number + 1
  end
  position = 0
end

function request()
  position = position + 1
  if position > #tokens then
    wrk.thread:stop()
    position = #tokens
  end
  return wrk.format("POST", nil, headers, "grant_type=refresh_token&refresh_token=" .. tokens[position])
end
