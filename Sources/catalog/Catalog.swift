import ArgumentParser

@main
struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Index image collections for waterfall galleries.",
        discussion: """
            catalog reads image sizes from JPEG and PNG headers (never decoding pixels), keeps \
            them in an SQLite catalog, and lays images out in Pinterest-style waterfall columns.
            """,
        subcommands: [Scan.self, Import.self, List.self, Errors.self, Stats.self, Probe.self]
    )
}
