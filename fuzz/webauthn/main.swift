import FuzzSupport

runFuzzer(fuzzWebAuthn)
