import Foundation

// Top-level code here runs on the main actor; all the work lives in nonisolated types elsewhere.
MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
let status = await GatehouseCommandLine.run(arguments: Array(CommandLine.arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment)
exit(status)
