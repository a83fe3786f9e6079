import FuzzSupport

runFuzzer(fuzzOAuthParameters)
