import CatalogLayout
import Testing

@Suite struct GeometryTests {
    @Test func whenARectIsAskedForItsEdges_thenTheyFollowItsOriginAndSize() {
        let rect = Rect(x: 5, y: 100, width: 20, height: 50)
        #expect(rect.minY == 100)
        #expect(rect.maxY == 150)
    }

    @Test func whenARectMeetsABand_thenOnlyAPositiveOverlapCounts() {
        let rect = Rect(x: 5, y: 100, width: 20, height: 50)
        #expect(rect.overlaps(149..<200))
        #expect(rect.overlaps(0..<100.5))
        #expect(rect.overlaps(110..<120), "a band inside the rect")
        #expect(!rect.overlaps(150..<200), "a band starting at the bottom edge")
        #expect(!rect.overlaps(0..<100), "a band ending at the top edge")
    }
}
