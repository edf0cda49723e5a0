import CatalogLayout
import CatalogModel
import Foundation

/// A layout computed: extended in place when items were only appended, else laid out from
/// scratch a piece of the order at a time (stored as it is computed, or after), then stored.
extension Pager {
    /// Extends the stored layout in place when items were only appended at the end of the
    /// order; otherwise lays everything out again.
    static func compute(_ configuration: LayoutConfiguration, snapshot: any CatalogSnapshot, stored: StoredLayout?,
                        generation: Int64) throws -> Computed {
        let start = ContinuousClock.now
        /// The layout's input from `offset` on, made straight from the store's rows a piece at a time.
        func items(from offset: Int) throws -> [LayoutItem] {
            var items: [LayoutItem] = []
            try snapshot.forEachLayoutInput(order: configuration.order, offset: offset, reserve: { items.reserveCapacity($0) }) { rows in
                for row in rows { items.append(LayoutItem(row)) }
            }
            return items
        }
        do {
            if let stored, try readableHeader(stored) != nil,
               try snapshot.onlyAppended(since: stored.generation, count: stored.itemCount, order: configuration.order) {
                let windows = try snapshot.allWindows(layoutID: stored.id)
                let table = try layoutTable(from: LayoutArchive(header: stored.header, windows: windows))
                let added = try items(from: stored.itemCount)
                let starts = try sectionStarts(configuration, snapshot: snapshot, from: stored.itemCount, count: added.count)
                do {
                    let extended = try configuration.extend(table, with: added, sections: starts)
                    return Computed(table: extended, header: extended.archiveHeader(), generation: generation,
                                    previous: (stored.id, stored.generation, windows),
                                    seconds: Timestamps.seconds(since: start))
                } catch LayoutError.tooManyWindows {
                    // Stored before items were laid out within 1:1000, it may reach further than
                    // the layout computed now: that one, below.
                }
            }
            // A few items changed in the middle: the stored layout is kept up to the first
            // item that moved, changed size, came or went, and laid out again from there.
            if let stored, configuration.relaysOut, try readableHeader(stored) != nil,
               let changed = try snapshot.loggedChanges(since: stored.generation) {
                let input = try items(from: 0)
                let windows = try snapshot.allWindows(layoutID: stored.id)
                let table = try layoutTable(from: LayoutArchive(header: stored.header, windows: windows))
                var first = 0
                let common = min(table.count, input.count)
                while first < common, table.attributes(at: first).id == input[first].id, !changed.contains(input[first].id) { first += 1 }
                // As above: a layout stored before the 1:1000 bound may refuse what a new one takes.
                let relaid: (any LayoutTable)?
                do { relaid = first > 0 ? try configuration.relayout(table, from: first, with: Array(input[first...])) : nil }
                catch LayoutError.tooManyWindows { relaid = nil }
                if let relaid {
                    return Computed(table: relaid, header: relaid.archiveHeader(), generation: generation,
                                    previous: (stored.id, stored.generation, windows), seconds: Timestamps.seconds(since: start))
                }
                let whole = try configuration.compute(input, sections: nil) // relaysOut: no sections
                return Computed(table: whole, header: whole.archiveHeader(), generation: generation, previous: nil,
                                seconds: Timestamps.seconds(since: start))
            }
            return try computeWhole(configuration, snapshot: snapshot, generation: generation, since: start, stream: nil)
        } catch let error as LayoutError {
            throw PageError.layout(error)
        }
    }

    /// Lays everything out from scratch, a piece of the order at a time: no array of every
    /// item. With `stream`, puts each segment of windows into it as soon as its windows settle
    /// (`storesWhileComputing` configurations), and the rest once the last item is placed,
    /// then finishes it; a stream the store stopped taking is left alone.
    static func computeWhole(_ configuration: LayoutConfiguration, snapshot: any CatalogSnapshot, generation: Int64,
                             since start: ContinuousClock.Instant, stream: LayoutSegmentStream?) throws -> Computed {
        let runs = try configuration.sections.grouping.map { try snapshot.sectionRuns(order: configuration.order, grouping: $0) }
        var placed = 0
        var run = 0
        var piece: [LayoutItem] = []
        var storing = stream != nil
        let perSegment = LayoutSegment.windowsPerSegment
        /// Puts the windows of `table` up to `end` into the stream, a segment at a time.
        func put(_ table: some LayoutTable, upTo end: Int) {
            guard let stream else { return }
            while storing, stream.windowsPut < end {
                let range = stream.windowsPut..<min(stream.windowsPut + perSegment, end)
                storing = stream.put(range, LayoutSegment.encode(LayoutWindows.Packed(table, range)))
            }
        }
        let table = try configuration.compute(pieces: { reserve, take in
            try snapshot.forEachLayoutInput(order: configuration.order, offset: 0, reserve: reserve) { rows in
                piece.removeAll(keepingCapacity: true)
                for row in rows { piece.append(LayoutItem(row)) }
                try take(piece, runs.map { LayoutConfiguration.sectionStarts($0, from: placed, count: piece.count, run: &run) })
                placed += piece.count
            }
        }, settled: stream == nil ? nil : { table in
            // Whole segments only: the last one's windows are put with the rest.
            put(table, upTo: table.settledWindowCount / perSegment * perSegment)
        })
        put(table, upTo: table.windowCount)
        let computed = Computed(table: table, header: table.archiveHeader(), generation: generation, previous: nil,
                                seconds: Timestamps.seconds(since: start))
        if storing, let stream { stream.finish(computed.summary) }
        return computed
    }

    /// Lays `configuration` out from scratch at `generation` while a thread of its own stores
    /// the layout, its windows written as they settle (`storesWhileComputing`), then runs `body`
    /// with the layout and the snapshot it was computed in. The snapshot reads the catalog
    /// only, never the stored layouts: SQLite's layout file must stay free for the store's
    /// commits. nil, storing nothing, when the catalog has moved on from `generation`, or the
    /// snapshot could not be read while the store held the file.
    static func computeStoring<T: Sendable>(_ configuration: LayoutConfiguration, store: any CatalogBackend, generation: Int64,
                                            _ body: (Computed, any CatalogSnapshot) throws -> T)
        throws -> (result: T, save: Result<LayoutSave, StoreError>)? {
        let stream = LayoutSegmentStream()
        let saving = BackgroundCall { () throws(StoreError) -> LayoutSave in
            defer { stream.stop() }
            return try store.saveLayout(configuration: configuration.key, order: configuration.order, generation: generation,
                                        windows: LayoutWindows(stream: stream), replacing: nil, keeping: 0)
        }
        stream.waitForStore() // before the snapshot takes a reader the store's start may need
        let result: T?
        do {
            result = try store.withSnapshot { snapshot throws -> T? in
                guard try snapshot.generation() == generation else { return nil }
                let computed: Computed
                do {
                    computed = try computeWhole(configuration, snapshot: snapshot, generation: generation, since: .now, stream: stream)
                } catch let error as LayoutError {
                    throw PageError.layout(error)
                }
                return try body(computed, snapshot)
            }
        } catch StoreError.layoutsBusy {
            // The snapshot met a journal to roll back, which it may not while this store holds
            // the file: laid out by the caller instead, as for a catalog that moved on (and read
            // back, if the store finished it).
            stream.fail()
            _ = try? saving.wait()
            return nil
        } catch {
            stream.fail() // unless finished: then the layout is stored all the same
            _ = try? saving.wait()
            throw error
        }
        stream.fail()
        let save = Result { () throws(StoreError) -> LayoutSave in try saving.wait() }
        return result.map { ($0, save) }
    }

    /// Stores a computed layout: for an extension, only from the first window that changed on.
    /// The windows are encoded a segment at a time as the store writes them. Says whether the
    /// store stored it, or why not (see `saveLayout`).
    @discardableResult
    static func save(_ computed: Computed, store: any CatalogBackend, key: String, order: ItemOrder) throws -> LayoutSave {
        let table = computed.table
        let perSegment = LayoutSegment.windowsPerSegment
        var keeping = 0
        if let previous = computed.previous?.windows {
            let common = min(previous.count, table.windowCount)
            comparing: while keeping < common {
                let range = keeping..<min(keeping + perSegment, common)
                let packed = table.packedWindows(range)
                for window in range {
                    guard packed.window(window - range.lowerBound).elementsEqual(previous[window]) else { break comparing }
                    keeping += 1
                }
            }
        }
        let windows = LayoutWindows(count: table.windowCount, summary: computed.summary) { LayoutWindows.Packed(table, $0) }
        return try store.saveLayout(configuration: key, order: order, generation: computed.generation, windows: windows,
                                    replacing: computed.previous.map { ($0.id, $0.generation) }, keeping: keeping)
    }
}
