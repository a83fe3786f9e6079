import FuzzSupport

runFuzzer(fuzzForms)
