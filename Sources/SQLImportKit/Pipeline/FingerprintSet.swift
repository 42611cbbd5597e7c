#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The conflict-target keys a first load has inserted while the target's index is
/// deferred (`DeferredIndexes`), as 64-bit fingerprints (`KeyLedger.fingerprint`): a
/// record whose fingerprint is already here may conflict, so the index must be built
/// before it is written.
///
/// An open-addressing table of fingerprints alone, at most half full: 16 bytes per key
/// at its limit. When it is full the caller builds the
/// index and stops asking (the rest of the load maintains the index row by row), so
/// memory stays flat whatever the input's size. Hand-written for the same reason as
/// `KeyLedger`: the standard library's `Set` costs several times that per element.
///
/// Two distinct keys share a fingerprint with a probability of about n²/2⁶⁵; such a pair
/// only ends the deferral early. Two keys SQLite takes for one always share it (the
/// fingerprint normalises values as the index compares them), and should one ever slip
/// through, building the unique index fails the run: never a duplicate row.
final class FingerprintSet {
    /// Allocated once at its full size with `calloc`, which maps zeroed pages that count
    /// against memory only once written: growing by doubling would hold the old table
    /// and the new one at once, half again the size at the peak.
    private let slots: UnsafeMutablePointer<UInt64>
    private let mask: Int
    private(set) var count = 0

    /// - Parameter maxBytes: the most the table may take (rounded down to a power of two
    ///   of 8-byte slots).
    init(maxBytes: Int) {
        var size = 1 << 10
        while size * 2 * 8 <= maxBytes { size *= 2 }
        slots = calloc(size, 8)!.assumingMemoryBound(to: UInt64.self)
        mask = size - 1
    }

    deinit { free(slots) }

    enum Outcome {
        case added
        /// The fingerprint was there already.
        case present
        /// The table is half full; nothing was added.
        case full
    }

    /// Adds `fingerprint` (never 0).
    func insert(_ fingerprint: UInt64) -> Outcome {
        var slot = Int(truncatingIfNeeded: fingerprint) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 {
                guard (count + 1) * 2 <= mask + 1 else { return .full }
                slots[slot] = fingerprint
                count += 1
                return .added
            }
            if stored == fingerprint { return .present }
            slot = (slot + 1) & mask
        }
    }
}
