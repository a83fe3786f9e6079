import Foundation
import PackagePlugin

/// Compiles the text files of a target's `Assets/Files` folder into the target as Swift string constants,
/// so the stylesheet and scripts live in their own files (editable, lintable, diffable) while the binary
/// stays one self-contained file with no resource bundle to install beside it.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Sources/\(target.name)/Assets/Files")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
        let inputs = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [.buildCommand(displayName: "Embedding \(names.count) asset files into \(target.name)",
                              executable: try context.tool(named: "GatehouseAssetEmbedder").url,
                              arguments: [output.path] + inputs.map(\.path),
                              inputFiles: inputs, outputFiles: [output])]
    }
}
