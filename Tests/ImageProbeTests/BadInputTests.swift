import Foundation
import ImageProbe
import Testing

@Suite struct BadInputTests {
    func probe(_ bytes: [UInt8]) -> Result<ImageInfo?, ImageProbeError> {
        Result { () throws(ImageProbeError) in try ImageProbe.probe(bytes: bytes) }
    }

    @Test func whenFileIsEmpty_thenItIsEmpty() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("empty.jpg", [])
        #expect(throws: ImageProbeError.empty) { try ImageProbe.probe(path: path) }
        #expect(probe([]) == .failure(.empty))
    }

    @Test func whenJPEGIsCutInsideOrJustAfterSOIOrSOF_thenItIsTruncated() throws {
        let jpeg = try ImageBytes.fixture("baseline.jpg")
        let sof = try #require(ImageBytes.markerOffset(jpeg, 0xC0))
        let sofEnd = sof + 2 + Int(jpeg[sof + 2]) << 8 + Int(jpeg[sof + 3])
        for cut in [1, 2, 3, sof + 1, sof + 6, sofEnd - 1, sofEnd, sofEnd + 3] {
            #expect(probe(Array(jpeg.prefix(cut))) == .failure(.truncated(.jpeg)), "cut at \(cut)")
        }
    }

    /// Only the header is read: a file cut inside its entropy-coded data still has a size.
    @Test func whenJPEGIsCutInsideScanData_thenTheHeaderStillGivesItsSize() throws {
        let jpeg = try ImageBytes.fixture("baseline.jpg")
        let info = try probe(Array(jpeg.prefix(jpeg.count - 40))).get()
        #expect(info?.pixelWidth == 24)
    }

    @Test func whenPNGIsCutInsideOrJustAfterSignatureOrIHDR_thenItIsTruncated() throws {
        let png = try ImageBytes.fixture("rgb.png")
        for cut in [1, 4, 7, 8, 12, 20, 32, 33, 36] {
            #expect(probe(Array(png.prefix(cut))) == .failure(.truncated(.png)), "cut at \(cut)")
        }
    }

    @Test func whenEXIFBlockIsCut_thenTheFileIsTruncated() throws {
        let tiff = TIFFBuilder(bigEndian: true, orientation: 6, dateTimeOriginal: "2002:02:02 02:02:02", gapBeforeSubIFD: 20_000).bytes()
        let jpeg = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff)])
        #expect(probe(Array(jpeg.prefix(10_000))) == .failure(.truncated(.jpeg)))
        let png = ImageBytes.png(try ImageBytes.fixture("rgb.png"), insertingAfterIHDR: [ImageBytes.chunk("eXIf", tiff)])
        #expect(probe(Array(png.prefix(10_000))) == .failure(.truncated(.png)))
    }

    @Test func whenBytesAreRandomOrText_thenTheFormatIsUnsupported_notAnError() throws {
        var generator = SystemRandomNumberGenerator()
        let folder = try TemporaryFolder()
        for round in 0..<50 {
            var bytes = (0..<Int.random(in: 1...4096, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.starts(with: [0xFF, 0xD8]) || bytes.first == 0x89 { bytes[0] = 0 }
            let path = try folder.write("random-\(round).jpg", bytes)
            #expect(try ImageProbe.probe(path: path) == nil)
        }
        let text = try folder.write("notes.png", Array("This is a text file, not an image.\n".utf8))
        #expect(try ImageProbe.probe(path: text) == nil)
    }

    @Test func whenIHDRHasAWrongCRC_thenTheHeaderIsCorrupt() throws {
        let bytes = ImageBytes.png(try ImageBytes.fixture("rgb.png"), width: 30, height: 20, validCRC: false)
        guard case .failure(.corruptHeader(.png, let detail)) = probe(bytes) else {
            Issue.record("expected a corrupt PNG header, got \(probe(bytes))")
            return
        }
        #expect(detail.contains("CRC"))
    }

    @Test func whenTheFirstPNGChunkIsNotIHDR_thenTheHeaderIsCorrupt() throws {
        let png = try ImageBytes.fixture("rgb.png")
        let bytes = Array(png[0..<8]) + ImageBytes.chunk("tEXt", Array("Comment\0x".utf8)) + Array(png[8...])
        guard case .failure(.corruptHeader(.png, _)) = probe(bytes) else {
            Issue.record("expected a corrupt PNG header, got \(probe(bytes))")
            return
        }
    }

    /// libjpeg skips bytes that are not markers, hunting for the next one: no marker before
    /// the end is a header that never finished.
    @Test func whenJPEGHasNoMarkerAfterSOI_thenItIsTruncated() {
        let noMarker: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x12, 0x34] + [UInt8](repeating: 0x55, count: 200)
        #expect(probe(noMarker) == .failure(.truncated(.jpeg)))
    }

    @Test func whenJPEGHeaderIsMalformed_orHoldsOnlyTables_thenItIsCorrupt() throws {
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x01] + [UInt8](repeating: 0x55, count: 200) // DQT of length 1
        guard case .failure(.corruptHeader(.jpeg, _)) = probe(garbage) else {
            Issue.record("expected a corrupt JPEG header, got \(probe(garbage))")
            return
        }
        let jpeg = try ImageBytes.fixture("baseline.jpg")
        let dqt = try #require(ImageBytes.markerOffset(jpeg, 0xDB))
        let dqtEnd = dqt + 2 + Int(jpeg[dqt + 2]) << 8 + Int(jpeg[dqt + 3])
        let tablesOnly = [0xFF, 0xD8] + Array(jpeg[dqt..<dqtEnd]) + [0xFF, 0xD9]
        guard case .failure(.corruptHeader(.jpeg, let detail)) = probe(tablesOnly) else {
            Issue.record("expected a corrupt JPEG header, got \(probe(tablesOnly))")
            return
        }
        #expect(detail.contains("no image"))
    }

    @Test func whenJPEGDeclares65535Squared_thenItsSizeIsReported() throws {
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), height: 65535, width: 65535)
        let info = try #require(try probe(bytes).get())
        #expect(info.pixelWidth == 65535 && info.pixelHeight == 65535)
    }

    @Test func whenJPEGIs12Bit_thenItsSizeIsStillReported() throws {
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), sofPrecision: 12)
        let info = try #require(try probe(bytes).get())
        #expect(info.pixelWidth == 24 && info.pixelHeight == 16)
    }

    /// Lossless frames (SOF3, SOF11), which libjpeg-turbo 2 refuses before it reads their size:
    /// read from the frame header as for any SOF (they were "corrupt JPEG header: Unsupported
    /// JPEG process"). JPG (0xC8), a reserved marker, is no frame and stays an error.
    @Test(arguments: [UInt8(0xC3), 0xCB])
    func whenJPEGIsLossless_thenItsSizeIsStillReported(_ marker: UInt8) throws {
        var bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), height: 300, width: 200)
        let sof = try #require(ImageBytes.markerOffset(bytes, 0xC0))
        bytes[sof + 1] = marker
        let info = try #require(try probe(bytes).get())
        #expect(info.format == .jpeg && info.pixelWidth == 200 && info.pixelHeight == 300)
        // Cut inside that frame header: an error, as any.
        #expect(throws: (any Error).self) { try probe(Array(bytes.prefix(sof + 6))).get() }
        bytes[sof + 1] = 0xC8
        #expect(throws: (any Error).self) { try probe(bytes).get() }
    }

    /// A hierarchical JPEG: a DHP segment declares the whole image's size before the first
    /// frame (a differential SOF5 here, of a quarter of it), and libjpeg-turbo 2 stops at it as
    /// an unknown marker. The size is the DHP's.
    @Test func whenJPEGIsHierarchical_thenItsSizeIsTheDHPs() throws {
        var bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), height: 150, width: 100)
        let sof = try #require(ImageBytes.markerOffset(bytes, 0xC0))
        bytes[sof + 1] = 0xC5
        let dhp = ImageBytes.segment(0xDE, [8] + ImageBytes.be16(300) + ImageBytes.be16(200) + [1, 1, 0x11, 0])
        bytes.insert(contentsOf: dhp, at: sof)
        let info = try #require(try probe(bytes).get())
        #expect(info.format == .jpeg && info.pixelWidth == 200 && info.pixelHeight == 300)
    }

    @Test func whenJPEGHeightIsZero_thenDimensionsAreBad() throws {
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), height: 0)
        guard case .failure(.badDimensions(.jpeg, _)) = probe(bytes) else {
            Issue.record("expected bad dimensions, got \(probe(bytes))")
            return
        }
    }

    @Test func pngSidesAreCheckedAgainst2To24_notLibpngsDefaultLimit() throws {
        let png = try ImageBytes.fixture("rgb.png")
        let wide = try #require(try probe(ImageBytes.png(png, width: 2_000_000, height: 3)).get())
        #expect(wide.pixelWidth == 2_000_000 && wide.pixelHeight == 3)
        let square = try #require(try probe(ImageBytes.png(png, width: 65535, height: 65535)).get())
        #expect(square.pixelWidth == 65535)
        for (width, height) in [(0, 20), (30, 0), (1 << 24 + 1, 20), (30, 0x7FFF_FFFF)] {
            let bytes = ImageBytes.png(png, width: UInt32(width), height: UInt32(height))
            guard case .failure(.badDimensions(.png, _)) = probe(bytes) else {
                Issue.record("\(width)x\(height): expected bad dimensions, got \(probe(bytes))")
                continue
            }
        }
    }

    @Test func whenPathIsADirectoryOrAFIFO_thenItIsNotARegularFile_andNothingBlocks() throws {
        let folder = try TemporaryFolder()
        let directory = folder.url.appendingPathComponent("x.jpg").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(throws: ImageProbeError.notARegularFile(kind: "a directory")) { try ImageProbe.probe(path: directory) }
        let fifo = folder.url.appendingPathComponent("pipe.jpg").path
        try #require(mkfifo(fifo, 0o644) == 0)
        #expect(throws: ImageProbeError.notARegularFile(kind: "a FIFO")) { try ImageProbe.probe(path: fifo) }
    }

    @Test func whenPathIsMissing_thenItIsUnreadable() {
        #expect(throws: ImageProbeError.unreadable(reason: "No such file or directory", errno: ENOENT)) {
            try ImageProbe.probe(path: "/nonexistent/catalog-test/missing.jpg")
        }
    }

    @Test(.disabled(if: getuid() == 0, "root reads files whatever their permissions"))
    func whenFileHasNoReadPermission_thenItIsUnreadable() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("secret.jpg", try ImageBytes.fixture("baseline.jpg"))
        try #require(chmod(path, 0) == 0)
        #expect(throws: ImageProbeError.unreadable(reason: "Permission denied", errno: EACCES)) { try ImageProbe.probe(path: path) }
    }

    /// libjpeg and libpng print warnings and errors to stderr by default; ours must not.
    @Test func whenInputsAreBroken_thenNothingIsPrintedToStderr() throws {
        let jpeg = try ImageBytes.fixture("baseline.jpg")
        let png = try ImageBytes.fixture("rgb.png")
        var extraneous = jpeg
        let sof = try #require(ImageBytes.markerOffset(jpeg, 0xC0))
        extraneous.insert(contentsOf: [0x00, 0x11, 0x22], at: sof) // libjpeg warns: extraneous bytes before marker
        let inputs: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF, 0x00, 0x12], extraneous, ImageBytes.jpeg(jpeg, height: 0), ImageBytes.jpeg(jpeg, sofPrecision: 12),
            ImageBytes.png(png, width: 30, height: 20, validCRC: false), ImageBytes.png(png, width: 0, height: 20),
            ImageBytes.png(png, insertingAfterIHDR: [ImageBytes.chunk("tEXt", Array("a\0b".utf8), crc: 1)]),
            ImageBytes.png(png, insertingAfterIHDR: [ImageBytes.chunk("ABCD", [1, 2, 3])]), // unknown critical chunk
        ]
        let folder = try TemporaryFolder()
        let capture = folder.url.appendingPathComponent("stderr.txt").path
        let sink = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(sink >= 0)
        let saved = dup(STDERR_FILENO)
        dup2(sink, STDERR_FILENO)
        var outcomes: [Result<ImageInfo?, ImageProbeError>] = []
        for bytes in inputs { outcomes.append(probe(bytes)) }
        dup2(saved, STDERR_FILENO)
        close(saved)
        close(sink)
        #expect(try String(contentsOfFile: capture, encoding: .utf8) == "")
        #expect(outcomes.count == inputs.count)
        #expect(try outcomes[1].get()?.pixelWidth == 24, "extraneous bytes are a warning, not an error")
        guard case .failure(.corruptHeader(.png, _)) = outcomes[7] else {
            Issue.record("an unknown critical chunk makes the header corrupt, got \(outcomes[7])")
            return
        }
    }
}
