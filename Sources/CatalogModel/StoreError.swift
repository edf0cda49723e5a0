/// Why the catalog could not be opened or changed. Messages say what to do.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but is not a catalog (another SQLite database, or not SQLite at all).
    case notACatalog(path: String, reason: String)
    /// The catalog was written by a newer catalog version: these migrations are unknown here.
    case newerVersion(path: String, unknownMigrations: [String])
    /// The catalog (or its folder) could not be created or opened.
    case cannotOpen(path: String, reason: String)
    /// An import's input could not be opened or read; nothing was imported.
    case cannotRead(path: String, reason: String)
    /// Another process is scanning or importing into this catalog.
    case busy(path: String)
    /// A layout could not be stored: other processes kept reading the catalog's stored layouts
    /// (SQLite: its layout file) past the wait; nothing was stored.
    case layoutsBusy(path: String)
    /// A layout could not be stored: another process dropped it (`catalog layouts --drop`)
    /// while it was being stored; nothing was stored.
    case layoutDropped(path: String)
    /// A layout could not be stored: another process began storing the same layout while it was
    /// being stored, and stores it instead; nothing was stored by this one.
    case layoutStoredByAnother(path: String)
    /// An input row was refused; nothing was written.
    case invalidInput(line: Int, reason: String)
    /// The catalog's database server cannot be reached (it stopped, restarted, or the network
    /// went): what was committed before is kept; the call that failed was rolled back, unless the
    /// connection went between its commit and the commit's answer (a scan's next run sees which).
    case unreachable(path: String, reason: String)
    /// The disk the catalog (or what the database writes beside it) is on has no room: what was
    /// committed before is kept, the change under way was rolled back. `reason` names the places.
    case full(path: String, reason: String)
    /// The database refused this user what a call needed (a PostgreSQL role granted only
    /// SELECT, or not on every table): nothing was written.
    case notPermitted(path: String, reason: String)
    /// SQLite found a file damaged after it was opened (a torn page met by a read or a write,
    /// not by the check at opening): the call failed and changed nothing. `file` says which.
    case damaged(path: String, reason: String, file: DamagedFile)
    /// The database reported an error.
    case database(String)
    /// A stored window holds more items than a page reads the keys of at once (`limit`): read
    /// it for a page's band alone instead.
    case windowTooLarge(limit: Int)

    /// Whether a layout computed for a page may go unstored this time, the page then laid out
    /// from the snapshot it reads: a scan or import moved the catalog on while it was computed,
    /// readers kept the stored layouts busy, another process dropped the layout as it was
    /// stored, the primary is away while a replica reads, the disk is full, or this user may
    /// not write the catalog.
    public var leavesLayoutUnstored: Bool {
        switch self {
        case .busy, .layoutsBusy, .layoutDropped, .layoutStoredByAnother, .unreachable, .full, .notPermitted: true
        default: false
        }
    }

    /// What a command that only reads says of a place that holds no catalog yet (a missing or
    /// empty file, an empty PostgreSQL database): a mistyped --db is an error, not a new, empty
    /// catalog. `what` says what is there.
    package static func noCatalog(at path: String, _ what: String? = nil) -> StoreError {
        .cannotOpen(path: path, reason: "\(noCatalogReason)\(what.map { " (\($0))" } ?? ""); `catalog scan FOLDER` or `catalog import FILE` with this --db makes one")
    }

    /// Whether this is `noCatalog`: nothing at that place is a catalog yet.
    public var isNoCatalog: Bool {
        if case .cannotOpen(_, let reason) = self { return reason.hasPrefix(Self.noCatalogReason) }
        return false
    }

    static let noCatalogReason = "there is no catalog there"

    /// Which file a `damaged` error was met in: a read may read both the catalog and its file
    /// of stored layouts (SQLite's error does not say which).
    public enum DamagedFile: Sendable, Hashable {
        case catalog, layouts, catalogOrLayouts
    }

    /// How to get back what a damaged catalog holds, besides its backup.
    package static func recovery(_ path: String) -> String {
        "recover what SQLite can with sqlite3 \(FilePath.shellWord(path)) .recover"
    }

    /// Whether the catalog's place is a PostgreSQL URL (`PostgresLocation.isURL`, which this
    /// module cannot see), not an SQLite file's path.
    private static func isDatabaseURL(_ path: String) -> Bool {
        path.hasPrefix("postgres://") || path.hasPrefix("postgresql://")
    }

    /// The catalog's SQLite file replaced or removed since this process opened it: every call
    /// fails until the process is restarted (`SQLiteStore.checkSameFile`). Answers `unreachable`
    /// that waiting does not end.
    public static func fileReplaced(path: String, removed: Bool) -> StoreError {
        .unreachable(path: path, reason: fileReplacedReason(removed: removed))
    }

    private static func fileReplacedReason(removed: Bool) -> String {
        "the file was \(removed ? "removed" : "replaced") since this process opened it "
            + "(a backup moved into its place, the catalog deleted?): restart the process to open the one there now"
    }

    /// Whether this is ``fileReplaced(path:removed:)``'s error.
    public var isFileReplaced: Bool {
        guard case .unreachable(_, let reason) = self else { return false }
        return Self.isFileReplaced(reason)
    }

    private static func isFileReplaced(_ reason: String) -> Bool {
        reason == fileReplacedReason(removed: false) || reason == fileReplacedReason(removed: true)
    }

    public var description: String {
        switch self {
        case .notACatalog(let path, let reason):
            "\(path) is not a catalog (\(reason)); it was not modified. A catalog needs a \(Self.isDatabaseURL(path) ? "database" : "file") of its own: name a new one with --db or CATALOG_DB."
        case .newerVersion(let path, let unknown):
            "\(path) was written by a newer version of catalog (migrations \(unknown.joined(separator: ", ")) are unknown here); it was not modified. Upgrade catalog."
        case .cannotOpen(let path, let reason):
            "cannot open the catalog at \(path): \(reason)"
        case .cannotRead(let path, let reason):
            "cannot read \(path): \(reason); nothing was imported"
        case .busy(let path):
            "another scan, import or `catalog cluster` is writing to \(path); try again when it finishes"
        case .layoutsBusy(let path):
            "the stored layouts of \(path) were being read by other processes for too long; nothing was stored. Try again."
        case .layoutDropped(let path):
            "another process dropped this layout of \(path) (catalog layouts --drop) while it was being stored; nothing was stored. Try again."
        case .layoutStoredByAnother(let path):
            "another process began storing this layout of \(path) while this one was storing it, and stores it instead; nothing was stored by this one. catalog layouts lists it once that one finishes."
        case .invalidInput(let line, let reason):
            "line \(line): \(reason)"
        case .unreachable(let path, let reason) where reason.contains("SQLSTATE 53300"):
            // Reached, and full: waiting for it "to be back" would not help if this process holds
            // the connections (a server, its listener and a reader, under CONNECTION LIMIT 2).
            "the catalog's database at \(path) has no room for another connection (\(reason)): its max_connections or the role's "
                + "CONNECTION LIMIT is reached, by this process or others; what was committed before is kept. Try again once one is free, or raise the limit "
                + "(a server that scans needs at least 3 connections: its listener, the scan's and one to read)."
        case .unreachable(let path, let reason) where Self.isFileReplaced(reason):
            // Waiting does not bring it back: this process keeps the file it opened.
            "cannot use the catalog at \(path): \(reason); what was committed before is kept."
        case .unreachable(let path, let reason):
            "cannot reach the catalog's database at \(path) (\(reason)); what was committed before is kept. Try again once it is back."
        case .full(let path, let reason):
            "the disk is full: \(reason) (the catalog at \(path)); what was committed before is kept. Free some space and try again."
        case .notPermitted(let path, let reason) where Self.isDatabaseURL(path) && reason.contains("read-only transaction"):
            // SQLSTATE 25006: no grant gives it; a hot standby, or the role's default_transaction_read_only.
            "the catalog at \(path) takes no writes on this connection (\(reason)): a hot standby, or a role whose "
                + "transactions are read only (default_transaction_read_only); nothing was written. Write through the primary, with a role that may."
        case .notPermitted(let path, let reason) where Self.isDatabaseURL(path):
            "the catalog at \(path) does not let this user do that (\(reason)); nothing was written. Use a role that may, or ask the catalog's owner for the grants."
        case .notPermitted(let path, let reason):
            // An SQLite file's reasons say what to do (run as its owner, chmod); "grants" are PostgreSQL's.
            "the catalog at \(path) does not let this user do that: \(reason); nothing was written"
        case .damaged(let path, let reason, .catalog):
            "the catalog at \(path) is damaged (\(reason)); nothing was changed. Restore a backup, or \(Self.recovery(path))"
        case .damaged(let path, let reason, .layouts):
            "the file of stored layouts of the catalog at \(path), \(path).layouts, is damaged (\(reason)); nothing was stored. It is a cache: delete it while no catalog command runs, and layouts are computed again"
        case .damaged(let path, let reason, .catalogOrLayouts):
            "the catalog at \(path), or its file of stored layouts (\(path).layouts), is damaged (\(reason)); nothing was changed. The file of stored layouts is a cache that may be deleted while no catalog command runs; if the catalog is the one damaged, restore a backup, or \(Self.recovery(path))"
        case .database(let message):
            "database error: \(message)"
        case .windowTooLarge(let limit):
            "a stored window holds more than \(limit) items"
        }
    }
}
