public import CatalogLayout
public import CatalogModel

/// The batch that turns the order at generation `from` into the order at `to` (see
/// `BatchUpdates`); `reload` when the change log no longer reaches back to `from`, or `from` is
/// ahead of the catalog: the client must start over, and the lists are empty.
public struct ChangeSet: Sendable, Hashable {
    public var from: Int64
    public var to: Int64
    public var order: ItemOrder
    public var reload: Bool
    public var updates: BatchUpdates
}

extension Catalog {
    /// The change set from generation `request.since` to now, in `request.order`, read from
    /// one snapshot.
    public func changes(_ request: ChangeRequest) throws(StoreError) -> ChangeSet {
        guard let change = try store.orderChange(since: request.since, order: request.order) else {
            return ChangeSet(from: request.since, to: try store.generation(), order: request.order, reload: true, updates: BatchUpdates())
        }
        return ChangeSet(from: change.from, to: change.to, order: request.order, reload: false,
                         updates: BatchUpdates(from: change.old, to: change.new, changed: change.changed))
    }
}
