import FuzzSupport

runFuzzer(prepare: prepareProviders, fuzzProviders)
