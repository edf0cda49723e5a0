import CatalogKit
import Foundation
import Testing

/// Pages with sections (by year, month, folder), full-span items and pinned headers: computed,
/// stored and extended layouts against the layout engine fed from `catalog list`, with section
/// titles and counts, `catalog sections` and the command line.
@Suite struct SectionPageTests {
    /// Rows over several years, in folders `f0/` to `f6/` (import keys up to their last "/").
    static func rows(_ count: Int, from first: Int = 0, years: ClosedRange<Int> = 2019...2024, seed: UInt64 = 3) -> [ImportRow] {
        var state = seed
        func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
        return (first..<(first + count)).map { index in
            ImportRow(line: index + 2, key: String(format: "f%d/pin-%06d", next(0...6), index), width: next(200...4000), height: next(200...4000),
                      orientation: 1, date: String(format: "%04d-%02d-%02dT%02d:00:00", next(years), next(1...12), next(1...28), next(0...23)))
        }
    }

    /// The section key of a listed item, as the catalog defines it.
    static func key(_ item: ItemRow, _ grouping: LayoutConfiguration.Sections) -> UInt64 {
        let month = SectionGrouping.month(ofDate: item.date)
        switch grouping {
        case .none: return 0
        case .year: return month / 100
        case .month: return month
        case .folder: return SectionGrouping.folderKey(of: item.key)
        }
    }

    /// The same layout from the engine directly, on the listed items.
    static func engineLayout(_ listed: [ItemRow], _ c: LayoutConfiguration) throws -> PlacementTable {
        let items = listed.map { LayoutItem(id: $0.id, width: Double($0.width), height: Double($0.height)) }
        let starts = c.sections == .none ? (items.isEmpty ? [] : [SectionStart(offset: 0, key: 0)]) : SectionStart.runs(of: listed.map { key($0, c.sections) })
        let span: Sectioning.SpanHeight = switch c.spanHeight {
        case .auto: .aspectRatio(extra: c.extraHeight)
        case .fixed(let height): .fixed(height)
        }
        let sectioning = Sectioning(headerHeight: c.headerHeight, footerHeight: c.footerHeight, sectionSpacing: c.sectionSpacing,
                                    spanEvery: c.spanEvery, spanHeight: span)
        switch c.style {
        case .waterfall:
            return try Layout(items: items, sections: starts, sectioning: sectioning,
                              style: WaterfallLayout(width: c.width, columns: c.columns, columnSpacing: c.columnSpacing, rowSpacing: c.rowSpacing,
                                                     insets: c.insets, extraHeight: c.extraHeight, direction: c.direction)).table
        case .grid, .mixed:
            return try Layout(items: items, sections: starts, sectioning: sectioning,
                              style: GridLayout(width: c.width, columns: c.columns, columnSpacing: c.columnSpacing, rowSpacing: c.rowSpacing,
                                                insets: c.insets)).table
        case .list:
            return try Layout(items: items, sections: starts, sectioning: sectioning,
                              style: ListLayout(width: c.width, rowSpacing: c.rowSpacing, insets: c.insets, rowHeight: .aspectRatio(extra: c.extraHeight))).table
        case .justified, .carousel:
            throw LayoutError.invalidSections("these tests lay out column styles; rows and the carousel have their own")
        }
    }

    /// Pages of `query` at several offsets, pinned and not, equal the engine's placements, with
    /// the sections' titles and counts.
    static func expectPages(_ catalog: Catalog, _ query: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let configuration = try PageRequest(query: query).configuration
        let listed = try catalog.items(order: configuration.order)
        let table = try engineLayout(listed, configuration)
        let byID = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0) })
        let infos = table.sectionInfos
        for fraction in [0.0, 0.13, 0.5, 0.77, 0.999] {
            let offset = (fraction * table.contentHeight).rounded(.down)
            for pin in [false, true] {
                let page = try catalog.page(PageRequest(query: query + "&offset=\(offset)&height=900&pin-headers=\(pin)"))
                let want = table.items(in: offset..<(offset + 900), pinningHeaders: pin)
                #expect(page.items.count == want.count, "\(context) \(query) at \(offset) pin \(pin)", sourceLocation: sourceLocation)
                for (got, expected) in zip(page.items, want) {
                    let same = got.kind == expected.kind && got.index == expected.index && got.section == expected.section
                        && got.frame == expected.frame && got.id == (got.kind == .cell ? expected.id : Page.Item.sectionID(expected.id))
                    #expect(same, "\(context) \(query): \(got.kind) \(got.index) \(got.frame) vs \(expected.kind) \(expected.index) \(expected.frame)",
                            sourceLocation: sourceLocation)
                    guard got.kind != .cell else {
                        #expect(got.path == byID[got.id]?.key, sourceLocation: sourceLocation)
                        continue
                    }
                    let info = infos[got.section]
                    #expect(got.sectionCount == info.itemCount, sourceLocation: sourceLocation)
                    let first = listed[info.firstItem]
                    let title: Data = switch configuration.sections {
                    case .year: Data(String(first.date.prefix(4)).utf8)
                    case .month: Data(String(first.date.prefix(7)).utf8)
                    case .folder: SectionGrouping.folder(of: first.key)
                    case .none: Data()
                    }
                    #expect(got.sectionTitle == title, "\(context): section \(got.section)'s title", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test(arguments: Backend.allCases, [
        "width=375&sections=month", "width=375&sections=year&footer-height=20&header-height=40",
        "width=414&cols=3&sections=folder&sort=path", "width=414&cols=3&style=grid&sections=month&span-every=5&span-height=auto",
        "width=375&style=list&sections=year&span-every=3&span-height=120", "width=375&style=mixed",
        "width=1024&style=mixed&sections=month&sort=path", "width=600&cols=4&direction=rtl&sections=folder&section-spacing=0",
    ])
    func pagesEqualTheEngine_computedThenStored(_ backend: Backend, _ query: String) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.rows(2500))
        let first = try catalog.page(PageRequest(query: query))
        #expect(first.source == .computed)
        try Self.expectPages(catalog, query, "stored")
        #expect(try catalog.page(PageRequest(query: query + "&offset=100")).source == .stored)
    }

    /// Older items go at the end of date order: the stored layout is extended (its last
    /// section continued, new ones opened), and equals laying everything out again.
    @Test(arguments: Backend.allCases)
    func anAppendExtendsTheLastSection_orOpensNewOnes(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.rows(2000, years: 2020...2024))
        let query = "width=375&sections=month&footer-height=12"
        _ = try catalog.page(PageRequest(query: query))
        _ = try catalog.importItems(Self.rows(300, from: 2000, years: 2019...2019, seed: 9)) // older: the end of date order
        let extended = try catalog.page(PageRequest(query: query + "&offset=1000"))
        #expect(extended.source == .extended)
        try Self.expectPages(catalog, query, "extended")
        let stored = try catalog.layouts().first { $0.configuration.contains("sections=month") }
        #expect(stored?.itemCount == 2300)
        let again = try catalog.sections(try LayoutConfiguration(parameters: PageRequest.parameters(query: query)))
        #expect(again.sections.reduce(0) { $0 + $1.itemCount } == 2300)
        #expect(again.sections.last.map { String(decoding: $0.title, as: UTF8.self).hasPrefix("2019-") } == true, "the appended year's months")
    }

    @Test(arguments: Backend.allCases)
    func sectionsListEverySection_asTheLayoutPlacesThem(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.rows(1500))
        let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=375&sections=month&header-height=30"))
        let list = try catalog.sections(configuration)
        let listed = try catalog.items(order: .date)
        let table = try Self.engineLayout(listed, configuration)
        #expect(list.sections.count == table.sectionInfos.count && list.grouping == "month" && list.itemCount == 1500)
        for (section, info) in zip(list.sections, table.sectionInfos) {
            #expect(section.firstItem == info.firstItem && section.itemCount == info.itemCount && section.headerY == info.top
                    && section.headerHeight == 30 && section.itemBottom == info.itemBottom)
            #expect(section.title == Data(String(listed[info.firstItem].date.prefix(7)).utf8))
        }
        // Months newest first, each once.
        let titles = list.sections.map { String(decoding: $0.title, as: UTF8.self) }
        #expect(titles == titles.sorted(by: >) && Set(titles).count == titles.count)
        // Without sections: none.
        #expect(try catalog.sections(LayoutConfiguration(width: 375)).sections.isEmpty)
    }

    /// Folders whose names are not UTF-8 are titled by their bytes; JSON escapes them as paths are.
    @Test(arguments: Backend.allCases)
    func folderSectionsOfRealFiles_withNonUTF8Names(_ backend: Backend) throws {
        let library = try Library(backend)
        let folder = library.root.path + "/caf\u{E9}"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Library.fixture("baseline.jpg").write(to: URL(fileURLWithPath: folder + "/a.jpg"))
        // A folder named with the byte 0xFF, made through the C API (Foundation wants UTF-8).
        let raw = Array(library.root.path.utf8) + [0x2F, 0x78, 0xFF, 0x79]
        #expect(raw.withUnsafeBufferPointer { buffer in
            let bytes = Array(buffer) + [0]
            return bytes.withUnsafeBufferPointer { mkdir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), 0o755) } == 0
        })
        let file = raw + Array("/b.png".utf8) + [0]
        let png = try Library.fixture("rgb.png")
        let fd = file.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        _ = try library.scan()
        let catalog = try library.catalog()
        let list = try catalog.sections(try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=375&sections=folder&sort=path")))
        let titles = Set(list.sections.map(\.title))
        #expect(titles == [Data(folder.utf8), Data(raw)])
        #expect(SectionText.json(list).contains(#"x\udcffy""#))
        try Self.expectPages(catalog, "width=375&sections=folder&sort=path", "non-UTF-8")
    }

    /// A folder section's key is a 64-bit hash; as a header's id in JSON it went past 2^53, which
    /// JavaScript's numbers do not hold exactly (two headers could read as one id). It is cut
    /// to 53 bits, the same on both stores, and the folders' headers keep ids of their own.
    @Test(arguments: Backend.allCases)
    func folderHeadersHaveIDsJavaScriptHoldsExactly(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(Self.rows(300))
        let page = try catalog.page(try PageRequest(query: "width=375&sections=folder&sort=path&height=1000000"))
        let headers = page.items.filter { $0.kind == .header }
        #expect(headers.count == 7, "f0 to f6")
        #expect(headers.allSatisfy { (0..<(1 << 53)).contains($0.id) }, "\(headers.map(\.id))")
        #expect(Set(headers.map(\.id)).count == headers.count)
        #expect(page.items.filter { $0.kind == .footer }.allSatisfy { footer in headers.contains { $0.section == footer.section && $0.id == footer.id } })
        #expect(Page.Item.sectionID(202_405) == 202_405 && Page.Item.sectionID(-1) == (1 << 53) - 1)
    }

    @Test(arguments: Backend.allCases)
    func theCommandLinePrintsSectionsAndPagesWithKinds(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        _ = try library.catalog().importItems(Self.rows(400))
        let db = ["--db", library.catalogPath]
        let sections = try BuiltTool.run(["sections"] + db + ["--width", "375", "--sections", "year", "--json"])
        #expect(sections.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: sections.stdout) as? [String: Any])
        let list = try #require(object["sections"] as? [[String: Any]])
        #expect(list.map { $0["title"] as? String } == ["2024", "2023", "2022", "2021", "2020", "2019"])
        #expect(Set(list[0].keys) == ["index", "title", "firstItem", "itemCount", "headerY", "headerHeight", "itemBottom", "end"])
        let table = try BuiltTool.run(["sections"] + db + ["--width", "375", "--sections", "year"])
        #expect(String(decoding: table.stdout, as: UTF8.self).hasPrefix("6 sections of 400 items"))
        #expect(!table.stderr.contains("hint:"))
        let none = try BuiltTool.run(["sections"] + db + ["--width", "375"])
        #expect(none.status == 0 && String(decoding: none.stdout, as: UTF8.self).hasPrefix("0 sections of 400 items"))
        #expect(none.stderr.contains("hint: a layout has sections only with --sections"), "\(none.stderr)")
        let pinned = try BuiltTool.run(["page"] + db + ["--width", "375", "--pin-headers"])
        #expect(pinned.status == 0 && pinned.stderr.contains("hint: --pin-headers pins section headers, and this layout has none"))

        let page = try BuiltTool.run(["page"] + db + ["--width", "375", "--sections", "year", "--offset", "3000", "--pin-headers", "--json"])
        #expect(page.status == 0)
        let items = try #require((try JSONSerialization.jsonObject(with: page.stdout) as? [String: Any])?["items"] as? [[String: Any]])
        let header = try #require(items.first, "the pinned header comes first")
        #expect(header["kind"] as? String == "header" && (header["frame"] as? [String: Double])?["y"] == 3000)
        #expect(Set(header.keys) == ["kind", "section", "index", "id", "title", "count", "column", "frame"])
        #expect(items.dropFirst().allSatisfy { $0["kind"] as? String == "cell" || $0["kind"] as? String == "header" })
        let text = try BuiltTool.run(["page"] + db + ["--width", "375", "--sections", "year", "--height", "100"])
        let lines = String(decoding: text.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines[1] == "kind\tsection\tindex\tid\tcolumn\tx\ty\twidth\theight\tpath")
        #expect(lines[2].hasPrefix("header\t0\t0\t2024\t0\t8\t8\t359\t32\t2024 ("))

        for bad in [["--sections", "week"], ["--span-every", "-1"], ["--span-height", "0"], ["--header-height", "x"]] {
            let result = try BuiltTool.run(["page"] + db + ["--width", "375"] + bad)
            #expect(result.status == 2 && result.stderr.contains(bad[0]), "\(bad): \(result.stderr)")
        }
    }
}
