/// The parameters of a layout and of a page, by the one name the command line (`--cols 3`)
/// and the HTTP API (`cols=3`) share. `LayoutConfiguration(parameters:)` and
/// `PageRequest(parameters:)` are the only parsers of their values.
public enum LayoutParameter: String, Sendable, Hashable, CaseIterable {
    case style
    case width
    case cols
    case spacing
    case columnSpacing = "column-spacing"
    case rowSpacing = "row-spacing"
    case inset
    case extraHeight = "extra-height"
    case direction
    case sort
    /// The pagination window height of the stored layout (part of the canonical key).
    case window
    /// A grid's cell height rule; only `width` (square cells). Part of the canonical key.
    case cell
    /// What groups items into sections: none, year, month, folder.
    case sections
    case headerHeight = "header-height"
    case footerHeight = "footer-height"
    case sectionSpacing = "section-spacing"
    /// Items at 0, N, 2N... of each section span the full width.
    case spanEvery = "span-every"
    /// A full-span item's height, or `auto` (from its aspect ratio at full width).
    case spanHeight = "span-height"
    /// A page's: hold the header of the section the viewport starts in at its top.
    case pinHeaders = "pin-headers"
    /// Justified rows' target row height.
    case rowHeight = "row-height"
    /// The carousel's item height.
    case itemHeight = "item-height"
    /// A page's, with `item`: the item's top this far below the viewport's top.
    case anchorY = "anchor-y"
    /// A carousel page's: the distance at which scale and alpha reach their minimums.
    case falloff
    case minScale = "min-scale"
    case minAlpha = "min-alpha"
    case offset
    case height
    case item
    /// A rectangle `x,y,width,height`: the items whose frames meet it (instead of a band).
    case rect

    /// The largest width, spacing, inset, extra height or window, in points.
    public static let maximumLength = 1_000_000.0
    /// The most columns a layout may have.
    public static let maximumColumns = 1000
    /// The tallest page, in points.
    public static let maximumPageHeight = 1_000_000.0
    /// The largest offset or rectangle coordinate, in points (content heights reach 10^9).
    public static let maximumOffset = 1e12
    /// The largest `span-every`.
    public static let maximumSpanEvery = 1_000_000

    /// The parameter named `name`: its own name (`anchor-y`) or the same words in camel case
    /// (`anchorY`, as JavaScript clients and the issues spell them).
    public init?(name: String) {
        guard let parameter = Self(rawValue: name) ?? Self.allCases.first(where: { $0.camelCaseName == name }) else { return nil }
        self = parameter
    }

    /// `item-height` as `itemHeight`.
    public var camelCaseName: String {
        let words = rawValue.split(separator: "-")
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }

    /// Whether it is a page's parameter rather than the layout's.
    public var isPageParameter: Bool { [.offset, .height, .item, .rect, .pinHeaders, .anchorY, .falloff, .minScale, .minAlpha].contains(self) }

    /// What values it takes, as error messages and `--help` say it.
    public var allowed: String {
        let length = "a number of points from 0 to \(Self.maximumLength.formatted)"
        switch self {
        case .style: return "one of waterfall, grid, list, mixed, justified, carousel"
        case .width: return "a number of points greater than 0 and at most \(Self.maximumLength.formatted)"
        case .cols: return "a whole number from 1 to \(Self.maximumColumns)"
        case .spacing, .columnSpacing, .rowSpacing, .extraHeight: return length
        case .inset: return "one number, or four (top,left,bottom,right), each \(length)"
        case .direction: return "one of shortest, ltr, rtl"
        case .sort: return "one of date, path"
        case .window: return "a number of points from 64 to \(Self.maximumLength.formatted)"
        case .cell: return "width"
        case .sections: return "one of none, year, month, folder"
        case .headerHeight, .footerHeight, .sectionSpacing: return length
        case .spanEvery: return "a whole number from 0 (none) to \(Self.maximumSpanEvery)"
        case .spanHeight: return "auto, or a number of points greater than 0 and at most \(Self.maximumLength.formatted)"
        case .pinHeaders: return "true or false (1 or 0)"
        case .rowHeight, .itemHeight: return "a number of points greater than 0 and at most \(Self.maximumLength.formatted)"
        case .anchorY: return "a number of points within ±\(Self.maximumLength.formatted), with item"
        case .falloff: return "a number of points greater than 0 and at most \(Self.maximumLength.formatted) (default: half the viewport's width)"
        case .minScale, .minAlpha: return "a number from 0 to 1"
        case .offset: return "a number of points from 0 to \(Self.maximumOffset.formatted)"
        case .height: return "a number of points from 0 to \(Self.maximumPageHeight.formatted)"
        case .item: return "an item id (a whole number from 1; see `catalog list`)"
        case .rect: return "four numbers x,y,width,height in points: x and y within ±\(Self.maximumOffset.formatted), width 0 to "
            + "\(Self.maximumLength.formatted), height 0 to \(Self.maximumPageHeight.formatted); without offset, height or item"
        }
    }

    /// The value used when it is not given (nil: required, or none).
    public var defaultValue: String? {
        switch self {
        case .style: "waterfall"
        case .width, .item, .columnSpacing, .rowSpacing, .rect: nil
        case .cols: "2"
        case .spacing, .inset: "8"
        case .extraHeight, .offset: "0"
        case .direction: "shortest"
        case .sort: "date"
        case .window: "2048"
        case .cell: "width"
        case .height: "812"
        case .sections: "none"
        case .headerHeight: "32"
        case .footerHeight, .spanEvery: "0"
        case .sectionSpacing: "16"
        case .spanHeight: "auto"
        case .pinHeaders: "false"
        case .rowHeight: "180"
        case .itemHeight: "300"
        case .anchorY: "0"
        case .falloff: nil
        case .minScale: "0.8"
        case .minAlpha: "0.5"
        }
    }
}

/// A layout or page parameter that was refused: which one, the value given, and what it takes.
public struct LayoutParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// The value is not one the parameter takes.
        case invalid
        /// No such parameter.
        case unknown
        /// Given twice.
        case repeated
        /// Required and not given.
        case missing
    }

    /// The parameter's name as given (`cols`), without dashes.
    public var parameter: String
    /// The value as given ("" when missing).
    public var value: String
    /// What the parameter takes.
    public var allowed: String
    public var problem: Problem

    package init(parameter: String, value: String, allowed: String, problem: Problem = .invalid) {
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        self.problem = problem
    }

    init(_ parameter: LayoutParameter, _ value: String, allowed: String? = nil) {
        self.init(parameter: parameter.rawValue, value: value, allowed: allowed ?? parameter.allowed)
    }

    /// One line that names the parameter, the value and what it takes. The command line puts
    /// `--` before it; the HTTP API sends it as is.
    public var description: String {
        switch problem {
        case .invalid: "\(parameter) must be \(allowed), got \"\(value)\""
        case .unknown where parameter.isEmpty: "a parameter without a name (\"=\(value)\") is not one here; \(allowed)"
        case .unknown: "\(parameter) is not a parameter here; \(allowed)"
        case .repeated: "\(parameter) is given more than once"
        case .missing: "\(parameter) is required: \(allowed)"
        }
    }

    /// The parameters in order; a name given twice is refused.
    static func once(_ parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError)
        -> [(name: String, value: String)] {
        var seen = Set<String>()
        var result: [(name: String, value: String)] = []
        for (name, value) in parameters {
            guard seen.insert(name).inserted else { throw LayoutParameterError(parameter: name, value: value, allowed: "", problem: .repeated) }
            result.append((name, value))
        }
        return result
    }
}

extension Double {
    /// 1000000.0 as "1000000", 0.5 as "0.5".
    var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
