import CatalogModel

extension ItemOrder {
    /// The ORDER BY clause of this order; `items_by_date` serves the date order.
    var orderBy: String {
        switch self {
        case .date: "sort_date DESC, key ASC"
        case .path: "key ASC"
        }
    }

    /// The queries, run in turn, that list `columns` of the items of this order from the item
    /// whose id is bound to `?1` on (that item first), each a range of one index: the date order
    /// takes the rest of that item's date by key, then the older dates.
    func seekQueries(columns: String) -> [String] {
        let from = "SELECT \(columns) FROM items"
        let (date, key) = ("(SELECT sort_date FROM items WHERE id = ?1)", "(SELECT key FROM items WHERE id = ?1)")
        switch self {
        case .path: return ["\(from) WHERE key >= \(key) ORDER BY key"]
        case .date: return ["\(from) WHERE sort_date = \(date) AND key >= \(key) ORDER BY key",
                            "\(from) WHERE sort_date < \(date) ORDER BY sort_date DESC, key"]
        }
    }
}
