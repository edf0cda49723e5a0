public import Foundation

/// A file that could not be read, and why.
public struct FileError: Sendable, Hashable {
    public var path: Data
    public var reason: String

    package init(path: Data, reason: String) {
        self.path = path
        self.reason = reason
    }
}
