import ImageProbe
import Testing

@Suite struct CaptureDateTests {
    @Test func whenEXIFTextIsValid_thenFieldsAndISOFormAreExact() throws {
        let date = try #require(CaptureDate(exif: "2024:02:29 23:05:09"))
        #expect((date.year, date.month, date.day, date.hour, date.minute, date.second) == (2024, 2, 29, 23, 5, 9))
        #expect(date.description == "2024-02-29T23:05:09")
    }

    @Test(arguments: ["0000:00:00 00:00:00", "2023:02:29 10:00:00", "2024:04:31 10:00:00", "2024:01:01 24:00:00",
                      "2024:01:01 10:60:00", "2024:01:01 10:00", "    :  :     :  :  ", "2024:01:01 10:00:0x"])
    func whenEXIFTextIsInvalid_thenThereIsNoDate(_ text: String) {
        #expect(CaptureDate(exif: text) == nil)
    }

    @Test func datesOrderChronologically_andSoDoTheirISOForms() throws {
        let texts = ["2024:01:01 00:00:00", "2023:12:31 23:59:59", "2024:01:01 00:00:01", "1999:06:15 12:00:00"]
        let dates = try texts.map { try #require(CaptureDate(exif: $0)) }
        let sorted = dates.sorted()
        #expect(sorted.map(\.description) == ["1999-06-15T12:00:00", "2023-12-31T23:59:59", "2024-01-01T00:00:00", "2024-01-01T00:00:01"])
        #expect(sorted.map(\.description) == dates.map(\.description).sorted())
    }
}
