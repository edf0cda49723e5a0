import CatalogModel
import Foundation
import PostgresNIO

/// The statement a page that misses a server's page cache runs most (often its only one): the
/// catalog's generation when layout `layoutID` is still the one stored, fresh, for
/// `configuration` (else −1), and the keys of the items `ids`, packed by the database into one
/// blob (`Packed`), so that a page's few dozen items are one row of two cells to decode, not a
/// row of eight cells each. Prepared once per connection: at a few dozen items, parsing and
/// planning it cost more than running it.
struct StoredWindowKeys: PostgresPreparedStatement {
    struct Row: Sendable {
        var generation: Int64
        var keys: [Int64: ItemKey]
    }

    static let name = "catalog_stored_window_keys_packed"
    static let sql = """
        SELECT coalesce((SELECT c.generation FROM catalog c JOIN layouts l ON l.configuration = $2 AND l.id = $3
                         AND l.generation = c.generation), -1),
               (SELECT \(Packed.select) WHERE i.id = ANY($1))
        """

    /// The database would not run it prepared on this connection: read again, on another
    /// (unprepared where a pooler refused it).
    struct Unpreparable: Error {}

    var ids: [Int64]
    var configuration: String
    var layoutID: Int64

    func makeBindings() throws -> PostgresBindings {
        try PostgresStore.binds(ids, configuration, layoutID)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (generation, packed) = try row.decode((Int64, Data?).self)
        return Row(generation: generation, keys: try packed.map(Packed.keys) ?? [:])
    }

    /// The items' keys as `PackedItemKeys` records, made by the database.
    enum Packed {
        /// The blob of the items a WHERE clause that follows chooses.
        static let select = """
            string_agg(\(record), ''::bytea) FROM items i LEFT JOIN files f ON f.item_id = i.id
            CROSS JOIN LATERAL (SELECT convert_to(i.url, 'UTF8') AS url, convert_to(i.title, 'UTF8') AS title) AS t
            """
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
