import CatalogKit
import Testing

/// The one parser of layout and page parameters: bounds, messages, and the equal forms.
@Suite struct LayoutParameterTests {
    func parse(_ query: String) throws(LayoutParameterError) -> PageRequest { try PageRequest(query: query) }

    func error(_ query: String) -> LayoutParameterError? {
        do {
            _ = try parse(query)
            return nil
        } catch {
            return error
        }
    }

    @Test func defaultsAreThoseOfCatalogPage() throws {
        let request = try parse("width=375")
        var expected = LayoutConfiguration(width: 375)
        (expected.columns, expected.columnSpacing, expected.rowSpacing, expected.insets) = (2, 8, 8, Insets(all: 8))
        #expect(request.configuration == expected)
        #expect(request.position == .offset(0))
        #expect(request.height == 812)
    }

    @Test func everyParameterIsRead() throws {
        let request = try parse("width=1024&cols=5&column-spacing=12&row-spacing=4&inset=20,10,30,6&extra-height=40&direction=rtl&sort=path"
            + "&offset=4000&height=600&window=4096")
        let c = request.configuration
        #expect((c.width, c.columns, c.columnSpacing, c.rowSpacing, c.extraHeight, c.windowHeight) == (1024, 5, 12, 4, 40, 4096))
        #expect(c.insets == Insets(top: 20, left: 10, bottom: 30, right: 6))
        #expect((c.direction, c.order, c.style) == (.rightToLeft, .path, .waterfall))
        #expect((request.position, request.height) == (.offset(4000), 600))
        #expect(try parse("width=375&spacing=3").configuration.columnSpacing == 3)
        #expect(try parse("width=375&spacing=3&row-spacing=5").configuration.rowSpacing == 5)
        #expect(try parse("width=375&item=42&offset=10").position == .item(42), "item wins over offset")
        #expect(try parse("width=375&inset=%2012").configuration.insets == Insets(all: 12), "percent escapes and spaces")
    }

    /// Spaces and tabs around a number, an item id or a flag (as `+`, `%20` or `%09`) are not part
    /// of it; inside it, or any other blank, they are.
    @Test func blanksAroundAValueAreTrimmed_andOnlyThose() throws {
        let request = try parse("width=+375%09&cols=%20%092+&offset=++4000&item=%2042%20")
        #expect((request.configuration.width, request.configuration.columns, request.position) == (375, 2, .item(42)))
        #expect(try parse("width=375&span-every=1&span-height=+auto%09").configuration.spanHeight == .auto)
        #expect(try parse("width=375&pin-headers=%20true").pinHeaders)
        for bad in ["cols=2+2", "cols=%0A2", "cols=%C2%A02", "cols=%20%20", "cols=", "offset=1%20000", "cols=%EF%BC%92"] {
            let refused = try #require(error("width=375&" + bad), "\(bad)")
            #expect(refused.parameter == String(bad.prefix { $0 != "=" }), "\(bad)")
        }
        #expect(PageRequest.parameters(query: "a=1+2&b=%2B&c=x%3Dy&d&e=%zz").map { "\($0.name)=\($0.value)" }
                == ["a=1 2", "b=+", "c=x=y", "d=", "e=%zz"])
    }

    /// Each value just inside its range is taken; just outside, refused with a message that
    /// names the parameter, the value and the range.
    @Test(arguments: [
        ("width", "0.001", "0"), ("width", "1000000", "1000000.5"), ("cols", "1", "0"), ("cols", "6", "1001"),
        ("spacing", "0", "-1"), ("spacing", "100", "1e7"), ("extra-height", "1000000", "1000000.5"), ("column-spacing", "0", "-0.5"), ("row-spacing", "0", "nan"),
        ("extra-height", "0", "-2"), ("inset", "0,0,0,0", "1,2,3"), ("inset", "8", "a"), ("inset", "100", "-8"), ("inset", "0,0,1000000,0", "0,0,1000001,0"),
        ("window", "64", "63"), ("offset", "0", "-1"), ("offset", "1e12", "inf"), ("height", "0", "-5"),
        ("height", "1000000", "1000001"), ("item", "7", "seven"), ("style", "grid", "mosaic"), ("direction", "ltr", "up"),
        ("sort", "path", "size"), ("cell", "width", "ratio"), ("rect", "0,10,100,0", "0,10,-1,5"), ("rect", "-5,-5,10,10", "1,2,3"),
        ("rect", "1,2,3,4", "1,2,3,nan"),
    ])
    func boundsAreCheckedAndTheErrorNamesTheParameter(_ name: String, _ good: String, _ bad: String) throws {
        let base = name == "width" ? "cols=1&inset=0&" : "width=375&"
        _ = try parse(base + "\(name)=\(good)")
        let refused = try #require(error(base + "\(name)=\(bad)"))
        #expect(refused.parameter == name)
        #expect(refused.value == bad)
        #expect(refused.problem == .invalid)
        #expect(refused.description.hasPrefix("\(name) must be "))
        #expect(refused.description.contains("\"\(bad)\""))
    }

    @Test func columnsThatLeaveNoRoomNameColsAndTheLimit() throws {
        let tooMany = try #require(error("width=100&cols=12"))
        #expect(tooMany.parameter == "cols")
        #expect(tooMany.description == #"cols must be at most 11 for width 100 with these insets and spacings, got "12""#)
        _ = try parse("width=100&cols=11")
        let insets = try #require(error("width=100&inset=0,50,0,50"))
        #expect(insets.parameter == "inset")
    }

    @Test func unknownRepeatedAndMissingParametersAreRefused() {
        #expect(error("width=375&colums=3")?.problem == .unknown)
        #expect(error("width=375&colums=3")?.parameter == "colums")
        // A value with no name (`?=375`) is said to be that, not `" is not a parameter"`.
        #expect(error("width=375&=3")?.description.hasPrefix(#"a parameter without a name ("=3") is not one here; "#) == true)
        #expect(error("width=375&cols=2&cols=3")?.problem == .repeated)
        #expect(error("cols=3")?.problem == .missing)
        #expect(error("cols=3")?.parameter == "width")
        #expect(error("width=375&rect=0,0,10,10&offset=5")?.parameter == "rect", "a rectangle says where: no offset with it")
        #expect(error("width=375&rect=0,0,10,10&height=5")?.description
                == #"rect must be given without height: a rectangle says where the page is and how tall, got "0,0,10,10""#)
        #expect(throws: LayoutParameterError.self) { try LayoutConfiguration(parameters: [(name: "width", value: "375"), (name: "offset", value: "10")]) }
    }

    @Test func aListIsOneColumn_andIgnoredParametersTakeOneValue() throws {
        let list = try parse("width=375&style=list&cols=4&spacing=3&direction=rtl").configuration
        #expect(list.columns == 1)
        #expect(list == (try parse("width=375&style=list&row-spacing=3").configuration))
        let grid = try parse("width=375&style=grid&extra-height=20&direction=ltr").configuration
        #expect(grid == (try parse("width=375&style=grid").configuration))
        // Ignored, but checked: a mistyped value is still an error.
        for style in ["list", "justified", "carousel"] {
            for cols in ["abc", "-1", "0", "99999999999999999999"] {
                #expect(error("width=375&style=\(style)&cols=\(cols)")?.parameter == "cols", "\(style), cols \(cols)")
            }
        }
    }

    /// The canonical text a stored layout is found by parses back to the same configuration.
    @Test(arguments: ["width=375", "width=375&style=grid&cols=3", "width=414&style=list&extra-height=24&row-spacing=2",
                      "width=1280&cols=5&inset=1,2,3,4&direction=ltr&sort=path&extra-height=0.5&window=1000",
                      "width=333.25&cols=7&column-spacing=0&row-spacing=1.5"])
    func theCanonicalKeyRoundTrips(_ query: String) throws {
        let configuration = try parse(query).configuration
        let parsed = try LayoutConfiguration(key: configuration.key)
        #expect(parsed == configuration)
        #expect(parsed.key == configuration.key)
    }

    /// A carousel's key names no width (`catalog layouts` prints it so, and `--drop` takes it back).
    @Test func aCarouselsKeyParsesBackWithoutAWidth() throws {
        let configuration = try parse("width=600&style=carousel&item-height=250&inset=1,2,3,4").configuration
        #expect(!configuration.key.contains("width="))
        #expect(try LayoutConfiguration(key: configuration.key).key == configuration.key)
        #expect(try LayoutConfiguration(key: configuration.key + " width=375").key == configuration.key)
    }

    @Test func minusZeroIsZero_andOnlyDecimalNumbersAreTaken() throws {
        #expect(try parse("width=375&spacing=-0&inset=-0").configuration.key == (try parse("width=375&spacing=0&inset=0").configuration.key))
        #expect(error("width=0x10")?.parameter == "width")
        #expect(error("width=375&inset=0x8")?.parameter == "inset")
        #expect(try parse("width=1e3").configuration.width == 1000)
        // Double(_:) stops at a NUL: what follows it must not pass unread.
        #expect(error("width=375%00garbage")?.parameter == "width")
        #expect(error("width=375&offset=10%00abc")?.parameter == "offset")
        #expect(error("width=375&inset=8%00,1,1,1")?.parameter == "inset")
        #expect(error("width=inf")?.parameter == "width")
    }

    @Test func theStoredKeyFormatIsUnchanged() throws {
        // Layouts stored by earlier versions are found by this exact text.
        #expect(try parse("width=375&cols=3").configuration.key
            == "waterfall width=375.0 cols=3 column-spacing=8.0 row-spacing=8.0 extra-height=0.0 direction=shortest inset=8.0,8.0,8.0,8.0 sort=date window=2048.0")
        #expect(throws: LayoutParameterError.self) { try LayoutConfiguration(key: "waterfall width=375.0 bogus") }
        #expect(throws: LayoutParameterError.self) { try LayoutConfiguration(key: "") }
    }
}
