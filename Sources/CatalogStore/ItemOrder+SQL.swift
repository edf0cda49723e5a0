import CatalogModel

extension ItemOrder {
    /// The ORDER BY clause of this order; `items_by_date` serves the date order.
    var orderBy: String {
        switch self {
        case .date: "sort_date DESC, key ASC"
        case .path: "key ASC"
        }
    }
}
