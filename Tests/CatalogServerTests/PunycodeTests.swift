@testable import CatalogServer
import Testing

/// Hosts beyond ASCII as a browser sends them, for the gallery's Content-Security-Policy.
@Suite struct PunycodeTests {
    /// RFC 3492's encoding, against Python's `codecs` punycode of the same labels.
    @Test(arguments: [("bücher", "bcher-kva"), ("münchen", "mnchen-3ya"), ("ü", "tda"), ("ελληνικά", "hxargifdar"),
                      ("例え", "r8jz45g"), ("日本語", "wgv71a119e"), ("abcü-x", "abc-x-mva"), ("правительство", "80aealotwbjpid2k")])
    func labelsAreEncodedAsRFC3492Does(_ label: String, _ encoded: String) {
        #expect(Punycode.encode(label) == encoded)
    }

    /// Whole hosts, against Python's `idna` codec: each label beyond ASCII on its own, lower-cased
    /// first; a port kept out of the last label (it was encoded into it); IDNA's other dots as
    /// dots; a label ASCII once lower-cased (the Kelvin sign's "K") without `xn--`.
    @Test(arguments: [("例え.テスト:8080", "xn--r8jz45g.xn--zckzah:8080"), ("bücher。example", "xn--bcher-kva.example"),
                      ("BÜCHER.example", "xn--bcher-kva.example"), ("\u{212A}elvin.example", "kelvin.example"),
                      ("plain.example:443", "plain.example:443"), ("ü.example.", "xn--tda.example.")])
    func hostsAreEncodedLabelByLabel(_ host: String, _ ascii: String) {
        #expect(Punycode.asciiHost(host) == ascii)
    }
}
