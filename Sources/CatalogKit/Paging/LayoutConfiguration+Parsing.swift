import CatalogLayout
import CatalogModel

extension LayoutConfiguration {
    /// Builds and validates a configuration from name/value pairs: the command line's options
    /// (`--width 375 --cols 2 --inset 8,8,8,8`) and a query string (`width=375&cols=2&inset=8,8,8,8`)
    /// both reduce to these. Unknown, repeated and page parameters are refused; so is any value
    /// out of its range, and columns that leave no room. Every error names the parameter.
    public init(parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError) {
        var values = ParameterValues()
        for (name, value) in parameters {
            guard let parameter = LayoutParameter(name: name), !parameter.isPageParameter else {
                throw LayoutParameterError(parameter: name, value: value, allowed: Self.knownNames, problem: .unknown)
            }
            try values.set(parameter, value)
        }
        try self.init(values)
    }

    /// The configuration whose canonical text (`key`) is `key`: the key round-trips.
    public init(key: String) throws(LayoutParameterError) {
        var words = key.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw LayoutParameterError(.style, key) }
        let style = words.removeFirst()
        var pairs = [(name: LayoutParameter.style.rawValue, value: style)]
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw LayoutParameterError(parameter: word, value: "", allowed: "name=value", problem: .invalid)
            }
            pairs.append((String(word[..<equals]), String(word[word.index(after: equals)...])))
        }
        // A carousel's key names no width (one stored layout serves every viewport): any will do.
        if style == Style.carousel.rawValue, !pairs.contains(where: { $0.name == LayoutParameter.width.rawValue }) {
            pairs.append((LayoutParameter.width.rawValue, "1"))
        }
        try self.init(parameters: pairs)
    }

    static var knownNames: String {
        "layout parameters are " + LayoutParameter.allCases.filter { !$0.isPageParameter }.map(\.rawValue).joined(separator: ", ")
    }

    init(_ values: ParameterValues) throws(LayoutParameterError) {
        let style = try values.choice(.style, Style.self)
        guard let widthText = values[.width] else {
            throw LayoutParameterError(parameter: "width", value: "", allowed: LayoutParameter.width.allowed, problem: .missing)
        }
        let width = try values.number(.width, widthText, in: Double.ulpOfOne...LayoutParameter.maximumLength)
        self.init(width: width)
        self.style = style
        // The mixed grid's own defaults (every option still overrides them): 3 square columns,
        // item spacing 8, line spacing 20, insets 16,16,20,16, every 4th item 112 points across.
        var values = values
        if style == .mixed {
            for (parameter, value) in [(LayoutParameter.cols, "3"), (.columnSpacing, "8"), (.rowSpacing, "20"), (.inset, "16,16,20,16"),
                                       (.spanEvery, "4"), (.spanHeight, "112")] where values[parameter] == nil {
                if parameter == .columnSpacing || parameter == .rowSpacing, values[.spacing] != nil { continue }
                try values.set(parameter, value)
            }
        }
        // A list is one full-width column, whatever --cols says: the only place this rule lives
        // (justified rows and the carousel have no columns either). The value is still checked.
        let cols = try values.integer(.cols, in: 1...LayoutParameter.maximumColumns)
        columns = style == .list || style == .justified || style == .carousel ? 1 : cols
        rowHeight = try values.number(.rowHeight, in: Double.ulpOfOne...LayoutParameter.maximumLength)
        itemHeight = try values.number(.itemHeight, in: Double.ulpOfOne...LayoutParameter.maximumLength)
        let spacing = try values.length(.spacing)
        columnSpacing = values[.columnSpacing] == nil ? spacing : try values.length(.columnSpacing)
        rowSpacing = values[.rowSpacing] == nil ? spacing : try values.length(.rowSpacing)
        insets = try values.insets()
        sections = try values.choice(.sections, Sections.self)
        // Headers and footers belong to sections: without them they are not part of the layout
        // (their values are still checked, so a mistyped one is reported).
        let (header, footer, between) = (try values.length(.headerHeight), try values.length(.footerHeight), try values.length(.sectionSpacing))
        (headerHeight, footerHeight, sectionSpacing) = sections == .none ? (0, 0, 16) : (header, footer, between)
        spanEvery = try values.integer(.spanEvery, in: 0...LayoutParameter.maximumSpanEvery)
        let spanText = values.text(.spanHeight)
        if spanText.trimmed == "auto" {
            spanHeight = .auto
        } else {
            spanHeight = .fixed(try values.number(.spanHeight, in: Double.ulpOfOne...LayoutParameter.maximumLength))
        }
        if spanEvery == 0 { spanHeight = .auto }
        if style == .justified || style == .carousel, spanEvery > 0 {
            throw LayoutParameterError(.spanEvery, "\(spanEvery)", allowed: "0: full-span items belong to the column styles (waterfall, grid, list, mixed)")
        }
        if style == .carousel, sections != .none {
            throw LayoutParameterError(.sections, sections.rawValue, allowed: "none: a carousel is one row, without sections")
        }
        // What a style does not use takes one value, so equal layouts have equal keys.
        if style != .justified { rowHeight = 180 }
        if style != .carousel { itemHeight = 300 }
        extraHeight = try values.length(.extraHeight)
        direction = try values.choice(.direction, RenderDirection.self)
        order = try values.choice(.sort, ItemOrder.self)
        windowHeight = try values.number(.window, in: 64...LayoutParameter.maximumLength)
        _ = try values.choice(.cell, CellRule.self)
        // What a style ignores takes one value, so that equal layouts are equal configurations
        // with equal keys.
        if style != .waterfall { direction = .shortestFirst }
        if style == .list { columnSpacing = 0 }
        if style == .justified || style == .carousel { extraHeight = 0 }
        if style == .carousel { rowSpacing = 8 }
        if style == .grid || style == .mixed, spanHeight != .auto || spanEvery == 0 { extraHeight = 0 }
        do {
            try validate()
        } catch .noRoomForColumns(_, let columns, _) {
            let content = width - insets.left - insets.right
            if content <= 0 {
                throw LayoutParameterError(.inset, values[.inset] ?? "8", allowed: "insets whose left and right leave room in width \(width.formatted)")
            }
            let fitting = columnSpacing > 0 ? Int(((content + columnSpacing) / columnSpacing).rounded(.up)) - 1 : LayoutParameter.maximumColumns
            throw LayoutParameterError(.cols, "\(columns)", allowed: "at most \(max(1, fitting)) for width \(width.formatted) with these insets and spacings")
        } catch {
            throw LayoutParameterError(parameter: "width", value: widthText, allowed: error.description)
        }
    }

    private enum CellRule: String, CaseIterable { case width }
}

/// Parameter values by name, as given; the typed readers check each against its range.
struct ParameterValues {
    private var values: [LayoutParameter: String] = [:]

    subscript(parameter: LayoutParameter) -> String? { values[parameter] }

    mutating func set(_ parameter: LayoutParameter, _ value: String) throws(LayoutParameterError) {
        guard values.updateValue(value, forKey: parameter) == nil else {
            throw LayoutParameterError(parameter: parameter.rawValue, value: value, allowed: parameter.allowed, problem: .repeated)
        }
    }

    /// The value given, else the default.
    func text(_ parameter: LayoutParameter) -> String { values[parameter] ?? parameter.defaultValue ?? "" }

    func number(_ parameter: LayoutParameter, _ given: String? = nil, in range: ClosedRange<Double>) throws(LayoutParameterError) -> Double {
        let text = given ?? self.text(parameter)
        guard let value = Self.decimal(text), range.contains(value) else { throw LayoutParameterError(parameter, text) }
        return value
    }

    func length(_ parameter: LayoutParameter) throws(LayoutParameterError) -> Double {
        try number(parameter, in: 0...LayoutParameter.maximumLength)
    }

    /// A finite decimal number ("8", "0.5", "1e3"; not "0x10", "nan", or text after a NUL,
    /// where `Double(_:)` stops reading), with -0 read as 0 so that equal layouts have equal keys.
    static func decimal(_ text: String) -> Double? {
        let trimmed = text.trimmed
        guard trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }),
              let value = Double(trimmed), value.isFinite else { return nil }
        return value + 0.0
    }

    func integer(_ parameter: LayoutParameter, in range: ClosedRange<Int>) throws(LayoutParameterError) -> Int {
        let text = self.text(parameter)
        guard let value = Int(text.trimmed), range.contains(value) else { throw LayoutParameterError(parameter, text) }
        return value
    }

    /// true or false (1 or 0).
    func boolean(_ parameter: LayoutParameter) throws(LayoutParameterError) -> Bool {
        let text = self.text(parameter)
        switch text.trimmed {
        case "true", "1": return true
        case "false", "0": return false
        default: throw LayoutParameterError(parameter, text)
        }
    }

    func choice<T: RawRepresentable>(_ parameter: LayoutParameter, _: T.Type) throws(LayoutParameterError) -> T where T.RawValue == String {
        let text = self.text(parameter)
        guard let value = T(rawValue: text) else { throw LayoutParameterError(parameter, text) }
        return value
    }

    func insets() throws(LayoutParameterError) -> Insets {
        let text = self.text(.inset)
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Self.decimal(String($0)) }
        let valid = values.compactMap { $0 }.filter { $0.isFinite && (0...LayoutParameter.maximumLength).contains($0) }
        guard valid.count == values.count, valid.count == 1 || valid.count == 4 else { throw LayoutParameterError(.inset, text) }
        return valid.count == 1 ? Insets(all: valid[0]) : Insets(top: valid[0], left: valid[1], bottom: valid[2], right: valid[3])
    }
}

extension String {
    /// Without leading and trailing spaces and tabs. Read as bytes: a server parses every
    /// request's parameters, and walking characters cost more than the rest of the parse.
    var trimmed: String {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !blank($0) }), let last = utf8.lastIndex(where: { !blank($0) }) else { return "" }
        if first == utf8.startIndex, utf8.index(after: last) == utf8.endIndex { return self }
        return String(self[first...last])
    }
}
