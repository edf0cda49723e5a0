@testable import CatalogKit
import Foundation
import Testing

/// Dates at the edges of the range the catalog keeps (years 1 to 9999).
@Suite struct DateEdgeTests {
    /// A file time past either end (tmpfs and some other filesystems keep them) is the nearest
    /// end, not 1970-01-01.
    @Test func fileTimesPastTheRangeAreHeldToItsEnds() {
        #expect(Timestamps.iso8601(secondsSince1970: 253_402_300_800) == "9999-12-31T23:59:59")
        #expect(Timestamps.iso8601(secondsSince1970: 1 << 40) == "9999-12-31T23:59:59")
        #expect(Timestamps.iso8601(secondsSince1970: -(1 << 40)) == "0001-01-01T00:00:00")
        #expect(Timestamps.iso8601(secondsSince1970: -62_135_683_200) == "0001-01-01T00:00:00")
        #expect(Timestamps.iso8601(secondsSince1970: -1) == "1969-12-31T23:59:59")
        #expect(Timestamps.iso8601(secondsSince1970: 1_700_000_000) == "2023-11-14T22:13:20")
    }

    /// Year sections of years before 1000 are titled with four digits, as their months are.
    @Test(arguments: Backend.allCases)
    func earlyYearsAreTitledWithFourDigits(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "a", width: 5, height: 5, orientation: 1, date: "0050-06-15T00:00:00"),
                                     ImportRow(line: 3, key: "b", width: 5, height: 5, orientation: 1, date: "2024-01-01T00:00:00")])
        for (grouping, expected) in [("year", ["2024", "0050"]), ("month", ["2024-01", "0050-06"])] {
            let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=375&sections=\(grouping)"))
            #expect(try catalog.sections(configuration).sections.map { String(decoding: $0.title, as: UTF8.self) } == expected, "\(backend)")
        }
    }
}
