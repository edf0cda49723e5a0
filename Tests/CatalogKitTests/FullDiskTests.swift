import CatalogKit
import Foundation
import Testing

/// A catalog on a disk with no room left: a page is still made (its layout not stored), a write
/// fails saying the disk is full and what was kept, and once there is room again all works.
@Suite struct FullDiskTests {
    @Test(.enabled(if: ScannerTests.canMount, "mounting a tmpfs takes root"))
    func aFullDiskStillGivesPages_andAWriteSaysTheDiskIsFull() throws {
        let library = try Library()
        let disk = library.root.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=4m") == 0)
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let path = disk + "/catalog.sqlite"
        let catalog = try Catalog.open(at: path)
        _ = try catalog.importItems(PagerTests.importRows(2000))
        // Fill the disk to its last byte.
        let filler = disk + "/filler"
        #expect(FileManager.default.createFile(atPath: filler, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        let chunk = Data(count: 64 * 1024)
        var full = false
        while !full {
            do { try handle.write(contentsOf: chunk) } catch { full = true }
        }
        for size in [4096, 512, 1] {
            var room = true
            while room {
                do { try handle.write(contentsOf: Data(count: size)) } catch { room = false }
            }
        }
        try handle.close()

        var configuration = LayoutConfiguration(width: 414)
        configuration.columns = 3
        let page = try catalog.page(PageRequest(configuration: configuration, position: .offset(0), height: 900))
        #expect(page.items.count > 10 && page.source == .computed)
        #expect(try catalog.layouts().isEmpty, "no room to store it")
        let refused = Result { () throws(StoreError) in try catalog.importItems(PagerTests.importRows(4000, from: 2000)) }
        guard case .failure(let error) = refused, case .full(let at, let reason) = error else {
            Issue.record("an import onto a full disk: \(refused)")
            return
        }
        #expect(at == path)
        #expect(reason.hasPrefix("no room on the disk of the catalog, of its file of stored layouts (\(path).layouts), or of the folder "))
        #expect(error.description.hasSuffix("what was committed before is kept. Free some space and try again."))
        #expect(try catalog.items(order: .path).count == 2000, "what was committed before is kept")

        try FileManager.default.removeItem(atPath: filler)
        _ = try catalog.page(PageRequest(configuration: configuration, position: .offset(0), height: 900))
        #expect(try catalog.layouts().count == 1)
        #expect(try catalog.importItems(PagerTests.importRows(100, from: 2000)).added == 100)
    }
}
