import CatalogKit
import Foundation
import Testing

/// The layout options as a user types them: refused with the option's name and range, mistyped
/// ones named with the nearest, and reduced to the configuration a query string gives.
@Suite struct CommandLineOptionTests: RunsTheTool {
    /// A negative number is a value, not an option: it is refused with the option's range, in
    /// every command, instead of "Missing value". An option where a value belongs is a missing value.
    @Test(arguments: [(["page", "--width", "-3", "--cols", "2"], "--width must be a number of points greater than 0"),
                      (["page", "--width", "375", "--cols", "-2"], "--cols must be a whole number from 1 to 1000, got \"-2\""),
                      (["layout", "--width", "375", "--inset", "-1,2,3,4"], "--inset must be one number, or four"),
                      (["page", "--width", "375", "--height", "-5"], "--height must be a number of points from 0"),
                      (["list", "--limit", "-3"], "--limit must be a whole number, 0 or more, got \"-3\""),
                      (["changes", "--since", "-1"], "--since must be a generation"),
                      (["thumbnails", "--jobs", "-1"], "--jobs must be at least 1, got \"-1\""),
                      (["serve", "--port", "-1"], "--port must be 0 to 65535, got \"-1\""),
                      (["layouts", "--budget", "-5M"], "--budget: \"-5M\" is not a size"),
                      (["page", "--width", "375", "--cols", "--json"], "Missing value for '--cols' (the next argument, --json, is an option)")])
    func aNegativeNumberIsRefusedWithTheOptionsRange(_ arguments: [String], _ message: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run([arguments[0], "--db", library.catalogPath] + arguments.dropFirst())
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// A mistyped required option is named, with the nearest option: the parser said only that
    /// the option it stood for was missing.
    @Test(arguments: [["page", "--widht", "375"], ["snap", "--widht", "600", "--proposed", "3"], ["layout", "--widht=375"]])
    func aMistypedRequiredOptionIsNamed(_ arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run([arguments[0], "--db", library.catalogPath] + arguments.dropFirst())
        #expect(result.status == 2)
        // With the usage and the pointer to --help, as the parser's own refusals have.
        #expect(result.stderr.hasPrefix("Error: Unknown option '--widht'. Did you mean '--width'?\n")
                && result.stderr.contains("\nUsage: catalog \(arguments[0]) ") && !result.stderr.contains("Missing")
                && result.stderr.hasSuffix("See 'catalog \(arguments[0]) --help' for more information.\n"), "\(result.stderr)")
    }

    /// Each bounded option's --help states the range its refusal states: serve's said none (the
    /// README promises "--help lists each option's default and range"), snap's velocity no unit.
    @Test(arguments: [(["serve", "--port", "65536"], "0 to 65535"),
                      (["serve", "--page-cache-mb", "0"], "1 to 1048576"),
                      (["serve", "--max-header-bytes", "100"], "1024"),
                      (["serve", "--request-timeout", "0"], "1 to 86400"),
                      (["serve", "--idle-timeout", "86401"], "1 to 86400"),
                      (["serve", "--write-timeout", "0"], "1 to 86400"),
                      (["serve", "--session-days", "3651"], "3650"),
                      (["serve", "--max-connections", "0"], "at least 1"),
                      (["thumbnails", "--quality", "0"], "1 to 100"),
                      (["snap", "--width", "375", "--proposed", "0", "--velocity", "2e9"], "points a millisecond")])
    func aBoundedOptionsHelpStatesTheRangeItsRefusalStates(_ arguments: [String], _ range: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let refused = try run([arguments[0], "--db", library.catalogPath] + arguments.dropFirst())
        #expect(refused.status == 2 && refused.stderr.contains(range), "\(refused.stderr)")
        // The option's own help entry, up to the next option (the parser wraps its lines).
        let help = try run([arguments[0], "--help"]).stdout
        let option = arguments.last(where: { $0.hasPrefix("--") })!
        let entry = try #require(help.range(of: "  \(option) ").map { help[$0.upperBound...] })
        let text = entry.components(separatedBy: "\n  --").first ?? ""
        #expect(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(range), "\(option): \(text)")
    }

    /// A configuration --drop cannot read is a usage error of `catalog layouts`, with its usage.
    @Test func aBadConfigurationToDropShowsTheUsageOfLayouts() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run(["layouts", "--db", library.catalogPath, "--drop", "bogus=1"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: --drop: style must be one of"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: catalog layouts "), "\(result.stderr)")
    }

    /// `catalog layout` with options stores the configuration a query string parses to.
    @Test func commandLineOptionsAndAQueryStringGiveTheSameConfiguration() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(20))
        let result = try run(["layout", "--db", library.catalogPath, "--width", "414", "--cols", "3", "--inset", "4,6,8,10",
                              "--row-spacing", "2", "--direction", "ltr", "--sort", "path", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let key = try #require(object["configuration"] as? String)
        let query = try PageRequest(query: "width=414&cols=3&inset=4,6,8,10&row-spacing=2&direction=ltr&sort=path").configuration
        #expect(try LayoutConfiguration(key: key) == query)
        #expect(key == query.key)
    }

    @Test(arguments: [(["--width", "375", "--cols", "1001"], "--cols must be a whole number from 1 to 1000, got \"1001\""),
                      (["--width", "100", "--cols", "12"], "--cols must be at most 11 for width 100"),
                      (["--width", "375", "--inset", "1,2,3"], "--inset must be one number, or four"),
                      (["--width", "375", "--height", "2e6"], "--height must be a number of points from 0 to 1000000"),
                      (["--width", "375", "--rect", "0,0,10"], "--rect must be four numbers x,y,width,height")])
    func badOptionsNameTheOptionAndTheRange(_ arguments: [String], _ message: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run(["page", "--db", library.catalogPath] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(message)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
