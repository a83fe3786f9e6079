import Foundation

// Top-level code here runs on the main actor; all the work lives in nonisolated types elsewhere.
// The server's malloc settings only: a one-off command's threads (an import reads its file on every core)
// wait on two arenas' locks, and it exits before its RSS matters.
if CommandLine.arguments.dropFirst().first == ServeCommand.name {
    MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
}
let status = await GatehouseCommandLine.run(arguments: Array(CommandLine.arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment)
exit(status)
