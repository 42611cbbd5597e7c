import Testing
@testable import SQLImportKit

/// Key fingerprints compare values as the key's index does, so that a record superseded
/// by a later one really has its key; and they never equate keys SQLite tells apart.
@Suite struct KeyFingerprintTests {
    static func fingerprint(_ text: String, foldsCase: Bool = false, trims: Bool = false) -> UInt64 {
        var hasher = KeyHasher(seed: 0)
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { hasher.combine(text: UnsafeRawBufferPointer($0), foldsCase: foldsCase, trimsTrailingSpaces: trims) }
        return hasher.finalize()
    }

    @Test func nocaseFoldsASCIICapitalsOnlyWhateverTheirPositionInAWord() {
        let mixed = "AbCdEfGhIjKlMnOpQrStUvWxYz-ÀÉ-0123456789"
        #expect(Self.fingerprint(mixed, foldsCase: true) == Self.fingerprint("abcdefghijklmnopqrstuvwxyz-ÀÉ-0123456789", foldsCase: true))
        // Non-ASCII capitals are not folded, as SQLite's NOCASE does not fold them.
        #expect(Self.fingerprint("ÀÉ", foldsCase: true) != Self.fingerprint("àé", foldsCase: true))
        // The neighbours of A and Z ('@', '[') are not letters.
        for (a, b) in [("@@@@@@@@", "````````"), ("[[[[[[[[", "{{{{{{{{"), ("AAAAAAAA", "aaaaaaab")] {
            #expect(Self.fingerprint(a, foldsCase: true) != Self.fingerprint(b, foldsCase: true), "\(a) \(b)")
        }
        #expect(Self.fingerprint("ABCDEFGH") != Self.fingerprint("abcdefgh"))
    }

    @Test func rtrimIgnoresTrailingSpacesOnly() {
        #expect(Self.fingerprint("key   ", trims: true) == Self.fingerprint("key", trims: true))
        #expect(Self.fingerprint("  key", trims: true) != Self.fingerprint("key", trims: true))
        #expect(Self.fingerprint("key ") != Self.fingerprint("key"))
    }

    @Test func lengthAndPaddingAreNotConfused() {
        #expect(Self.fingerprint("a") != Self.fingerprint("a\u{0}"))
        #expect(Self.fingerprint("abcdefgh") != Self.fingerprint("abcdefgh\u{0}"))
        #expect(Self.fingerprint("") != Self.fingerprint("\u{0}"))
    }
}
