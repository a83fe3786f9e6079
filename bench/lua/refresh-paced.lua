-- wrk script: bench/lua/refresh-distinct.lua (a refresh token never presented before on every request),
-- paced: each connection waits PACE_MS (default 10) after every answer. The writer-hold check of
-- bench/scale.sh uses it as a probe: at a fixed, light rate its p99 shows how long a purge or a migration
-- keeps a rotation waiting for the writer, not how long requests queue behind each other.
dofile("bench/lua/refresh-distinct.lua")

local pace = tonumber(os.getenv("PACE_MS") or "10")
function delay()
  return pace
end
