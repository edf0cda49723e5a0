import Foundation
import PackagePlugin

/// Turns the package's Migrations/NNNN_description.sql files (Migrations/postgres/ for the
/// PostgreSQL store) into Swift source for the target,
/// in file-name order. The file name (without .sql) is the migration's id.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // PostgreSQL's migrations beside SQLite's, under the same rules (Migrations/postgres/).
        let folder = context.package.directoryURL.appending(path: target.name == "CatalogStorePostgres" ? "Migrations/postgres" : "Migrations")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) migrations",
            executable: try context.tool(named: "MigrationEmbedder").url,
            arguments: [output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )]
    }
}
