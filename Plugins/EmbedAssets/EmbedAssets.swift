import Foundation
import PackagePlugin

/// Turns the files of the target's Assets/ folder (the OpenAPI document, web assets) into Swift
/// source, so that an installed `catalog` binary serves them with nothing beside it.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL.appending(path: "Assets")
        let files = (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { !$0.hasDirectoryPath }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) assets",
            executable: try context.tool(named: "MigrationEmbedder").url,
            arguments: ["--assets", folder.path, output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )]
    }
}
