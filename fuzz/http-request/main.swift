import FuzzSupport

runFuzzer(prepare: { _ = FuzzedApplication.pipeline }, fuzzHTTPRequest)
