import CatalogLayout
import Foundation

/// Where a page's viewport starts: an offset, or an item to scroll to.
public enum PagePosition: Sendable, Hashable {
    case offset(Double)
    /// The viewport starts at the item's top, clamped to the content.
    case item(Int64)
}

/// Everything `catalog page` and `GET /api/page` take: a layout configuration, where the
/// viewport starts and how tall it is.
public struct PageRequest: Sendable, Hashable {
    public var configuration: LayoutConfiguration
    public var position: PagePosition
    public var height: Double
    /// When set, the page holds the items whose frames meet this rectangle (a horizontal range
    /// included), like UICollectionViewLayout's layoutAttributesForElements(in:); position and
    /// height follow from it.
    public var rect: Rect?
    /// Hold the header of the section the viewport starts in at its top (UICollectionViewFlowLayout's
    /// `sectionHeadersPinToVisibleBounds`).
    public var pinHeaders = false
    /// With `.item`: the item's top (a carousel's: its left) this far into the viewport
    /// (a pinch or a resize keeps the item under the finger where it was on screen).
    public var anchorY = 0.0
    /// A carousel page's effects: the distance at which scale and alpha reach their minimums
    /// (nil: half the viewport's width), and those minimums.
    public var falloff: Double?
    public var minimumScale = 0.8
    public var minimumAlpha = 0.5

    /// Text that differs whenever two requests' pages can differ at one generation: what a
    /// page's ETag is made of. The configuration's key leaves out what a stored layout does
    /// not depend on (a carousel's width) and the page's own options.
    public var tagText: String {
        let position = switch position {
        case .offset(let offset): "offset=\(offset)"
        case .item(let id): "item=\(id)"
        }
        let rect = rect.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-"
        return "\(configuration.key) width=\(configuration.width) \(position) height=\(height) rect=\(rect) pin-headers=\(pinHeaders) "
            + "anchor-y=\(anchorY) falloff=\(falloff.map { "\($0)" } ?? "-") min-scale=\(minimumScale) min-alpha=\(minimumAlpha)"
    }

    /// How long a band the page covers along the scroll axis: the viewport's height, or a
    /// carousel's width.
    public var bandLength: Double {
        guard configuration.isHorizontal else { return height }
        if let rect { return max(0, rect.x + rect.width - max(0, rect.x)) }
        return configuration.width
    }

    public init(configuration: LayoutConfiguration, position: PagePosition = .offset(0), height: Double = 812, pinHeaders: Bool = false) {
        self.configuration = configuration
        self.position = position
        self.height = height
        self.pinHeaders = pinHeaders
    }

    /// Parses name/value pairs: the layout's parameters plus `offset`, `height` and `item`
    /// (which wins over `offset`). The command line and the HTTP API both reduce to this.
    public init(parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError) {
        var values = ParameterValues()
        for (name, value) in parameters {
            guard let parameter = LayoutParameter(name: name) else {
                throw LayoutParameterError(parameter: name, value: value, allowed: Self.knownNames, problem: .unknown)
            }
            try values.set(parameter, value)
        }
        configuration = try LayoutConfiguration(values)
        height = try values.number(.height, in: 0...LayoutParameter.maximumPageHeight)
        pinHeaders = try values.boolean(.pinHeaders)
        anchorY = try values.number(.anchorY, in: -LayoutParameter.maximumLength...LayoutParameter.maximumLength)
        if values[.anchorY] != nil, values[.item] == nil {
            throw LayoutParameterError(.anchorY, values[.anchorY]!, allowed: "given with item: the item's top this far below the viewport's top")
        }
        falloff = values[.falloff] == nil ? nil : try values.number(.falloff, in: Double.ulpOfOne...LayoutParameter.maximumLength)
        minimumScale = try values.number(.minScale, in: 0...1)
        minimumAlpha = try values.number(.minAlpha, in: 0...1)
        let offset = try values.number(.offset, in: 0...LayoutParameter.maximumOffset)
        if let text = values[.rect] {
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { ParameterValues.decimal(String($0)) }
            let limit = LayoutParameter.maximumOffset
            guard numbers.count == 4, numbers.allSatisfy({ $0?.isFinite == true }), abs(numbers[0]!) <= limit, abs(numbers[1]!) <= limit,
                  (0...LayoutParameter.maximumLength).contains(numbers[2]!), (0...LayoutParameter.maximumPageHeight).contains(numbers[3]!) else {
                throw LayoutParameterError(.rect, text)
            }
            // A good rectangle with a position of its own: say that, not that the rectangle is bad.
            if let other = [LayoutParameter.offset, .height, .item].first(where: { values[$0] != nil }) {
                throw LayoutParameterError(.rect, text, allowed: "given without \(other.rawValue): a rectangle says where the page is and how tall")
            }
            let r = Rect(x: numbers[0]!, y: numbers[1]!, width: numbers[2]!, height: numbers[3]!)
            rect = r
            if configuration.isHorizontal {
                position = .offset(max(0, r.x)) // a carousel's band runs along x
            } else {
                position = .offset(max(0, r.y))
                height = max(0, r.y + r.height - max(0, r.y))
            }
        } else if let text = values[.item] {
            guard let id = Int64(text.trimmed), id > 0 else { throw LayoutParameterError(.item, text) } // ids start at 1
            position = .item(id)
        } else {
            position = .offset(offset)
        }
    }

    /// Parses a URL query string (`width=375&cols=2`); `+` and percent escapes are decoded.
    public init(query: String) throws(LayoutParameterError) {
        try self.init(parameters: Self.parameters(query: query))
    }

    /// A URL query string's name/value pairs, in order; `+` and percent escapes decoded.
    public static func parameters(query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part in
                // Most values have nothing to decode (`width=375`): they skip Foundation's decoding.
                guard part.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(part) }
                let spaced = String(part).replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    static var knownNames: String {
        "page parameters are " + LayoutParameter.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

extension PageRequest {
    /// A band's page cut to the request's rectangle: the items whose frames meet its
    /// horizontal range too, and the rectangle as the viewport.
    func clipped(_ page: Page) -> Page {
        guard let rect else { return page }
        var clipped = page
        clipped.items = page.items.filter { meetsRect($0.frame) }
        clipped.viewport = rect
        return clipped
    }

    /// The band's attributes whose frames meet the rectangle across the band too (all of them
    /// without one): cut before the page's size is checked and its keys read, so that a narrow
    /// rectangle is not refused for the items of the whole band beside it.
    func clipped(_ attributes: [LayoutAttributes]) -> [LayoutAttributes] {
        rect == nil ? attributes : attributes.filter { meetsRect($0.frame) }
    }

    /// Whether `frame` meets the rectangle across the band. As with a band, only overlaps of
    /// positive area count: an empty rectangle meets nothing.
    private func meetsRect(_ frame: Rect) -> Bool {
        guard let rect else { return true }
        guard rect.width > 0 && rect.height > 0 else { return false }
        return configuration.isHorizontal ? frame.y < rect.y + rect.height && frame.y + frame.height > rect.y
            : frame.x < rect.x + rect.width && frame.x + frame.width > rect.x
    }
}
