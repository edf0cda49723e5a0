/// The orders items are listed (and laid out) in.
public enum ItemOrder: String, Sendable, Hashable, CaseIterable {
    /// Newest first by capture date, else modification time, else first import time; ties by path/key.
    case date
    /// Path/key ascending, bytewise.
    case path
}
