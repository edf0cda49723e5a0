/// One item brought by `catalog import`: an image that is not a local file.
public struct ImportRow: Sendable, Hashable {
    /// The input line it came from, for error messages.
    public var line: Int
    public var key: String
    public var width: Int
    public var height: Int
    public var orientation: Int
    /// ISO 8601.
    public var date: String?
    public var url: String?
    public var title: String?

    public init(line: Int, key: String, width: Int, height: Int, orientation: Int = 1, date: String? = nil,
                url: String? = nil, title: String? = nil) {
        self.line = line
        self.key = key
        self.width = width
        self.height = height
        self.orientation = orientation
        self.date = date
        self.url = url
        self.title = title
    }

    /// The size it is shown at: orientations 5 to 8 turn it a quarter, swapping width and height.
    package var displayWidth: Int { orientation >= 5 ? height : width }
    package var displayHeight: Int { orientation >= 5 ? width : height }
}
