/// Where the catalog lives: `--db PATH`, else `$CATALOG_DB`, else
/// `$XDG_DATA_HOME/catalog/catalog.sqlite`, else `~/.local/share/catalog/catalog.sqlite`.
public enum CatalogLocation {
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["CATALOG_DB"], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/catalog/catalog.sqlite" }
        return (environment["HOME"] ?? "") + "/.local/share/catalog/catalog.sqlite"
    }
}
