/// What an import did: items `added` (new keys), `updated` (a row that changed its item) and
/// `unchanged` (a row that left its item as it was). An import that adds and updates nothing
/// leaves the catalog, its generation included, as it was.
public struct ImportSummary: Sendable, Hashable {
    public var added: Int
    public var updated: Int
    public var unchanged: Int
    /// The catalog's generation after the import.
    public var generation: Int64
    /// The CSV header's columns (or the NDJSON objects' fields) that are not fields the import
    /// reads (misspelt ones among them), as the input names them.
    public var ignoredColumns: [String] = []
    /// Whether `ignoredColumns` are NDJSON fields (those of the input's first lines), not a
    /// CSV header's columns.
    public var ignoredAreFields = false

    package init(added: Int, updated: Int, unchanged: Int = 0, generation: Int64) {
        self.added = added
        self.updated = updated
        self.unchanged = unchanged
        self.generation = generation
    }
}
