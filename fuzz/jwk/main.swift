import FuzzSupport

runFuzzer(fuzzJWK)
