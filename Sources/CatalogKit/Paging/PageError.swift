public import CatalogLayout

/// Why a page could not be made (a bad parameter is a `LayoutParameterError`, a store problem
/// a `StoreError`).
public enum PageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--item` / `item=` names no item.
    case noSuchItem(Int64)
    /// The layout could not be computed.
    case layout(LayoutError)

    public var description: String {
        switch self {
        case .noSuchItem(let id): "there is no item with id \(id) (see `catalog list`)"
        case .layout(let error): error.description
        }
    }
}
