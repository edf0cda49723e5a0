import CatalogModel

/// A slice of the items in an order, with the total, from one snapshot (what `GET /api/items`
/// returns): the total and the generation always describe the items given.
public struct ItemList: Sendable, Hashable {
    public var generation: Int64
    public var items: [ItemRow]
    public var total: Int
}

extension Catalog {
    /// The items `request` asks for, the total and the generation, read in one snapshot.
    public func list(_ request: ListRequest) throws -> ItemList {
        try store.withSnapshot { snapshot in
            ItemList(generation: try snapshot.generation(),
                     items: try snapshot.items(order: request.order, limit: request.limit, offset: request.offset),
                     total: try snapshot.itemCount())
        }
    }
}
