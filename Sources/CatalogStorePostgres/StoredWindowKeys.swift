import CatalogModel
import Foundation
import PostgresNIO

/// The statement a page that misses a server's page cache runs most (often its only one): the
/// catalog's generation when layout `layoutID` is still the one stored, fresh, for
/// `configuration` (else −1), and the keys of the items its windows show, packed by the
/// database into one blob (`Packed`), so that a page's few dozen items are one row of two cells
/// to decode, not a row of eight cells each. Prepared once per connection: at a few dozen
/// items, parsing and planning it cost more than running it.
///
/// A window's items are neighbours in the layout's order, which is the catalog's date or path
/// order, so most are read as ranges of that order's index (`ranges`: from the item at the
/// range's first position, so many items): one descent of the index and a few of its pages for
/// a window, where reading them by id (`ids`) descends the primary key for each item. A range
/// may hold items the window does not show (a waterfall's columns do not end together); the
/// caller picks its own.
struct StoredWindowKeys: PostgresPreparedStatement {
    struct Row: Sendable {
        var generation: Int64
        var keys: [Int64: ItemKey]
    }

    static let name = "catalog_stored_window_keys_ranged"
    static let sql = """
        SELECT coalesce((SELECT c.generation FROM catalog c JOIN layouts l ON l.configuration = $2 AND l.id = $3
                         AND l.generation = c.generation), -1),
               (SELECT \(Packed.select(from: chosen)))
        """

    /// The items chosen: those of `ids` ($1), and from each range's first item ($4) on in the
    /// order ($6: the date order, else the path order) as many as the range counts ($5). The
    /// date order is `sort_date DESC, key`: the rest of the first item's date, then the dates
    /// after it, each branch a range of `items_by_date` that the range's LIMIT stops.
    ///
    /// Written for one generic plan, made once per connection: planned for the values bound,
    /// each run cost more than it ran (half a millisecond). The parameters are read through
    /// subqueries, which the planner does not look into, so that the plans it makes for the
    /// values it is given cost what the generic one does and the database keeps that (the ids'
    /// cast stays outside their subquery: `ANY((SELECT $1))` alone would be `ANY` of a subquery,
    /// comparing each id with whole arrays). Each
    /// branch also has a constant LIMIT, `longestRange`, which only the planner reads: without
    /// it, it takes a LIMIT it cannot see for a tenth of the table, and the plan's cost for
    /// work that just-in-time compilation would pay off (tens of milliseconds each time).
    static let chosen = """
        (SELECT id, key, url, title FROM items WHERE id = ANY((SELECT $1)::int8[])
         UNION ALL
         SELECT i.* FROM unnest((SELECT $4::int8[]), (SELECT $5::int8[])) AS r(first, n)
         CROSS JOIN LATERAL (SELECT sort_date, key FROM items WHERE id = r.first) AS b
         CROSS JOIN LATERAL (
             (SELECT id, key, url, title FROM items WHERE (SELECT $6) AND sort_date = b.sort_date AND key >= b.key ORDER BY key
                        LIMIT \(longestRange))
             UNION ALL (SELECT id, key, url, title FROM items WHERE (SELECT $6) AND sort_date < b.sort_date ORDER BY sort_date DESC, key
                        LIMIT \(longestRange))
             UNION ALL (SELECT id, key, url, title FROM items WHERE NOT (SELECT $6) AND key >= b.key ORDER BY key LIMIT \(longestRange))
             LIMIT r.n) AS i)
        """

    /// The most items a range counts: a longer one is read by id.
    static let longestRange = 4_096

    /// A range of the order: from the item `first` on, `count` items.
    struct Range: Sendable, Equatable {
        var first: Int64
        var count: Int
    }

    /// The database would not run it prepared on this connection: read again, on another
    /// (unprepared where a pooler refused it).
    struct Unpreparable: Error {}

    var ids: [Int64]
    var configuration: String
    var layoutID: Int64
    var ranges: [Range] = []
    /// The order the ranges are of.
    var order: ItemOrder = .date

    /// The items it reads at most: those of `ids` and of every range.
    var itemsRead: Int { ranges.reduce(ids.count) { $0 + $1.count } }

    func makeBindings() throws -> PostgresBindings {
        try PostgresStore.binds(ids, configuration, layoutID, ranges.map(\.first), ranges.map { Int64($0.count) }, order == .date)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (generation, packed) = try row.decode((Int64, Data?).self)
        return Row(generation: generation, keys: try packed.map(Packed.keys) ?? [:])
    }

    /// The items' keys as `PackedItemKeys` records, made by the database.
    enum Packed {
        /// The blob of the items of `rows` (`items` or a subquery of its id, key, url and title),
        /// which a WHERE clause that follows may choose from.
        static func select(from rows: String) -> String {
            """
            string_agg(\(record), ''::bytea) FROM \(rows) i LEFT JOIN files f ON f.item_id = i.id
            CROSS JOIN LATERAL (SELECT convert_to(i.url, 'UTF8') AS url, convert_to(i.title, 'UTF8') AS title) AS t
            """
        }
        static let record = """
            int8send(i.id) || int4send(length(i.key)) || i.key
            || CASE WHEN f.device IS NULL THEN '\\x00'::bytea ELSE '\\x01'::bytea || int8send(f.device)
               || int8send(coalesce(f.inode, 0)) || int8send(coalesce(f.size, 0)) || int8send(coalesce(f.mtime_ns, 0)) END
            || coalesce(int4send(length(t.url)) || t.url, '\\xffffffff'::bytea)
            || coalesce(int4send(length(t.title)) || t.title, '\\xffffffff'::bytea)
            """

        /// The keys in `blob`, by item id.
        static func keys(_ blob: Data) throws -> [Int64: ItemKey] {
            var keys: [Int64: ItemKey] = [:]
            try PackedItemKeys(bytes: [UInt8](blob)).add(to: &keys)
            return keys
        }
    }
}
