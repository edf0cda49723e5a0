import ImageProbe
import Testing

@Suite struct EXIFTests {
    static let orientations = (1...8).flatMap { value in [true, false].map { (value, $0) } }

    @Test(arguments: orientations)
    func whenJPEGCarriesOrientation_thenDisplaySizeFollowsIt(_ value: Int, bigEndian: Bool) throws {
        let tiff = TIFFBuilder(bigEndian: bigEndian, orientation: value, dateTimeOriginal: "2021:07:04 09:15:30")
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff.bytes())])
        let info = try #require(try ImageProbe.probe(bytes: bytes))
        #expect(info.orientation.rawValue == value)
        #expect(info.pixelWidth == 24 && info.pixelHeight == 16)
        let swapped = value >= 5
        #expect(info.displayWidth == (swapped ? 16 : 24))
        #expect(info.displayHeight == (swapped ? 24 : 16))
        #expect(info.captureDate?.description == "2021-07-04T09:15:30")
    }

    @Test(arguments: [true, false])
    func whenOrientationIsALong_thenItIsStillRead(bigEndian: Bool) throws {
        let tiff = TIFFBuilder(bigEndian: bigEndian, orientation: 6, orientationType: 4)
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff.bytes())])
        #expect(try ImageProbe.probe(bytes: bytes)?.orientation == .right)
    }

    /// The pointer to the Exif sub-IFD typed IFD (13) rather than LONG, as some writers type it
    /// (exiftool reads through it): its DateTimeOriginal is read.
    @Test(arguments: [true, false])
    func whenTheExifPointerIsTypedIFD_thenTheOriginalDateIsRead(bigEndian: Bool) throws {
        let tiff = TIFFBuilder(bigEndian: bigEndian, exifPointerType: 13, dateTimeOriginal: "2018:01:01 00:00:00")
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff.bytes())])
        #expect(try ImageProbe.probe(bytes: bytes)?.captureDate?.description == "2018-01-01T00:00:00")
    }

    @Test func whenBothDatesArePresent_thenOriginalWins_elseDateTimeIsUsed() throws {
        let base = try ImageBytes.fixture("baseline.jpg")
        func date(_ tiff: TIFFBuilder) throws -> String? {
            try ImageProbe.probe(bytes: ImageBytes.jpeg(base, inserting: [ImageBytes.exifSegment(tiff.bytes())]))?.captureDate?.description
        }
        #expect(try date(TIFFBuilder(bigEndian: true, dateTime: "2020:01:02 03:04:05", dateTimeOriginal: "2019:12:31 23:59:58")) == "2019-12-31T23:59:58")
        #expect(try date(TIFFBuilder(bigEndian: false, dateTime: "2020:01:02 03:04:05")) == "2020-01-02T03:04:05")
        #expect(try date(TIFFBuilder(bigEndian: false, dateTime: "0000:00:00 00:00:00")) == nil)
        #expect(try date(TIFFBuilder(bigEndian: true, dateTime: "2020:13:02 03:04:05")) == nil)
        #expect(try date(TIFFBuilder(bigEndian: true, dateTime: "not a date at all!!")) == nil)
    }

    /// A DateTimeOriginal that is a placeholder or an impossible date gives way to
    /// DateTimeDigitized, then to DateTime (it gave none, and the file's mtime was used).
    @Test func anInvalidOriginalDateGivesWayToTheNextValidOne() throws {
        let base = try ImageBytes.fixture("baseline.jpg")
        func date(_ tiff: TIFFBuilder) throws -> String? {
            try ImageProbe.probe(bytes: ImageBytes.jpeg(base, inserting: [ImageBytes.exifSegment(tiff.bytes())]))?.captureDate?.description
        }
        for placeholder in ["0000:00:00 00:00:00", "2024:13:45 25:61:61", "2023:02:29 12:00:00"] {
            #expect(try date(TIFFBuilder(bigEndian: true, dateTime: "2020:01:02 03:04:05", dateTimeOriginal: placeholder)) == "2020-01-02T03:04:05",
                    "\(placeholder)")
            #expect(try date(TIFFBuilder(bigEndian: false, dateTime: "2020:01:02 03:04:05", dateTimeOriginal: placeholder,
                                         subIFDTags: [(0x9004, "2019:05:06 07:08:09")])) == "2019-05-06T07:08:09", "\(placeholder)")
        }
        #expect(try date(TIFFBuilder(bigEndian: true, subIFDTags: [(0x9004, "2022:02:02 22:22:22")])) == "2022-02-02T22:22:22",
                "DateTimeDigitized alone")
    }

    /// A date with its OffsetTime* tag is stored in UTC, as file times and imported dates are;
    /// one without stays as the camera's clock read.
    @Test(arguments: [true, false])
    func aDateWithItsZoneOffsetIsStoredInUTC(bigEndian: Bool) throws {
        let base = try ImageBytes.fixture("baseline.jpg")
        func date(_ tiff: TIFFBuilder) throws -> String? {
            try ImageProbe.probe(bytes: ImageBytes.jpeg(base, inserting: [ImageBytes.exifSegment(tiff.bytes())]))?.captureDate?.description
        }
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2024:01:01 08:30:00", subIFDTags: [(0x9011, "+09:00")]))
                == "2023-12-31T23:30:00")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2024:01:31 18:00:00", subIFDTags: [(0x9011, "-08:00")]))
                == "2024-02-01T02:00:00")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2024:01:31 18:00:00", subIFDTags: [(0x9010, "-08:00")]))
                == "2024-01-31T18:00:00", "OffsetTime is DateTime's, not the original's")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTime: "2024:01:31 18:00:00", subIFDTags: [(0x9010, "+05:30")]))
                == "2024-01-31T12:30:00")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2024:06:01 12:00:00", subIFDTags: [(0x9011, "   :  ")]))
                == "2024-06-01T12:00:00", "a blank offset: no zone")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2024:06:01 12:00:00", subIFDTags: [(0x9011, "+99:00")]))
                == "2024-06-01T12:00:00", "an impossible offset: no zone")
        // A leap second its offset puts at 22:59:60 UTC, which UTC never had: the next date.
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTime: "2017:01:01 00:00:05",
                                     dateTimeOriginal: "2016:12:31 23:59:60", subIFDTags: [(0x9011, "+01:00")]))
                == "2017-01-01T00:00:05")
        #expect(try date(TIFFBuilder(bigEndian: bigEndian, dateTimeOriginal: "2016:12:31 23:59:60", subIFDTags: [(0x9011, "+00:00")]))
                == "2016-12-31T23:59:60", "a leap second UTC had")
    }

    @Test func whenOrientationIsOutOfRange_thenItIsUp() throws {
        for value in [0, 9, 255] {
            let tiff = TIFFBuilder(bigEndian: true, orientation: value)
            let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff.bytes())])
            #expect(try ImageProbe.probe(bytes: bytes)?.orientation == .up)
        }
    }

    /// A 60 KiB APP1 whose DateTimeOriginal sits past a thumbnail-sized gap: the parser asks
    /// for more of the block, and the rest of the file is still found.
    @Test(arguments: [true, false])
    func whenAPP1Is60KiB_thenFarValuesAreReadAndTheRestIsSkipped(bigEndian: Bool) throws {
        let tiff = TIFFBuilder(bigEndian: bigEndian, orientation: 8, dateTime: "2001:01:01 00:00:00",
                               dateTimeOriginal: "2002:02:02 02:02:02", gapBeforeSubIFD: 60 * 1024)
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff.bytes())])
        #expect(bytes.count > 60 * 1024)
        let info = try #require(try ImageProbe.probe(bytes: bytes))
        #expect(info.orientation == .left)
        #expect(info.displayWidth == 16 && info.displayHeight == 24)
        #expect(info.captureDate?.description == "2002-02-02T02:02:02")
    }

    @Test func whenAPP1HasAThumbnailAtItsEnd_thenTheThumbnailIsNotRead() throws {
        var tiff = TIFFBuilder(bigEndian: true, orientation: 6).bytes()
        tiff += [UInt8](repeating: 0xFF, count: 60 * 1024) // thumbnail bytes, unreferenced by IFD0
        let folder = try TemporaryFolder()
        let path = try folder.write("thumb.jpg", ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [ImageBytes.exifSegment(tiff)]))
        let info = try #require(try ImageProbe.probe(path: path))
        #expect(info.orientation == .right)
        #expect(info.bytesRead < 40 * 1024, "read \(info.bytesRead) of \(info.byteSize) bytes")
    }

    @Test func whenICCProfileIs1MiB_thenItIsSkippedNotRead() throws {
        let segments = ImageBytes.iccSegments(size: 1 << 20) + [ImageBytes.exifSegment(TIFFBuilder(bigEndian: false, orientation: 3).bytes())]
        let folder = try TemporaryFolder()
        let path = try folder.write("icc.jpg", ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: segments))
        let info = try #require(try ImageProbe.probe(path: path))
        #expect(info.pixelWidth == 24 && info.pixelHeight == 16)
        #expect(info.orientation == .down)
        #expect(info.byteSize > 1 << 20)
        #expect(info.bytesRead < 64 * 1024, "read \(info.bytesRead) of \(info.byteSize) bytes")
    }

    @Test func whenXMPPrecedesEXIF_andASecondEXIFFollows_thenTheFirstEXIFBlockWins() throws {
        let xmp = ImageBytes.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\u{0}<x:xmpmeta/>".utf8))
        let first = ImageBytes.exifSegment(TIFFBuilder(bigEndian: true, orientation: 6).bytes())
        let second = ImageBytes.exifSegment(TIFFBuilder(bigEndian: true, orientation: 3).bytes())
        let bytes = ImageBytes.jpeg(try ImageBytes.fixture("baseline.jpg"), inserting: [xmp, first, second])
        #expect(try ImageProbe.probe(bytes: bytes)?.orientation == .right)
    }

    @Test func whenEXIFIsBroken_thenTheImageIsStillRead() throws {
        let base = try ImageBytes.fixture("baseline.jpg")
        var offsetPastEnd = TIFFBuilder(bigEndian: true, orientation: 6, dateTimeOriginal: "2002:02:02 02:02:02").bytes()
        offsetPastEnd.replaceSubrange(4..<8, with: ImageBytes.be32(0x7FFF_FFF0)) // IFD0 far outside the block
        var hugeCount = TIFFBuilder(bigEndian: false, orientation: 6).bytes()
        hugeCount.replaceSubrange(8..<10, with: [0xFF, 0xFF]) // 65535 entries claimed
        let broken: [[UInt8]] = [
            [], Array("MM".utf8), Array("XX\0*\0\0\0\u{8}".utf8), offsetPastEnd, hugeCount,
            [UInt8](repeating: 0, count: 300),
        ]
        for tiff in broken {
            let info = try #require(try ImageProbe.probe(bytes: ImageBytes.jpeg(base, inserting: [ImageBytes.exifSegment(tiff)])))
            #expect(info.pixelWidth == 24 && info.pixelHeight == 16)
            // hugeCount still has a valid first entry, orientation 6; the entries past the block are not read.
            #expect(info.orientation == (tiff == hugeCount ? ImageOrientation.right : .up))
            #expect(info.captureDate == nil)
        }
    }

    @Test(arguments: [true, false])
    func whenPNGHasEXIfBeforeImageData_thenOrientationApplies(bigEndian: Bool) throws {
        let tiff = TIFFBuilder(bigEndian: bigEndian, orientation: 6, dateTimeOriginal: "2023:03:03 03:03:03").bytes()
        let bytes = ImageBytes.png(try ImageBytes.fixture("rgb.png"), insertingAfterIHDR: [ImageBytes.chunk("eXIf", tiff)])
        let info = try #require(try ImageProbe.probe(bytes: bytes))
        #expect(info.orientation == .right)
        #expect(info.displayWidth == 20 && info.displayHeight == 30)
        #expect(info.captureDate?.description == "2023-03-03T03:03:03")
    }

    @Test func whenPNGHasEXIfAfterImageData_thenItIsIgnored() throws {
        let tiff = TIFFBuilder(bigEndian: true, orientation: 6).bytes()
        let bytes = ImageBytes.png(try ImageBytes.fixture("rgb.png"), insertingBeforeIEND: [ImageBytes.chunk("eXIf", tiff)])
        #expect(try ImageProbe.probe(bytes: bytes)?.orientation == .up)
    }

    @Test func whenPNGHasBigTextAndBadAncillaryCRC_thenTheyAreSkipped() throws {
        let text = ImageBytes.chunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + [UInt8](repeating: 0x41, count: 1 << 20))
        let badCRC = ImageBytes.chunk("tEXt", Array("Comment\0hello".utf8), crc: 0xDEAD_BEEF)
        let folder = try TemporaryFolder()
        let path = try folder.write("big-text.png", ImageBytes.png(try ImageBytes.fixture("rgb.png"), insertingAfterIHDR: [text, badCRC]))
        let info = try #require(try ImageProbe.probe(path: path))
        #expect(info.pixelWidth == 30 && info.pixelHeight == 20)
        #expect(info.bytesRead < 64 * 1024, "read \(info.bytesRead) of \(info.byteSize) bytes")
    }
}
