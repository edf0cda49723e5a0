/// The two orders a change set turns one into the other, read from one snapshot: the items'
/// ids in `order` at generation `from` and at `to`, and which items in both changed content.
public struct OrderChange: Sendable {
    public var from: Int64
    public var to: Int64
    /// Ids in the order at `from`.
    public var old: [Int64]
    /// Ids in the order at `to`.
    public var new: [Int64]
    /// Items in both whose key, date or display size differs between the two generations.
    public var changed: Set<Int64>

    package init(from: Int64, to: Int64, old: [Int64], new: [Int64], changed: Set<Int64>) {
        self.from = from
        self.to = to
        self.old = old
        self.new = new
        self.changed = changed
    }
}

/// How far back the change log reaches (Migrations/0007_change_log.sql): a change set since an
/// older generation is a "reload".
package enum ChangeLogBounds {
    /// The log keeps the changes of this many generations at least (unless `rows` is reached).
    package static let generations: Int64 = 1000
    /// And at most this many logged changes (updates and removals; additions cost no row).
    package static let rows = 1_000_000
    /// An import of more than this many rows, and of more than a tenth of the catalog, is not logged: a
    /// change set across it is a reload.
    package static let reloadRows = 100_000
    /// The bounds are enforced every this many generations.
    package static let pruneEvery: Int64 = 16
}
