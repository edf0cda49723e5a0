import CatalogKit
import Foundation
import Testing

/// A folder of real image files for scanner tests, removed when the test ends, and a catalog
/// for them: an SQLite file in the folder, or a new database on the test PostgreSQL server.
final class Library {
    let root: URL
    let catalogPath: String
    let backend: Backend
    private let base: URL

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageProbeTests/Fixtures")

    /// With `.postgres`, the catalog is a new database on `server`, else on the shared one.
    init(_ backend: Backend = .sqlite, on server: TestPostgresServer? = nil) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-kit-tests-\(UUID().uuidString)")
        root = base.appendingPathComponent("photos")
        self.backend = backend
        catalogPath = switch backend {
        case .sqlite: base.appendingPathComponent("catalog.sqlite").path
        case .postgres: try server?.newDatabase() ?? TestPostgres.newDatabase()
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The SQLite catalog's file of stored layouts, beside it.
    var layoutFilePath: String { catalogPath + ".layouts" }

    deinit {
        _ = chmod(base.path, 0o755)
        try? FileManager.default.removeItem(at: base)
    }

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(name)) }

    /// Writes `bytes` at `relative` (folders created as needed); returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ bytes: Data) throws -> String {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
        return url.path
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func catalog() throws -> Catalog { try Catalog.open(at: catalogPath) }

    func scan(_ roots: [String]? = nil, options: ScanOptions = ScanOptions()) throws -> ScanSummary {
        try catalog().scan(roots ?? [root.path], options: options)
    }

    /// Items by path: (id, width, height).
    func items() throws -> [String: (id: Int64, width: Int, height: Int)] {
        var result: [String: (id: Int64, width: Int, height: Int)] = [:]
        for item in try catalog().items(order: .path) { result[PathText.display(item.key)] = (item.id, item.width, item.height) }
        return result
    }
}

/// The `catalog` binary built beside the test bundle.
enum BuiltTool {
    static var catalog: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("catalog")
    }

    /// Runs `catalog` with `arguments` (and only `environment`, when given; `stdin` on its
    /// standard input, a pipe, when given; `executable` instead, such as a shell that starts it) to
    /// its end; returns its exit status and output.
    static func run(_ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil, executable: URL? = nil) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = executable ?? catalog
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            try input.fileHandleForWriting.write(contentsOf: stdin) // small: within the pipe's buffer
            try input.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    /// Starts `catalog` with `arguments`; its stderr goes to `stderr`, else to `stderrPath`,
    /// else nowhere.
    static func start(_ arguments: [String], stderrPath: String? = nil, stderr: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = catalog
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        if let stderr {
            process.standardError = stderr
        } else if let stderrPath {
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: stderrPath)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }
}

/// Lines from a pipe, read as they arrive (a blocking read: it waits for the writer).
struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line without its newline, or nil at the end of the stream.
    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let data = handle.availableData // blocks until bytes arrive or the writer closes
            if data.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += data
        }
    }
}
