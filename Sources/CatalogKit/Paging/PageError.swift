public import CatalogLayout

/// Why a page could not be made (a bad parameter is a `LayoutParameterError`, a store problem
/// a `StoreError`).
public enum PageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--item` / `item=` names no item.
    case noSuchItem(Int64)
    /// The layout could not be computed.
    case layout(LayoutError)
    /// The page would hold more than `limit` items.
    case tooManyItems(limit: Int)

    /// The most items a page holds (and whose keys the page cache reads of one stored window,
    /// `StoreError.windowTooLarge`): a page of the tallest
    /// viewport (1,000,000 points) of a phone's two columns holds about 10,000; one request for
    /// a viewport full of items a thousandth of a point wide must not read and send them all.
    public static let maximumItems = 100_000

    /// Throws `tooManyItems` when `attributes` hold more cells than ``maximumItems``.
    static func check(_ attributes: [LayoutAttributes]) throws(PageError) {
        var cells = 0
        for attribute in attributes where attribute.kind == .cell { cells += 1 }
        if cells > maximumItems { throw .tooManyItems(limit: maximumItems) }
    }

    public var description: String {
        switch self {
        case .noSuchItem(let id): "there is no item with id \(id) (see `catalog list`)"
        case .layout(let error): error.description
        case .tooManyItems(let limit):
            "the page would hold more than \(limit) items; a smaller height, or fewer and wider columns, make fewer"
        }
    }
}
