import Foundation

// Top-level code runs on the main actor; the work lives in SimulatorServerCommand.
let status = await SimulatorServerCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
