import FuzzSupport

runFuzzer(fuzzTemplates)
