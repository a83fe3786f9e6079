import FuzzSupport

runFuzzer(fuzzCookies)
