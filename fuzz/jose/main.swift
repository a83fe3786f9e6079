import FuzzSupport

runFuzzer(prepare: prepareJOSE, fuzzJOSE)
