import CatalogModel

/// What `catalog list` and `GET /api/items` take: an order and a slice.
public struct ListRequest: Sendable, Hashable {
    /// The most items one request lists.
    public static let maximumLimit = 1000

    public var order: ItemOrder = .date
    /// nil: all (the command line's default; the API's is 100).
    public var limit: Int?
    public var offset = 0

    public init(order: ItemOrder = .date, limit: Int? = nil, offset: Int = 0) {
        self.order = order
        self.limit = limit
        self.offset = offset
    }

    /// Parses `sort`, `limit` and `offset`; `limitRange` bounds the limit. Errors name the parameter.
    public init(parameters: some Sequence<(name: String, value: String)>,
                limitRange: ClosedRange<Int> = 0...Int.max) throws(LayoutParameterError) {
        for (name, value) in try LayoutParameterError.once(parameters) {
            switch name {
            case "sort":
                guard let order = ItemOrder(rawValue: value) else {
                    throw LayoutParameterError(parameter: name, value: value, allowed: "one of date, path")
                }
                self.order = order
            case "limit":
                guard let limit = Int(value.trimmed), limitRange.contains(limit) else {
                    let allowed = limitRange.upperBound == Int.max ? "a whole number, \(limitRange.lowerBound) or more"
                        : "a whole number from \(limitRange.lowerBound) to \(limitRange.upperBound)"
                    throw LayoutParameterError(parameter: name, value: value, allowed: allowed)
                }
                self.limit = limit
            case "offset":
                guard let offset = Int(value.trimmed), offset >= 0 else {
                    throw LayoutParameterError(parameter: name, value: value, allowed: "a whole number, 0 or more")
                }
                self.offset = offset
            default:
                throw LayoutParameterError(parameter: name, value: value, allowed: "list parameters are sort, limit, offset", problem: .unknown)
            }
        }
    }
}
