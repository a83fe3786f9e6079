-- wrk script: a light probe. Each connection waits 10 ms after every answer, so `-c2` sends about 200
-- requests a second: enough for a latency distribution, without taking the CPU the workload beside it
-- is measured on (a probe with no pause ran at ~30,000 req/s and cut the sign-in flood to 0.7× its rate).
function delay()
  return 10
end
