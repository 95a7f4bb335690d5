import Foundation
import Views

/// What someone typed into a message, as stored: its limit, its cleaning, its snippet. Its HTML
/// is `MessageHTML`'s.
enum MessageText {
    static let limit = TextLimit(characters: 5000)

    /// Text as stored: NFC, `\r\n` as `\n`, control characters other than newline and tab
    /// removed, surrounding whitespace trimmed.
    static func clean(_ raw: String) -> String {
        if let plain = plainASCII(raw) { return plain }
        let unified = raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return String(String.UnicodeScalarView(unified.nfc.unicodeScalars.filter {
            $0 == "\n" || $0 == "\t" || !$0.isDisallowedInText
        })).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Printable ASCII with line feeds and tabs is clean already but for its ends: nothing to
    /// normalize, filter or unify (Foundation's passes below cost 30 µs a post).
    private static func plainASCII(_ raw: String) -> String? {
        let bytes = raw.utf8
        guard bytes.allSatisfy({ (0x20 ... 0x7E).contains($0) || $0 == 0x0A || $0 == 0x09 }) else { return nil }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(raw[first ... last])
    }

    /// The first characters of a message as plain text, for notifications.
    static func snippet(_ text: String, length: Int = 140) -> String {
        let flat = text.containsByte(UInt8(ascii: "\n")) ? text.replacingOccurrences(of: "\n", with: " ") : text
        // No more bytes than `length` is no more characters (counting Characters showed in a post's profile).
        if flat.utf8.count <= length { return flat }
        return flat.count <= length ? flat : String(flat.prefix(length - 1)) + "…"
    }
}
