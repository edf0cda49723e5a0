/// Counts for `catalog stats`.
public struct CatalogStats: Sendable, Hashable {
    /// Where the catalog is (a file path for SQLite).
    public var path: String
    public var bytesOnDisk: Int64
    public var generation: Int64
    public var items: Int
    public var itemsByFormat: [String: Int]
    public var importedItems: Int
    public var files: Int
    public var unsupportedFiles: Int
    public var failedFiles: Int

    package init(path: String, bytesOnDisk: Int64, generation: Int64, items: Int, itemsByFormat: [String: Int], importedItems: Int,
                 files: Int, unsupportedFiles: Int, failedFiles: Int) {
        self.path = path
        self.bytesOnDisk = bytesOnDisk
        self.generation = generation
        self.items = items
        self.itemsByFormat = itemsByFormat
        self.importedItems = importedItems
        self.files = files
        self.unsupportedFiles = unsupportedFiles
        self.failedFiles = failedFiles
    }
}
