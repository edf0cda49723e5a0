import CatalogModel
import PostgresNIO

/// The statement a page that misses a server's page cache runs most (often its only one): the
/// keys of the items `ids`, each row with the catalog's generation when layout `layoutID` is
/// still the one stored, fresh, for `configuration` (else −1), and one row of NULL items when
/// none of `ids` is found, so the generation is always read. Prepared once per connection: at a
/// few dozen items, parsing and planning it cost more than running it.
struct StoredWindowKeys: PostgresPreparedStatement {
    typealias Row = (first: Int64, id: Int64?, key: ItemKey?)
    static let name = "catalog_stored_window_keys"
    static let sql = """
        SELECT coalesce((SELECT c.generation FROM catalog c JOIN layouts l ON l.configuration = $2 AND l.id = $3
                         AND l.generation = c.generation), -1), \(PostgresSnapshot.keyColumns)
        RIGHT JOIN (SELECT) AS always ON i.id = ANY($1)
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
        try PostgresSnapshot.itemKey(row)
    }
}
