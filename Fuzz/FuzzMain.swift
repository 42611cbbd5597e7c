// libFuzzer entry point for the readers and the decompressing input layer. Built by
// Fuzz/fuzz.sh together with the reader sources and the shared oracle
// (Tests/SQLImportKitTests/ReaderFuzzHarness.swift); FUZZ_TARGET picks json, csv or
// compressed.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let fuzzTarget: ReaderFuzzHarness.Target = {
    guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }), let target = ReaderFuzzHarness.Target(rawValue: name) else {
        report("set FUZZ_TARGET to json, csv or compressed")
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try ReaderFuzzHarness.check(bytes, target: fuzzTarget)
    } catch {
        report("sqlimport fuzz: \(error)")
        abort()
    }
    return 0
}

/// Writes a line to standard error.
func report(_ line: String) {
    let text = Array((line + "\n").utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
