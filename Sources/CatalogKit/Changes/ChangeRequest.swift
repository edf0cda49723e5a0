import CatalogModel

/// What `catalog changes` and `GET /api/changes` take: the generation a client shows (`since`)
/// and the order it shows (`sort`).
public struct ChangeRequest: Sendable, Hashable {
    public var since: Int64
    public var order: ItemOrder

    public init(since: Int64, order: ItemOrder = .date) {
        self.since = since
        self.order = order
    }

    /// Parses `since` (required: a whole number, 0 or more) and `sort` (date or path).
    public init(parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError) {
        var since: Int64?
        var order = ItemOrder.date
        for (name, value) in try LayoutParameterError.once(parameters) {
            switch name {
            case "since":
                guard let generation = Int64(value.trimmed), generation >= 0 else {
                    throw LayoutParameterError(parameter: name, value: value, allowed: "a generation: a whole number, 0 or more")
                }
                since = generation
            case "sort":
                guard let parsed = ItemOrder(rawValue: value) else {
                    throw LayoutParameterError(parameter: name, value: value, allowed: "one of date, path")
                }
                order = parsed
            default:
                throw LayoutParameterError(parameter: name, value: value, allowed: "change parameters are since, sort", problem: .unknown)
            }
        }
        guard let since else {
            throw LayoutParameterError(parameter: "since", value: "", allowed: "the generation the client shows", problem: .missing)
        }
        self.since = since
        self.order = order
    }
}
