import FuzzSupport

runFuzzer(fuzzJSON)
