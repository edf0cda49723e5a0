import Foundation
import Synchronization

/// What cuts the rows of one order, given in that order, into a store's chunks of order data
/// (each store keeps its own columns): SQLite's `OrderData.ChunkWriter`, PostgreSQL's
/// `PostgresOrderData.ChunkCutter`.
package protocol OrderChunkCutter {
    associatedtype Chunk: Sendable
    init(order: ItemOrder)
    /// The next item of the order: its id, its display size (`OrderChunking.fitted`), its sort
    /// date and its key.
    mutating func append(id: Int64, width: UInt32, height: UInt32, date: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer)
    /// The chunks, once every item is appended.
    mutating func finish() -> [Chunk]
    /// About the memory the chunks cut so far take.
    var bytes: Int { get }
}

/// The order data of an import into an empty catalog, made from the rows it writes instead of
/// read back from the items and their indexes once they are written (BENCHMARKS.md, "An
/// import's order data cut from its own rows"), on either store:
/// - the writer hands each batch of rows over once it is written (`note`);
/// - a thread of this order's own copies what the orders need of them, and sorts them in both
///   orders in runs of `runSize` rows, each once the next run is noted too, on the core the
///   writer leaves idle (`ImportedRows`);
/// - at the end, while the writer flushes and the database builds its indexes, a thread merges
///   the runs and `Cutter` cuts them into chunks (`cut(firstID:lastID:items:firstKey:lastKey:)`),
///   which the writer then inserts.
///
/// Bounded: the rows' keys, dates and sizes, their sorted runs and the chunks cut from them take
/// at most `budget` bytes; past it the rows are dropped and the import rebuilds the order data
/// from the indexes as before (an import of 10,000,000 rows, within its memory bound). The
/// rows are charged what their chunks usually take as they are noted (`ImportedRows`); a cut
/// whose chunks take more (a section starting at nearly every item) stops and cuts nothing.
package final class ImportedOrder<Cutter: OrderChunkCutter>: @unchecked Sendable {
    /// Written by the thread that notes them until it signals `noted`, then by the one that cuts.
    private let rows: ImportedRows
    /// Batches of rows on their way from the writer to the thread that notes them; nil ends them.
    private let incoming = Handoff<[ImportRow]?>(capacity: 16)
    private let noted = DispatchSemaphore(value: 0)
    private var closed = false
    private var started = false
    private var chunksCut: (date: [Cutter.Chunk], path: [Cutter.Chunk])?
    private let done = DispatchSemaphore(value: 0)
    /// Set when the import was refused: a cut under way stops.
    private let cancelled = Atomic<Bool>(false)

    /// Starts the thread that notes rows; `close()` must end it. `importedAt` is the sort
    /// date of a row without one.
    package init(budget: Int, importedAt: String, runSize: Int = 1 << 16) {
        let rows = ImportedRows(budget: budget, runSize: runSize)
        self.rows = rows
        Thread.detachNewThread { [incoming, noted] in
            while let batch = incoming.take() { rows.note(batch, importedAt: importedAt) }
            noted.signal()
        }
    }

    /// How many rows were noted (once they are all noted), and whether they passed the budget.
    package var count: Int { rows.count }
    package var dropped: Bool { rows.dropped }

    /// Hands rows just written, in the order their ids were given, to the thread that notes them.
    package func note(_ rows: [ImportRow]) {
        incoming.put(rows)
    }

    /// Tells the thread that notes rows that no more come: it ends once it noted those handed
    /// over. Called once the import wrote its last row, or failed.
    package func close() {
        guard !closed else { return }
        closed = true
        incoming.put(nil)
    }

    /// Starts merging the sorted runs in both orders and cutting them into chunks, on a thread
    /// of its own, once the last rows are noted (it closes the rows), the nth row noted being
    /// item `firstID + n`; `chunks()` waits for it. Nothing is cut when the rows were dropped,
    /// or are not the catalog's `items` items from `firstID` (whose key is `firstKey`) to
    /// `lastID` (`lastKey`). Once only: a second call does nothing.
    package func cut(firstID: Int64, lastID: Int64, items: Int, firstKey: [UInt8], lastKey: [UInt8]) {
        guard !started else { return }
        close()
        started = true
        Thread.detachNewThread { [self] in
            defer {
                rows.free() // while the writer inserts the chunks
                done.signal()
            }
            noted.wait()
            guard rows.are(items: items, from: firstID, to: lastID, firstKey: firstKey, lastKey: lastKey) else { return }
            guard !cancelled.load(ordering: .relaxed) else { return }
            rows.sortRemainingRuns() // before what they hold is weighed
            // What the chunks of both orders may take, beside the rows and their places.
            let allowance = rows.budget - rows.heldBytes
            func cutChunks(_ order: ItemOrder, beside other: Int) -> (chunks: [Cutter.Chunk], bytes: Int)? {
                var cutter = Cutter(order: order)
                var appended = 0
                let whole = rows.merge(order, firstID: firstID) { id, width, height, date, key in
                    cutter.append(id: id, width: width, height: height, date: date, key: key)
                    appended += 1
                    // Weighed once a chunk's worth more is cut: the chunks grow a chunk at a time.
                    guard appended % OrderChunking.chunkSize == 0 else { return true }
                    return other + cutter.bytes <= allowance && !cancelled.load(ordering: .relaxed)
                }
                guard whole else { return nil }
                let chunks = cutter.finish()
                return other + cutter.bytes <= allowance ? (chunks, cutter.bytes) : nil
            }
            guard let date = cutChunks(.date, beside: 0), let path = cutChunks(.path, beside: date.bytes) else { return }
            chunksCut = (date.chunks, path.chunks)
        }
    }

    /// Stops a cut under way (the import was refused): it cuts nothing.
    package func cancel() {
        cancelled.store(true, ordering: .relaxed)
        close()
    }

    /// Each order's chunks, once `cut(firstID:lastID:items:firstKey:lastKey:)` is done; nil when
    /// it was not started or cut nothing.
    package func chunks() -> (date: [Cutter.Chunk], path: [Cutter.Chunk])? {
        guard started else { return nil }
        done.wait()
        done.signal()
        return chunksCut
    }
}

/// The rows an `ImportedOrder` noted: what each order needs of them, and their places in both
/// orders in sorted runs. Not generic, so that its sorts and merges are specialized here.
private final class ImportedRows: @unchecked Sendable {
    /// Every row, in the order noted (`NotedRow`).
    private var bytes: [UInt8] = []
    /// How many rows were noted (read once they are all noted).
    private(set) var count = 0
    /// Where the first row of the run not sorted yet starts in `bytes`, and where the last row
    /// noted starts.
    private var runStart = 0
    private var lastStart = 0
    /// How many leading bytes every key noted shares: the sorts skip them.
    private var sharedKeyBytes = Int.max
    /// The rows (where they start in `bytes`), each run of `runSize` sorted on its own once the
    /// next run is noted too (the last two when the rows are cut), in key order and in date
    /// order: cutting merges the runs.
    private var keyRuns: [UInt32] = []
    private var dateRuns: [UInt32] = []
    let budget: Int
    /// Set once the rows passed the budget: nothing more is noted.
    private(set) var dropped = false
    /// How many rows are sorted at a time while the import writes.
    private let runSize: Int
    /// What the rows noted take, and will take once cut: their bytes, and `bytesBeside` each.
    private var charged = 0
    /// What a row takes beside its bytes: its place in both orders' runs (8 bytes) and its entry
    /// in both orders' chunks (32 at most: 16 an entry, as PostgreSQL keeps them and SQLite's
    /// wide chunks; SQLite's narrow ones take 8), with their section runs.
    private static let bytesBeside = 44

    init(budget: Int, runSize: Int) {
        self.budget = min(budget, Int(UInt32.max))
        self.runSize = min(max(1, runSize), Int(UInt32.max)) // two runs' count never overflows
        // Untouched capacity is address space, not memory: the rows never move as they grow.
        bytes.reserveCapacity(self.budget)
    }

    func note(_ rows: [ImportRow], importedAt: String) {
        for row in rows {
            guard !dropped else { return }
            var key = row.key
            var date = row.date ?? importedAt
            key.withUTF8 { key in
                date.withUTF8 { date in
                    append(key: UnsafeRawBufferPointer(key), date: UnsafeRawBufferPointer(date), width: row.displayWidth, height: row.displayHeight)
                }
            }
            // A run waits until the next one is noted too: a small import (one run and a
            // part) sorts at the end, beside the index build, not beside the parser and writer.
            if count == keyRuns.count + 2 * runSize { sortRun() }
        }
    }

    private func append(key: UnsafeRawBufferPointer, date: UnsafeRawBufferPointer, width: Int, height: Int) {
        charged += NotedRow.header + key.count + date.count + Self.bytesBeside
        guard charged <= budget else {
            dropped = true
            (bytes, keyRuns, dateRuns) = ([], [], [])
            return
        }
        if count > 0 {
            let limit = min(sharedKeyBytes, key.count)
            sharedKeyBytes = bytes.withUnsafeBytes { base in
                let firstKey = NotedRow(base, at: 0).key
                var shared = 0
                while shared < limit, firstKey[shared] == key[shared] { shared += 1 }
                return shared
            }
        } else {
            sharedKeyBytes = key.count
        }
        let (width, height) = OrderChunking.fitted(Int64(width), Int64(height))
        lastStart = bytes.count
        var header = (width.littleEndian, height.littleEndian, UInt32(key.count).littleEndian, UInt32(date.count).littleEndian,
                      UInt32(count).littleEndian)
        withUnsafeBytes(of: &header) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: key)
        bytes.append(contentsOf: date)
        count += 1
    }

    /// Sorts the next run, the `runSize` rows noted after the last run sorted (or fewer, the
    /// last), in both orders (while the import still writes, on the thread that notes them).
    /// Their keys share at least the bytes all keys share at the end, which each sort may skip.
    private func sortRun() {
        let shared = sharedKeyBytes
        bytes.withUnsafeBytes { base in
            var run: [UInt32] = []
            var start = runStart
            while start < base.count, run.count < runSize {
                run.append(UInt32(start))
                start += NotedRow(base, at: UInt32(start)).size
            }
            runStart = start
            var keys = run.map { KeyPlace(base, at: $0, shared: shared) }
            keys.withUnsafeMutableBufferPointer { $0.sort { KeyPlace.precedes($0, $1, base, shared: shared) } }
            keyRuns.append(contentsOf: keys.lazy.map(\.start))
            var dates = run.map { DatePlace(base, at: $0, shared: shared) }
            dates.withUnsafeMutableBufferPointer { $0.sort { DatePlace.precedes($0, $1, base, shared: shared) } }
            dateRuns.append(contentsOf: dates.lazy.map(\.start))
        }
    }

    /// Sorts the runs noted and not sorted yet, the last shorter than the others: those
    /// noted once the import wrote its last rows.
    func sortRemainingRuns() {
        while runStart < bytes.count { sortRun() }
    }

    /// Whether the rows noted are the catalog's `items` items from `firstID` (whose key is
    /// `firstKey`) to `lastID` (`lastKey`): as many, with ids given one after the other, and the
    /// first and last rows those items.
    func are(items: Int, from firstID: Int64, to lastID: Int64, firstKey: [UInt8], lastKey: [UInt8]) -> Bool {
        !dropped && count == items && count > 0 && lastID - firstID + 1 == Int64(items)
            && bytes.withUnsafeBytes { NotedRow($0, at: 0).key.elementsEqual(firstKey)
                                       && NotedRow($0, at: UInt32(lastStart)).key.elementsEqual(lastKey) }
    }

    /// What the rows and their places in both orders take.
    var heldBytes: Int { bytes.count + 4 * (keyRuns.capacity + dateRuns.capacity) }

    /// Calls `body` with every row in `order` (its id, the nth row noted being `firstID + n`,
    /// display size, sort date and key), merging the sorted runs, until it returns false; returns
    /// whether it had every row.
    func merge(_ order: ItemOrder, firstID: Int64,
               _ body: (Int64, UInt32, UInt32, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) -> Bool {
        sortRemainingRuns()
        let shared = sharedKeyBytes
        return bytes.withUnsafeBytes { base in
            switch order {
            case .date: merge(DatePlace.self, base, shared: shared, firstID: firstID, runs: dateRuns, body)
            case .path: merge(KeyPlace.self, base, shared: shared, firstID: firstID, runs: keyRuns, body)
            }
        }
    }

    private func merge<Place: RowPlace>(_: Place.Type, _ base: UnsafeRawBufferPointer, shared: Int, firstID: Int64, runs: [UInt32],
                                        _ body: (Int64, UInt32, UInt32, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) -> Bool {
        var merge = RunMerge<Place>(runs, runSize: runSize, base, shared: shared)
        while let start = merge.next() {
            let row = NotedRow(base, at: start)
            guard body(firstID + Int64(row.position), row.width, row.height, row.date, row.key) else { return false }
        }
        return true
    }

    /// Lets go of the rows, once cut.
    func free() {
        (bytes, keyRuns, dateRuns) = ([], [], [])
    }
}

/// One row as noted, where it starts in `ImportedRows.bytes`: its display size, the lengths of
/// its key and sort date, its position among the rows (little-endian UInt32s), then the bytes of
/// its key and date.
private struct NotedRow {
    static let header = 20
    var width: UInt32
    var height: UInt32
    var position: UInt32
    var key: UnsafeRawBufferPointer
    var date: UnsafeRawBufferPointer

    init(_ base: UnsafeRawBufferPointer, at start: UInt32) {
        let start = Int(start)
        func field(_ index: Int) -> UInt32 { UInt32(littleEndian: base.loadUnaligned(fromByteOffset: start + 4 * index, as: UInt32.self)) }
        let (keyCount, dateCount) = (Int(field(2)), Int(field(3)))
        let key = start + Self.header
        (width, height, position) = (field(0), field(1), field(4))
        self.key = UnsafeRawBufferPointer(rebasing: base[key..<key + keyCount])
        date = UnsafeRawBufferPointer(rebasing: base[key + keyCount..<key + keyCount + dateCount])
    }

    var size: Int { Self.header + key.count + date.count }
}

/// A row's place in an order: the first bytes of what it sorts by, zero-padded and read
/// big-endian, so that comparing them never contradicts comparing the bytes in full; only rows
/// equal in them compare their bytes.
private protocol RowPlace {
    /// Where the row starts in `ImportedRows.bytes`.
    var start: UInt32 { get }
    /// The place of the row at `start`, whose key's first `shared` bytes every key shares.
    init(_ base: UnsafeRawBufferPointer, at start: UInt32, shared: Int)
    static func precedes(_ a: Self, _ b: Self, _ base: UnsafeRawBufferPointer, shared: Int) -> Bool
}

/// Keys in order: SQLite's `ORDER BY key` (bytes compared, a shorter one first where one
/// begins the other), by the 16 bytes of each key past those every key shares.
private struct KeyPlace: RowPlace {
    var first: UInt64
    var second: UInt64
    var start: UInt32

    init(_ base: UnsafeRawBufferPointer, at start: UInt32, shared: Int) {
        (first, second, _) = words(NotedRow(base, at: start).key, from: shared, count: 2)
        self.start = start
    }

    static func precedes(_ a: Self, _ b: Self, _ base: UnsafeRawBufferPointer, shared: Int) -> Bool {
        if a.first != b.first { return a.first < b.first }
        if a.second != b.second { return a.second < b.second }
        return compare(NotedRow(base, at: a.start).key, NotedRow(base, at: b.start).key, from: shared + 16) < 0
    }
}

/// Dates newest first, then keys: SQLite's `ORDER BY sort_date DESC, key`, by the first 24
/// bytes of the date, its length (past 24: the rest compared in full), then as `KeyPlace`.
private struct DatePlace: RowPlace {
    var first: UInt64
    var second: UInt64
    var third: UInt64
    var firstOfKey: UInt64
    var secondOfKey: UInt64
    /// The date's length, 25 for any longer.
    var length: UInt32
    var start: UInt32

    init(_ base: UnsafeRawBufferPointer, at start: UInt32, shared: Int) {
        let row = NotedRow(base, at: start)
        (first, second, third) = words(row.date, from: 0, count: 3)
        (firstOfKey, secondOfKey, _) = words(row.key, from: shared, count: 2)
        length = UInt32(min(row.date.count, 25))
        self.start = start
    }

    static func precedes(_ a: Self, _ b: Self, _ base: UnsafeRawBufferPointer, shared: Int) -> Bool {
        if a.first != b.first { return a.first > b.first }
        if a.second != b.second { return a.second > b.second }
        if a.third != b.third { return a.third > b.third }
        if a.length != b.length { return a.length > b.length }
        if a.length > 24 {
            let order = compare(NotedRow(base, at: a.start).date, NotedRow(base, at: b.start).date, from: 24)
            if order != 0 { return order > 0 }
        }
        if a.firstOfKey != b.firstOfKey { return a.firstOfKey < b.firstOfKey }
        if a.secondOfKey != b.secondOfKey { return a.secondOfKey < b.secondOfKey }
        return compare(NotedRow(base, at: a.start).key, NotedRow(base, at: b.start).key, from: shared + 16) < 0
    }
}

/// The rows of sorted runs in one order: each run's next rows wait in a block, the first of
/// each run in a heap, the first in the order on top. A block's rows are read together, many
/// reads in flight, since the rows of a run lie all over `ImportedRows.bytes`.
private struct RunMerge<Place: RowPlace> {
    private struct Run {
        var block: [Place] = []
        var taken = 0
        var next: Int
        let end: Int
        /// What reading the block's rows summed (kept, so that the reads are not left out).
        var touched: UInt32 = 0
    }

    private var runs: [Run]
    /// Each run's first row not taken yet, with its run, as a binary heap.
    private var heap: [(place: Place, run: Int)] = []
    private let starts: [UInt32]
    private let base: UnsafeRawBufferPointer
    private let shared: Int
    private static var blockSize: Int { 32 }

    init(_ starts: [UInt32], runSize: Int, _ base: UnsafeRawBufferPointer, shared: Int) {
        (self.starts, self.base, self.shared) = (starts, base, shared)
        runs = stride(from: 0, to: starts.count, by: runSize).map { Run(next: $0, end: min($0 + runSize, starts.count)) }
        for index in runs.indices {
            if let place = take(index) { push(place, run: index) }
        }
    }

    /// The next row in the order (where it starts), nil after the last.
    mutating func next() -> UInt32? {
        guard let top = heap.first else { return nil }
        if let place = take(top.run) {
            heap[0].place = place
        } else {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
        }
        siftDown()
        return top.place.start
    }

    /// The next row of run `index`, its next block read when the last is taken; nil when the run ended.
    private mutating func take(_ index: Int) -> Place? {
        if runs[index].taken == runs[index].block.count {
            let (next, end) = (runs[index].next, runs[index].end)
            guard next < end else { return nil }
            let last = min(next + Self.blockSize, end)
            // Each row's first bytes first, and those 48 bytes on (a row of a 12-byte key and a
            // 20-byte date takes 52), every read in flight at once (the sum keeps them); then
            // the places, from rows in the CPU's caches.
            var sum: UInt32 = 0
            let lastStart = base.count - 4
            for position in next..<last {
                let start = Int(starts[position])
                sum &+= base.loadUnaligned(fromByteOffset: start, as: UInt32.self)
                    &+ base.loadUnaligned(fromByteOffset: min(start + 48, lastStart), as: UInt32.self)
            }
            runs[index].touched = sum
            runs[index].block.removeAll(keepingCapacity: true)
            for position in next..<last { runs[index].block.append(Place(base, at: starts[position], shared: shared)) }
            (runs[index].taken, runs[index].next) = (0, last)
        }
        runs[index].taken += 1
        return runs[index].block[runs[index].taken - 1]
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        Place.precedes(heap[a].place, heap[b].place, base, shared: shared)
    }

    private mutating func push(_ place: Place, run: Int) {
        heap.append((place, run))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown() {
        var parent = 0
        while true {
            var first = parent
            let left = 2 * parent + 1
            if left < heap.count && precedes(left, first) { first = left }
            if left + 1 < heap.count && precedes(left + 1, first) { first = left + 1 }
            guard first != parent else { return }
            heap.swapAt(first, parent)
            parent = first
        }
    }
}

/// `count` (2 or 3) words of `bytes` from `from` on, zero-padded, read big-endian.
private func words(_ bytes: UnsafeRawBufferPointer, from: Int, count: Int) -> (UInt64, UInt64, UInt64) {
    (word(bytes, at: from), word(bytes, at: from + 8), count > 2 ? word(bytes, at: from + 16) : 0)
}

/// The 8 bytes of `bytes` at `offset`, zero-padded past its end, read big-endian.
private func word(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
    let available = bytes.count - offset
    if available >= 8 { return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    var value: UInt64 = 0
    for index in 0..<max(0, available) { value |= UInt64(bytes[offset + index]) << (56 - 8 * index) }
    return value
}

/// memcmp's order of `a` and `b`, whose bytes before `from` compare equal (zero-padded), from
/// byte `from` on: a shorter one first where one begins the other, which its length alone tells
/// (two keys that end before `from`, equal but for zeros after the shorter one, differ in it).
private func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, from: Int) -> Int32 {
    let common = min(max(0, a.count - from), max(0, b.count - from))
    if common > 0 {
        let order = memcmp(a.baseAddress! + from, b.baseAddress! + from, common)
        if order != 0 { return order }
    }
    return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
}
