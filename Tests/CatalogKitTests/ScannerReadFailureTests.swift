import CatalogKit
import CatalogModel
import Foundation
import CatalogStore
import GRDB
import ImageProbe
import Testing

/// Files a scan cannot read this time: unreadable (their permissions, an I/O error), empty, or
/// cut short inside their header, as a photo being copied over is. A known image keeps its
/// item until a scan reads it again.
@Suite struct ScannerReadFailureTests {
    /// The reasons that mark a file as unreadable (read again by every scan, an image keeping its
    /// item meanwhile) are the scanner's own and the probe's, which is written in ImageProbe.
    @Test func theProbesUnreadableReasonIsOneTheScanReadsAgain() {
        #expect(FileOutcome.isUnreadable(ImageProbeError.unreadable(reason: "Input/output error", errno: EIO).description))
        for outcome in [FileOutcome.cannotOpen("Permission denied"), .cannotStat("Input/output error")] {
            guard case .failed(let reason) = outcome else { Issue.record("\(outcome)"); continue }
            #expect(FileOutcome.isUnreadable(reason), "\(reason)")
        }
        for other in [ImageProbeError.empty, .truncated(.jpeg), .notARegularFile(kind: "a FIFO")] {
            #expect(!FileOutcome.isUnreadable(other.description), "\(other)")
        }
        // A known image cut short or emptied keeps its item too (a photo being copied over).
        #expect(FileOutcome.keepsKnownItem(ImageProbeError.truncated(.png).description))
        #expect(FileOutcome.keepsKnownItem(ImageProbeError.empty.description))
        #expect(!FileOutcome.keepsKnownItem(ImageProbeError.corruptHeader(.png, detail: "bad").description))
        #expect(!FileOutcome.isUnreadable(FileOutcome.importedKeyReason))
    }

    /// A known photo caught while it is written over or in place (it ends inside its header, or
    /// is still empty: a copy over it or a shell's `>` empties it first) keeps its item, its id
    /// and its facts, as one unreadable this time does; a scan that reads it whole again updates
    /// it. It was removed, and came back as a new item with a new id.
    @Test(arguments: Backend.allCases, [100, 0])
    func aPhotoCutShortWhileRewrittenKeepsItsItem(_ backend: Backend, _ bytes: Int) throws {
        let library = try Library(backend)
        let whole = try Library.fixture("baseline.jpg")
        let photo = try library.write("a.jpg", whole)
        _ = try library.scan()
        let before = try #require(try library.items()[photo])
        var status = stat()
        try #require(stat(photo, &status) == 0)
        try library.write("a.jpg", whole.prefix(bytes))
        let cut = try library.scan()
        let reason = bytes == 0 ? "the file is empty" : "truncated JPEG: the file ends inside its header"
        #expect((cut.failed, cut.removed) == (1, 0), "\(cut)")
        #expect(cut.problems.contains { $0.hasPrefix("\(photo): \(reason)") && $0.hasSuffix("its item is kept as it was, and the next scan reads it again") },
                "\(cut.problems)")
        #expect(try library.items()[photo].map { [$0.id, Int64($0.width), Int64($0.height)] } == [before.id, Int64(before.width), Int64(before.height)])
        #expect(try library.catalog().fileErrors().map(\.reason) == [reason + FileOutcome.keptItemNote])
        // Written whole again, at the time it had (a copy that keeps it): read again, as its row failed.
        try library.write("a.jpg", whole)
        var times = [status.st_atim, status.st_mtim]
        try #require(utimensat(AT_FDCWD, photo, &times, 0) == 0)
        let again = try library.scan()
        #expect((again.failed, again.removed, again.added) == (0, 0, 0), "\(again)")
        #expect(try library.items()[photo]?.id == before.id)
        #expect(try library.catalog().fileErrors().isEmpty)
    }
}
