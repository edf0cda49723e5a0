/// What an import did.
public struct ImportSummary: Sendable, Hashable {
    public var added: Int
    public var updated: Int
    public var generation: Int64

    package init(added: Int, updated: Int, generation: Int64) {
        self.added = added
        self.updated = updated
        self.generation = generation
    }
}
