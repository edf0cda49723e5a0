import Foundation
import GRDB
import GRDBSQLite

/// A prepared statement bound through SQLite's C API, for the loops that write one row per
/// file or per imported line: GRDB's argument arrays cost more than the insert itself there.
/// Used only inside a GRDB transaction, on GRDB's connection.
struct BulkStatement {
    private let statement: Statement
    private var handle: OpaquePointer { statement.sqliteStatement }
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
    }

    /// The connection's statement for `sql`, prepared on first use and kept (GRDB's statement
    /// cache): for the reads a server makes per request. Not for use while the same SQL runs.
    init(cached db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Int) { sqlite3_bind_int64(handle, index, Int64(value)) }

    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        var text = value
        _ = text.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    func bind(_ index: Int32, blob: Data) {
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    func bind(_ index: Int32, blob: [UInt8]) {
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    /// Binds memory that stays valid until the next `run` returns (SQLite does not copy it).
    func bind(_ index: Int32, unsafeBlob bytes: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil)
    }

    func bind(_ index: Int32, blob: String) {
        var text = blob
        _ = text.withUTF8 { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    /// Runs the statement; returns the first column of its row, if it returned one
    /// (`RETURNING id`).
    @discardableResult
    func run(_ db: Database) throws -> Int64? {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var result: Int64? = nil
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW {
            if result == nil { result = sqlite3_column_int64(handle, 0) }
            code = sqlite3_step(handle)
        }
        guard code == SQLITE_DONE else { throw Self.error(code, db) }
        return result
    }

    private static func error(_ code: Int32, _ db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// The current row's columns, read straight from SQLite.
    struct RowView {
        let handle: OpaquePointer

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        func optionalInt64(_ column: Int32) -> Int64? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
        }

        func blob(_ column: Int32) -> Data {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
            return Data(bytes: bytes, count: count)
        }

        func optionalText(_ column: Int32) -> String? {
            guard sqlite3_column_type(handle, column) != SQLITE_NULL, let text = sqlite3_column_text(handle, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }

        /// A blob or text column's bytes.
        func bytes(_ column: Int32) -> [UInt8] {
            withBlob(column) { [UInt8]($0) }
        }

        /// Lends a blob or text column's bytes, valid only inside `body`.
        func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            let pointer = sqlite3_column_blob(handle, column) // before the size, as SQLite asks
            let count = Int(sqlite3_column_bytes(handle, column))
            return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
        }
    }

    /// Steps through the rows, calling `body` for each.
    func forEachRow(_ db: Database, _ body: (RowView) throws -> Void) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw Self.error(code, db) }
            try body(RowView(handle: handle))
        }
    }
}
