import CatalogLayout

/// What `catalog snap` and `GET /api/snap` take: a carousel's configuration (its `width` is the
/// viewport's), where a fling would stop (`proposed`, along x) and its `velocity` (0: none).
public struct SnapRequest: Sendable, Hashable {
    public var configuration: LayoutConfiguration
    public var proposed: Double
    public var velocity: Double

    public init(configuration: LayoutConfiguration, proposed: Double, velocity: Double = 0) {
        self.configuration = configuration
        self.proposed = proposed
        self.velocity = velocity
    }

    /// Parses name/value pairs: the layout's parameters plus `proposed` (required) and
    /// `velocity`. The style must be the carousel's.
    public init(parameters: some Sequence<(name: String, value: String)>) throws(LayoutParameterError) {
        var layout: [(name: String, value: String)] = []
        var proposed: String?
        var velocity: String?
        for (name, value) in try LayoutParameterError.once(parameters) {
            switch name {
            case "proposed": proposed = value
            case "velocity": velocity = value
            default: layout.append((name, value))
            }
        }
        do {
            configuration = try LayoutConfiguration(parameters: layout)
        } catch where error.problem == .unknown {
            // A snap's own parameters are parameters here too.
            throw LayoutParameterError(parameter: error.parameter, value: error.value,
                                       allowed: LayoutConfiguration.knownNames + ", and proposed, velocity", problem: .unknown)
        }
        guard configuration.style == .carousel else {
            // Not given (the command line gives it): missing, not "got waterfall", which no one sent.
            let given = layout.last { $0.name == "style" }?.value
            throw LayoutParameterError(parameter: "style", value: given ?? "", allowed: "carousel: snapping centres one item of a carousel",
                                       problem: given == nil ? .missing : .invalid)
        }
        let limit = LayoutParameter.maximumOffset
        guard let text = proposed else {
            throw LayoutParameterError(parameter: "proposed", value: "", allowed: "the offset along x where the fling would stop", problem: .missing)
        }
        guard let value = ParameterValues.decimal(text), abs(value) <= limit else {
            throw LayoutParameterError(parameter: "proposed", value: text, allowed: "a number of points within ±\(limit.formatted)")
        }
        self.proposed = value
        let speed = velocity ?? "0"
        guard let v = ParameterValues.decimal(speed), abs(v) <= 1e9 else {
            throw LayoutParameterError(parameter: "velocity", value: speed, allowed: "a number of points a millisecond within ±1000000000: positive to the right, negative to the left, 0 for none")
        }
        self.velocity = v
    }
}

/// Where a carousel should stop: the offset that centres `item`.
public struct SnapTarget: Sendable, Hashable {
    public var offset: Double
    public var item: Page.Item
}
