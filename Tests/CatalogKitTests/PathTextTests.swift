import CatalogKit
import Foundation
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
        #expect(PathText.display(escapedLook) == #"/p/caf\\xe9"#, "on a terminal too")
        // A tab or a line break in a name would split a tab-separated line: escaped, as DEL is.
        #expect(PathText.display(Array("a\tb\nc\rd\u{1}e\u{7F}".utf8)) == #"a\tb\nc\rd\x01e\x7f"#)
        #expect(PathText.jsonString(Array("a\"b\n\u{1}".utf8)) == #""a\"b\n\u0001""#)
        // So would C1 controls (NEL, CSI) and the line separators; bidirectional overrides turn
        // the text around them: escaped too, in both.
        #expect(PathText.display(Array("a\u{85}b\u{9B}2J\u{2028}c\u{202E}d\u{2066}".utf8)) == #"a\xc2\x85b\xc2\x9b2J\xe2\x80\xa8c\xe2\x80\xaed\xe2\x81\xa6"#)
        #expect(PathText.jsonString(Array("a\u{85}\u{2029}\u{202A}".utf8)) == #""a\u0085\u2029\u202a""#)
        #expect(PathText.display(Array("é\u{A0}\u{2027}\u{202F}\u{2065}".utf8)) == "é\u{A0}\u{2027}\u{202F}\u{2065}", "their neighbours print")
        // Overlong encodings, surrogates and stray continuation bytes are bytes, not text.
        #expect(PathText.jsonString([0xC0, 0xAF]) == #""\udcc0\udcaf""#)
        #expect(PathText.jsonString([0xED, 0xA0, 0x80]) == #""\udced\udca0\udc80""#)
        #expect(PathText.jsonString([0x80]) == #""\udc80""#)
    }

    /// Against a reference that decodes one scalar at a time through Swift's own UTF-8 decoder:
    /// random byte strings drawn mostly
    /// from the bytes that matter (quotes, backslashes, controls, lead and continuation bytes).
    @Test func displayAndJSON_equalAScalarByScalarReference_onRandomBytes() {
        var generator = SplitMix(seed: 16)
        let interesting: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x22, 0x2F, 0x5C, 0x61, 0x7F, 0x80, 0x81, 0x8F, 0x9F, 0xA0, 0xA6, 0xA8, 0xAE, 0xBF, 0xE2,
                                    0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        var samples: [[UInt8]] = [[], Array("/p/café/日本/🙂.jpg".utf8)]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...12, using: &generator)
            samples.append((0..<count).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            })
        }
        for bytes in samples {
            #expect(PathText.display(bytes) == PathTextReference.display(bytes), "\(bytes)")
            #expect(PathText.jsonString(bytes) == PathTextReference.jsonString(bytes), "\(bytes)")
            #expect(PathText.jsonString(Data(bytes)[...]) == PathTextReference.jsonString(bytes), "a Data slice: \(bytes)")
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(PathText.jsonString(text) == PathTextReference.jsonString(Array(text.utf8)), "\(bytes)")
        }
    }

    /// A word pasted into a shell stays one word, as it was: a PostgreSQL URL's `&` put the
    /// command in the background (`serve`'s hint to make a token), a space split a path.
    @Test func shellWordsStayOneWordAsTheyWere() {
        #expect(PathText.shellWord("/home/me/.config/catalog/c.tokens") == "/home/me/.config/catalog/c.tokens")
        #expect(PathText.shellWord("postgres://me@/p?host=/run/pg&port=5433") == "'postgres://me@/p?host=/run/pg&port=5433'")
        #expect(PathText.shellWord("My Photos/it's.tokens") == #"'My Photos/it'\''s.tokens'"#)
        #expect(PathText.shellWord("") == "''")
        #expect(PathText.shellWord("a$b`c") == "'a$b`c'")
    }

    @Test func catalogLocationFollowsFlagThenEnvironment() {
        #expect(CatalogLocation.resolve(explicit: "/x.sqlite", environment: ["CATALOG_DB": "/y"]) == "/x.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["CATALOG_DB": "/y", "XDG_DATA_HOME": "/d"]) == "/y")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/catalog/catalog.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/catalog/catalog.sqlite")
        #expect(CatalogLocation.resolve(explicit: nil, environment: ["HOME": "/h"]) == "/h/.local/share/catalog/catalog.sqlite")
        // No $HOME (or an empty one): the password database's home folder, not the root of the disk.
        let home = getpwuid(getuid()).flatMap { $0.pointee.pw_dir }.map { String(cString: $0) }
        for environment in [[:], ["HOME": ""]] {
            #expect(CatalogLocation.resolve(explicit: nil, environment: environment) == (home ?? "") + "/.local/share/catalog/catalog.sqlite")
        }
    }
}

/// A reference written apart from PathText: Swift's own UTF-8 decoder says whether a valid scalar
/// starts at a byte; each scalar is escaped on its own, every other byte as hex.
enum PathTextReference {
    static func display(_ bytes: [UInt8]) -> String { decode(bytes, json: false) { "\\x" + hex($0) } }

    static func jsonString(_ bytes: [UInt8]) -> String { "\"" + decode(bytes, json: true) { "\\udc" + hex($0) } + "\"" }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func decode(_ bytes: [UInt8], json: Bool, invalid: (UInt8) -> String) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            // The scalar that starts here, if the bytes from here are valid UTF-8.
            var scalar: Unicode.Scalar?
            var length = 0
            var decoder = UTF8()
            var iterator = bytes[index...].makeIterator()
            if case .scalarValue(let value) = decoder.decode(&iterator) {
                scalar = value
                length = String(value).utf8.count
            }
            guard let scalar else {
                out += invalid(bytes[index])
                index += 1
                continue
            }
            switch scalar {
            case "\"" where json: out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += (json ? "\\u00" : "\\x") + hex(UInt8(scalar.value))
            case "\u{7F}" where !json: out += "\\x7f"
            case "\u{80}"..."\u{9F}", "\u{2028}"..."\u{202E}", "\u{2066}"..."\u{2069}":
                out += json ? "\\u" + String(format: "%04x", scalar.value) : String(scalar).utf8.map { "\\x" + hex($0) }.joined()
            default: out.unicodeScalars.append(scalar)
            }
            index += length
        }
        return out
    }
}
