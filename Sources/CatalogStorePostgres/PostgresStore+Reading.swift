package import CatalogModel
import Foundation
import PostgresNIO
import Synchronization

extension PostgresStore {
    static let itemColumns = """
        id, key, source::int, format, pixel_width::int, pixel_height::int, orientation::int, width::int, height::int, bytes, \
        sort_date::text, url, title
        """

    static func itemRow(_ row: PostgresRow) throws -> ItemRow {
        let (id, key, source, format, pixelWidth, pixelHeight, orientation, width, height, bytes, date, url, title) = try row.decode(
            (Int64, Data, Int, String?, Int, Int, Int, Int, Int, Int64?, String, String?, String?).self)
        return ItemRow(id: id, key: key, isImported: source == 1, format: format, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
                       orientation: orientation, width: width, height: height, bytes: bytes, date: date, url: url, title: title)
    }

    /// The ORDER BY of an item order; `items_by_date` serves the date order.
    static func orderBy(_ order: ItemOrder) -> String {
        switch order {
        case .date: "sort_date DESC, key ASC"
        case .path: "key ASC"
        }
    }

    static func items(_ session: PostgresSession, order: ItemOrder, limit: Int?, offset: Int) throws -> [ItemRow] {
        var items: [ItemRow] = []
        var remaining = limit ?? Int.max
        for query in try listQueries(session, order: order, offset: offset) where remaining > 0 {
            let rows = try session.rows(PostgresQuery(unsafeSQL: query + (limit == nil ? "" : " LIMIT \(remaining)")))
            items += try rows.map(itemRow)
            remaining -= rows.count
        }
        return items
    }

    /// From this offset on, a list starts at the item the order data puts there (its chunk list
    /// and one chunk) instead of stepping over every item before it: the gallery asks for the
    /// item at a position it has not loaded (the End key, the viewer stepping past what is loaded).
    static let seekingFrom = OrderChunking.chunkSize

    /// The queries, run in turn, that list the items of `order` from position `offset` on
    /// (none past the end), without a LIMIT: from the order data's item at `offset` when the
    /// offset is deep and the order data current, each query a range of one index; else one
    /// query with an OFFSET.
    static func listQueries(_ session: PostgresSession, order: ItemOrder, offset: Int) throws -> [String] {
        let from = "SELECT \(itemColumns) FROM items"
        guard offset >= seekingFrom, let found = try PostgresOrderData.id(session, atPosition: offset, order: order) else {
            return ["\(from) ORDER BY \(orderBy(order)) OFFSET \(offset)"]
        }
        guard let id = found else { return [] }
        let (date, key) = ("(SELECT sort_date FROM items WHERE id = \(id))", "(SELECT key FROM items WHERE id = \(id))")
        switch order {
        case .path: return ["\(from) WHERE key >= \(key) ORDER BY key"]
        case .date: return ["\(from) WHERE sort_date = \(date) AND key >= \(key) ORDER BY key",
                            "\(from) WHERE sort_date < \(date) ORDER BY sort_date DESC, key"]
        }
    }

    /// In one snapshot: a deep offset takes several statements.
    package func items(order: ItemOrder, limit: Int?, offset: Int) throws(StoreError) -> [ItemRow] {
        try snapshotRead { session in try Self.items(session, order: order, limit: limit, offset: offset) }
    }

    /// Rows a `forEachItem` cursor fetches at a time: what the client holds at once.
    static let listedAtOnce = 10_000

    /// The same items handed to `body` one at a time: a cursor in one snapshot, fetched
    /// `listedAtOnce` rows at a time, so that the client never holds them all; each fetch is
    /// sent before the rows of the one before are decoded, so the server works meanwhile.
    package func forEachItem(order: ItemOrder, limit: Int?, offset: Int, _ body: (ItemRow) -> Void) throws(StoreError) {
        var handed = 0
        // A kept connection found dropped is tried once more on a new one: never once rows were
        // handed, or they would be handed twice.
        try snapshotRead(mayRetry: { handed == 0 }) { session in
            let limit = limit ?? Int.max
            for query in try Self.listQueries(session, order: order, offset: offset) where handed < limit {
                try session.script("DECLARE listed_items NO SCROLL CURSOR FOR \(query) LIMIT \(limit == Int.max ? "ALL" : String(limit - handed))")
                let fetch = PostgresQuery(unsafeSQL: "FETCH \(Self.listedAtOnce) FROM listed_items")
                var next = session.rowsLater(fetch)
                while true {
                    let rows = try next()
                    let more = rows.count == Self.listedAtOnce
                    if more { next = session.rowsLater(fetch) }
                    for row in rows {
                        body(try Self.itemRow(row))
                        handed += 1
                    }
                    if !more { break }
                }
                try session.script("CLOSE listed_items")
            }
        }
    }

    package func item(id: Int64) throws(StoreError) -> ItemRow? {
        try read { session in
            try session.rows(PostgresQuery(unsafeSQL: "SELECT \(Self.itemColumns) FROM items WHERE id = $1", binds: try Self.binds(id)))
                .first.map(Self.itemRow)
        }
    }

    package func itemCount() throws(StoreError) -> Int {
        try read { session in try PostgresSnapshot(session: session).itemCount() }
    }

    /// What the change listener heard: no read at all while it is connected.
    package func changeStamp() -> (stamp: [Int64], lastChange: Int64)? { listener.stamp() }

    package func webOrigins(limit: Int) throws(StoreError) -> [String] {
        try read { session in
            try session.rows("SELECT origin::text FROM web_origins ORDER BY origin LIMIT \(limit)").map { try $0.decode(String.self) }
        }
    }

    private static let itemFileColumns = """
        SELECT i.id, f.path, f.device, f.inode, f.size, f.mtime_ns, i.format, i.orientation::int
        FROM items i JOIN files f ON f.item_id = i.id
        """

    private static func itemFile(_ row: PostgresRow) throws -> ItemFile {
        let (id, path, device, inode, size, mtime, format, orientation) = try row.decode((Int64, Data, Int64, Int64, Int64, Int64, String?, Int).self)
        return ItemFile(itemID: id, path: path, device: device, inode: inode, size: size, mtimeNanoseconds: mtime, format: format,
                        orientation: orientation)
    }

    package func file(ofItem id: Int64) throws(StoreError) -> ItemFile? {
        try read { session in
            try session.rows(PostgresQuery(unsafeSQL: "\(Self.itemFileColumns) WHERE i.id = $1 AND i.source = 0", binds: try Self.binds(id)))
                .first.map(Self.itemFile)
        }
    }

    package func itemFiles(after id: Int64, limit: Int) throws(StoreError) -> [ItemFile] {
        try read { session in
            try session.rows(PostgresQuery(unsafeSQL: "\(Self.itemFileColumns) WHERE i.id > $1 AND i.source = 0 ORDER BY i.id LIMIT $2",
                                           binds: try Self.binds(id, Int64(limit)))).map(Self.itemFile)
        }
    }

    package func failedFileCount() throws(StoreError) -> Int {
        try read { session in Int(try session.value("SELECT count(*) FROM files WHERE status = 2", as: Int64.self) ?? 0) }
    }

    package func fileErrors() throws(StoreError) -> [FileError] {
        try read { session in
            try session.rows("SELECT path, error FROM files WHERE status = 2 ORDER BY path").map { row in
                let (path, error) = try row.decode((Data, String?).self)
                return FileError(path: path, reason: error ?? "unknown error")
            }
        }
    }

    package func stats() throws(StoreError) -> CatalogStats {
        let location = self.location
        return try snapshotRead { session in
            var byFormat: [String: Int] = [:]
            var imported = 0
            for row in try session.rows("""
                SELECT coalesce(format, 'imported'), count(*)::int8, count(*) FILTER (WHERE source = 1)::int8 FROM items GROUP BY 1
                """) {
                let (format, count, importedCount) = try row.decode((String, Int, Int).self)
                byFormat[format] = count
                imported += importedCount
            }
            let files = try session.rows("""
                SELECT count(*)::int8, count(*) FILTER (WHERE status = 1)::int8, count(*) FILTER (WHERE status = 2)::int8 FROM files
                """)[0].decode((Int, Int, Int).self)
            return CatalogStats(
                path: location, bytesOnDisk: try session.value("SELECT pg_database_size(current_database())::int8", as: Int64.self) ?? 0,
                generation: try PostgresSnapshot(session: session).generation(),
                items: byFormat.values.reduce(0, +), itemsByFormat: byFormat,
                importedItems: imported,
                files: files.0, unsupportedFiles: files.1, failedFiles: files.2)
        }
    }

    package func servingNotes() throws(StoreError) -> [String] {
        let (buffers, items) = try memorySizes()
        return Self.memoryNote(sharedBuffers: buffers, items: items).map { [$0] } ?? []
    }

    /// PostgreSQL's shared buffers and the bytes of the items table with its indexes.
    package func memorySizes() throws(StoreError) -> (sharedBuffers: Int64, items: Int64) {
        try read { session in
            try session.rows("""
                SELECT (SELECT setting::int8 * current_setting('block_size')::int8 FROM pg_settings WHERE name = 'shared_buffers'),
                       pg_table_size('items') + pg_indexes_size('items')
                """)[0].decode((Int64, Int64).self)
        }
    }

    /// A note for a server when the shared buffers hold less than half of the items and their
    /// indexes: pages that a server has not cached then copy most of the items' pages from the
    /// kernel (at 10,000,000 items, 0.80x SQLite's pages a second at the default 128 MB against
    /// 0.85x to 0.89x with 6 GB: BENCHMARKS.md).
    package static func memoryNote(sharedBuffers: Int64, items: Int64) -> String? {
        guard items > 2 * sharedBuffers else { return nil }
        return "PostgreSQL's shared_buffers (\(bytes(sharedBuffers))) hold less than half of the items and their indexes "
            + "(\(bytes(items))): pages that a server has not cached read the items through the kernel. For serving, "
            + "PostgreSQL's documentation suggests a quarter of the machine's memory (README, \"PostgreSQL's memory\")."
    }

    /// `bytes` in MB, or in GB with one decimal from 1 GB on.
    private static func bytes(_ bytes: Int64) -> String {
        let megabytes = Double(bytes) / 1_048_576
        return megabytes < 1024 ? "\(Int(megabytes.rounded())) MB" : String(format: "%.1f GB", megabytes / 1024)
    }

    package func layouts() throws(StoreError) -> [StoredLayout] {
        try read { session in
            try session.rows(PostgresQuery(unsafeSQL: "\(Self.layoutColumns) ORDER BY last_used_at DESC, configuration COLLATE \"C\""))
                .map(Self.storedLayout)
        }
    }

    static let layoutColumns = """
        SELECT id, configuration, generation, item_count, content_height, header, bytes, compute_seconds, last_used_at::text FROM layouts
        """

    static func storedLayout(_ row: PostgresRow) throws -> StoredLayout {
        let (id, configuration, generation, itemCount, contentHeight, header, bytes, computeSeconds, lastUsedAt) = try row.decode(
            (Int64, String, Int64, Int, Double, Data, Int64, Double, String).self)
        return StoredLayout(id: id, configuration: configuration, generation: generation, itemCount: itemCount, contentHeight: contentHeight,
                            header: [UInt8](header), bytes: bytes, computeSeconds: computeSeconds, lastUsedAt: lastUsedAt)
    }

    /// The order at generation `since` and now, from the change log (Migrations/postgres/0002),
    /// in one snapshot: the log, then one pass over the order's index (`OrderChangeBuilder`).
    package func orderChange(since generation: Int64, order: ItemOrder) throws(StoreError) -> OrderChange? {
        try snapshotRead { session in
            let now = try PostgresSnapshot(session: session).generation()
            let keptFrom = try session.value("SELECT kept_from FROM change_log", as: Int64.self) ?? now
            guard generation <= now, generation >= keptFrom else { return nil }
            if generation == now { return OrderChange(from: now, to: now, old: [], new: [], changed: []) }
            guard let maxItemID = try session.value("SELECT max_item_id FROM generations WHERE generation = \(generation)", as: Int64.self)
            else { return nil }
            // A hint, not a count (which would read the table once more): the planner's estimate.
            // Not the largest id: upserts use up ids, so it may be far above the count.
            let capacity = max(0, try session.value("SELECT reltuples::int8 FROM pg_class WHERE oid = 'items'::regclass", as: Int.self) ?? 0)
            var builder = OrderChangeBuilder(order: order, maxItemID: maxItemID, capacity: capacity)
            for row in try session.rows("""
                SELECT item_id, old_sort_date::text, old_key, old_width::int8, old_height::int8, kind = 3 FROM item_changes
                WHERE generation > \(generation) AND item_id <= \(maxItemID) ORDER BY generation, seq
                """) {
                let (id, date, key, width, height, contentOnly) = try row.decode((Int64, String, Data, Int64, Int64, Bool).self)
                builder.logged(id: id, state: .init(key: [UInt8](key), date: Array(date.utf8), width: width, height: height),
                               contentOnly: contentOnly)
            }
            let logged = builder.loggedIDs
            let shared = Accumulator(builder)
            try session.forEachRow(PostgresQuery(unsafeSQL: """
                SELECT id, \(order == .date ? "sort_date::text" : "''::text"), key FROM items ORDER BY \(Self.orderBy(order))
                """)) { row in
                var (id, date, key) = try row.decode((Int64, String, Data).self)
                date.withUTF8 { date in
                    key.withUnsafeBytes { key in shared.update { $0.item(id: id, date: UnsafeRawBufferPointer(date), key: key) } }
                }
            }
            builder = shared.take()
            var current: [Int64: OrderChangeBuilder.State] = [:]
            for row in try session.rows("SELECT id, key, sort_date::text, width::int8, height::int8 FROM items WHERE id = ANY(\(logged))") {
                let (id, key, date, width, height) = try row.decode((Int64, Data, String, Int64, Int64).self)
                current[id] = .init(key: [UInt8](key), date: Array(date.utf8), width: width, height: height)
            }
            return builder.finish(from: generation, to: now, current: current)
        }
    }

    package func withSnapshot<T: Sendable>(_ body: (any CatalogSnapshot) throws -> T) throws -> T {
        try readPassingErrors { session in
            try session.transaction(Self.beginSnapshot) { try body(PostgresSnapshot(session: session, orderCache: orderCaches.current(epoch: listener.epochIfListening()))) }
        }
    }

    /// `read` for a body that may throw errors of its own: those pass through as they are, and
    /// only the database's (a server error, a lost connection) become `StoreError`.
    func readPassingErrors<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        do {
            return try readers.withSession(retrying: true, body)
        } catch let error where error is PSQLError || PostgresConnections.isConnectionLoss(error) {
            throw wrap(error)
        }
    }

    /// At most two statements and no transaction (a page cache asks this for most pages it
    /// reads, and each statement is a round trip; twice that once, when the database refuses
    /// the prepared one): the layout's segments, unless this process keeps them, then the
    /// items' keys, each with the generation its statement saw. Each statement sees one
    /// committed state, and every change to the items moves the generation, so keys read at
    /// `generation` are its keys.
    package func storedWindows(configuration: String, layoutID: Int64, generation: Int64, range: ClosedRange<Int>,
                               cells: ([UInt8]) throws -> WindowCells) throws -> [StoredWindow]? {
        do {
            return try storedWindowsOnce(configuration: configuration, layoutID: layoutID, generation: generation, range: range, cells: cells)
        } catch is StoredWindowKeys.Unpreparable {
            // Read again, on another connection (prepared or not, as `keyRows` decided).
            return try storedWindowsOnce(configuration: configuration, layoutID: layoutID, generation: generation, range: range, cells: cells)
        }
    }

    private func storedWindowsOnce(configuration: String, layoutID: Int64, generation: Int64, range: ClosedRange<Int>,
                                   cells: ([UInt8]) throws -> WindowCells) throws -> [StoredWindow]? {
        let perSegment = LayoutSegment.windowsPerSegment
        // Segments are kept only while the listener is connected: its epoch tells when the
        // database behind the URL may have changed.
        let epoch = listener.epoch()
        let held = epoch.flatMap { segmentCache.windows(epoch: $0, layoutID: layoutID, generation: generation, range: range, perSegment: perSegment) }
        return try readPassingErrors { session -> [StoredWindow]? in
            var windows: [[UInt8]] = []
            if let held {
                windows = held
            } else {
                let segments = try session.rows(PostgresQuery(unsafeSQL: """
                    SELECT c.generation, l.id, l.generation, s.first_window, s.window_count, s.bytes
                    FROM catalog c LEFT JOIN layouts l ON l.configuration = $1
                    LEFT JOIN layout_segments s ON s.layout_id = l.id AND s.first_window > $2 AND s.first_window <= $3
                    ORDER BY s.first_window
                    """, binds: try Self.binds(configuration, Int64(range.lowerBound - perSegment), Int64(range.upperBound))))
                for row in segments {
                    let (current, id, stored, first, count, bytes) = try row.decode((Int64, Int64?, Int64?, Int?, Int?, Data?).self)
                    guard current == generation, id == layoutID, stored == generation else { return nil }
                    guard let first, let count, let bytes else { continue }
                    let segment = try PostgresSnapshot.segment(bytes, count: count)
                    windows += PostgresSnapshot.windows(range, of: segment, first: first)
                    if let epoch, first % perSegment == 0 {
                        segmentCache.keep(segment, epoch: epoch, layoutID: layoutID, generation: generation, segment: first / perSegment)
                    }
                }
            }
            guard windows.count == range.count else { return nil }
            let shown = try windows.map(cells)
            // The keys' statement also says whether the layout is still the one stored, fresh,
            // for the configuration (the segments' statement said so, but they may come from memory).
            // Sent with those of other pages missing at the same time, on this connection or theirs.
            var statement = StoredWindowKeys(ids: [], configuration: configuration, layoutID: layoutID)
            Self.choose(shown, for: &statement)
            rangesRead.add(statement.ranges.count, ordering: .relaxed)
            let read = try keyBatches.read(statement) { try keyRows(session, $0) }
            guard read.generation == generation else { return nil }
            var keys = read.keys
            // An item a range missed (where the layout's positions and the table's order do not
            // agree: an item changed behind the catalog's back, which the generation does not
            // see) is read by its id, in a statement of its own.
            let missed = statement.ranges.isEmpty ? [] : Array(Set(shown.flatMap(\.ids).filter { keys[$0] == nil }))
            if !missed.isEmpty {
                rangesMissed.add(1, ordering: .relaxed)
                let byID = StoredWindowKeys(ids: missed, configuration: configuration, layoutID: layoutID, order: statement.order)
                let again = try keyBatches.read(byID) { try keyRows(session, $0) }
                guard again.generation == generation else { return nil }
                keys.merge(again.keys) { old, _ in old }
            }
            return zip(windows, shown).map { bytes, cells in
                var own: [Int64: ItemKey] = [:]
                for id in cells.ids { own[id] = keys[id] }
                return StoredWindow(bytes: bytes, keys: own)
            }
        }
    }

    /// How `statement` reads the items of `cells`: a window whose cells lie close together in
    /// the order (as a waterfall's and a row layout's do) as a range of it, the others by id.
    /// Ranges that meet are read as one.
    static func choose(_ cells: [WindowCells], for statement: inout StoredWindowKeys) {
        var spans: [WindowCells.Span] = []
        for window in cells {
            guard let span = window.span else { continue } // no cells
            // The layout's order, whichever way its windows go, so that the statement goes with
            // those of other pages of the layout.
            statement.order = span.order
            if span.count <= 2 * window.ids.count + 16, span.count <= StoredWindowKeys.longestRange {
                spans.append(span)
            } else {
                statement.ids += window.ids
            }
        }
        spans.sort { $0.first < $1.first }
        var merged: [WindowCells.Span] = []
        for span in spans {
            if let last = merged.last, span.first <= last.last + 1, max(last.last, span.last) - last.first < StoredWindowKeys.longestRange {
                merged[merged.count - 1].last = max(last.last, span.last)
            } else {
                merged.append(span)
            }
        }
        statement.ranges = merged.map { StoredWindowKeys.Range(first: $0.firstID, count: $0.count) }
    }

    /// The statement's rows, prepared while the database keeps prepared statements. Where it
    /// does not (a pooler in transaction mode that does not keep them: SQLSTATE 26000, or
    /// 42P05 when another client's statement of the same name is on the server connection),
    /// they are off for this store from then on; a plan whose result type a schema change
    /// changed (0A000) is on every connection of the time, so those are closed. Either way
    /// `Unpreparable` asks the caller to read again.
    private func keyRows(_ session: PostgresSession, _ statement: StoredWindowKeys) throws -> StoredWindowKeys.Row {
        func one(_ rows: [StoredWindowKeys.Row]) throws -> StoredWindowKeys.Row {
            guard rows.count == 1 else { throw StoreError.database("the keys' statement gave \(rows.count) rows, not one") }
            return rows[0]
        }
        guard prepares.load(ordering: .relaxed) else {
            return try one(session.rows(PostgresQuery(unsafeSQL: StoredWindowKeys.sql, binds: try statement.makeBindings())).map(statement.decodeRow))
        }
        do {
            return try one(session.rows(statement))
        } catch let error where ["26000", "42P05"].contains(PostgresConnections.sqlState(error)) {
            prepares.store(false, ordering: .relaxed)
            throw StoredWindowKeys.Unpreparable()
        } catch let error where PostgresConnections.sqlState(error) == "0A000" {
            readers.closeAll()
            throw StoredWindowKeys.Unpreparable()
        }
    }

    /// Bindings for a query written with $1, $2...: the SQL names its order column, which
    /// cannot be a parameter.
    static func binds(_ values: (any PostgresEncodable)?...) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
        return bindings
    }
}
