import CatalogKit
import Testing

@Suite struct PathTextTests {
    @Test func validUTF8PrintsAsIs_andOtherBytesAreEscapedDistinctly() {
        let latin1: [UInt8] = Array("/p/caf".utf8) + [0xE9]
        let utf8: [UInt8] = Array("/p/café".utf8)
        let escapedLook: [UInt8] = Array(#"/p/caf\xe9"#.utf8)
        #expect(PathText.display(utf8) == "/p/café")
        #expect(PathText.display(latin1) == #"/p/caf\xe9"#)
        #expect(PathText.jsonString(latin1) == #""/p/caf\udce9""#)
        #expect(PathText.jsonString(utf8) == "\"/p/café\"")
        #expect(PathText.jsonString(escapedLook) == #""/p/caf\\xe9""#, "a literal backslash is escaped, so it cannot pass for a byte")
        #expect(PathText.jsonString(Array("a\"b\n\u{1}".utf8)) == #""a\"b\n\u0001""#)
        // Overlong encodings, surrogates and stray continuation bytes are bytes, not text.
        #expect(PathText.jsonString([0xC0, 0xAF]) == #""\udcc0\udcaf""#)
        #expect(PathText.jsonString([0xED, 0xA0, 0x80]) == #""\udced\udca0\udc80""#)
        #expect(PathText.jsonString([0x80]) == #""\udc80""#)
    }

    @Test func catalogLocationFollowsFlagThenEnvironment() {
        #expect(CatalogLocation.resolve(explicit: "/x.sqlite", environment: ["CATALOG_DB": "/y"]) == "/x.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["CATALOG_DB": "/y", "XDG_DATA_HOME": "/d"]) == "/y")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/catalog/catalog.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/catalog/catalog.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["HOME": "/h"]) == "/h/.local/share/catalog/catalog.sqlite")
    }
}
