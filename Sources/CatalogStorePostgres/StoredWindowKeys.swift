import CatalogModel
import Foundation
import PostgresNIO

/// The statement a page that misses a server's page cache runs most (often its only one): the
/// catalog's generation when layout `layoutID` is still the one stored, fresh, for
/// `configuration` (else −1), and the keys of the items `ids`, packed by the database into one
/// blob (`Packed`), so that a page's few dozen items are one row of two cells to decode, not a
/// row of eight cells each. Prepared once per connection: at a few dozen items, parsing and
/// planning it cost more than running it. It reads the keys from the index `items_keys`
/// (Migrations/postgres/0006) alone; the few items that index leaves out are read from the table
/// by a second statement (`completed`).
struct StoredWindowKeys: PostgresPreparedStatement {
    struct Row: Sendable {
        var generation: Int64
        var keys: [Int64: ItemKey]
    }

    static let name = "catalog_stored_window_keys_indexed"
    static let sql = statement(where: "i.id = ANY($1) AND \(Packed.short)")
    /// The same for any item, read from the table: for those `items_keys` leaves out.
    static let everyItemSQL = statement(where: "i.id = ANY($1)")

    private static func statement(where condition: String) -> String {
        """
        SELECT coalesce((SELECT c.generation FROM catalog c JOIN layouts l ON l.configuration = $2 AND l.id = $3
                         AND l.generation = c.generation), -1),
               (SELECT \(Packed.select) WHERE \(condition))
        """
    }

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

    /// `row`, the statement's, with the keys of the items it did not find (left out of the index:
    /// their key, address and title are long) read by `read` for them alone, unprepared. The two
    /// statements are two snapshots: the generation is the one both saw, else −1 (a write came
    /// between them, and the caller reads again).
    func completed(_ row: Row, read: (StoredWindowKeys) throws -> Row) throws -> Row {
        guard !ids.allSatisfy({ row.keys[$0] != nil }) else { return row }
        var rest = self
        rest.ids = Array(Set(ids).subtracting(row.keys.keys)).sorted()
        let more = try read(rest)
        var row = row
        row.keys.merge(more.keys) { first, _ in first }
        if more.generation != row.generation { row.generation = -1 }
        return row
    }

    /// The items' keys as `PackedItemKeys` records, made by the database.
    enum Packed {
        /// Items whose key, address and title `items_keys` holds: its predicate, word for word.
        static let short = "octet_length(i.key) + coalesce(octet_length(i.url), 0) + coalesce(octet_length(i.title), 0) < 2000"

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
