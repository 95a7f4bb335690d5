import Foundation

/// The elements of a JSON array, each as its own bytes, found by one pass over the array's text
/// (strings, escapes and nesting followed, nothing else parsed), so each can be decoded on its
/// own. Decoding a whole day file at once built every message's intermediate objects together:
/// about 25 bytes of memory per byte of JSON, 1.9 GB for four 250 MB day files.
public enum JSONArrayElements {
    /// Why the bytes are not a JSON array.
    public struct Malformed: Error, Equatable {
        public let offset: Int
    }

    /// The byte ranges of the array's elements, in order; throws `Malformed` when `data` is not
    /// one JSON array (a bracket that does not close, text after it, a missing comma).
    public static func ranges(in data: Data) throws -> [Range<Int>] {
        try data.withUnsafeBytes { buffer -> [Range<Int>] in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var index = 0
            func skipSpace() {
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw Malformed(offset: index) }
            index += 1
            var ranges: [Range<Int>] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                skipSpace()
                guard index == bytes.count else { throw Malformed(offset: index) }
                return ranges
            }
            while true {
                skipSpace()
                let start = index
                try skipValue(bytes, &index)
                ranges.append(start..<index)
                skipSpace()
                guard index < bytes.count else { throw Malformed(offset: index) }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                guard bytes[index] == UInt8(ascii: "]") else { throw Malformed(offset: index) }
                index += 1
                skipSpace()
                guard index == bytes.count else { throw Malformed(offset: index) }
                return ranges
            }
        }
    }

    /// Moves past one value: a string, an object or array (to its matching bracket), or a bare
    /// word or number (to the next delimiter). What is inside is for the decoder to judge.
    private static func skipValue(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) throws {
        guard index < bytes.count else { throw Malformed(offset: index) }
        var depth = 0
        var inString = false
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 2; continue }
                if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { index += 1; return }
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 {
                    guard index > start else { throw Malformed(offset: index) }
                    return
                }
                depth -= 1
                if depth == 0 { index += 1; return }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 {
                    guard index > start else { throw Malformed(offset: index) }
                    return
                }
            default:
                break
            }
            index += 1
        }
        throw Malformed(offset: index)
    }
}
