import Foundation
import PackagePlugin

/// Turns the package's Migrations/NNNN_description.sql files (Migrations/postgres/ for the
/// PostgreSQL store) into Swift source for the target,
/// in file-name order. The file name (without .sql) is the migration's id. The SQLite store
/// also gets Migrations/layouts/, the schema of its file of stored layouts, as
/// `EmbeddedLayoutMigrations`.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // PostgreSQL's migrations beside SQLite's, under the same rules (Migrations/postgres/).
        if target.name == "CatalogStorePostgres" {
            return [try command(context, folder: "Migrations/postgres", enumName: "EmbeddedMigrations")]
        }
        return [try command(context, folder: "Migrations", enumName: "EmbeddedMigrations"),
                try command(context, folder: "Migrations/layouts", enumName: "EmbeddedLayoutMigrations")]
    }

    private func command(_ context: PluginContext, folder path: String, enumName: String) throws -> Command {
        let folder = context.package.directoryURL.appending(path: path)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(enumName).swift")
        return .buildCommand(
            displayName: "Embedding \(files.count) migrations of \(path)",
            executable: try context.tool(named: "MigrationEmbedder").url,
            arguments: ["--enum", enumName, output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )
    }
}
