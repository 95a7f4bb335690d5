import Foundation
import Views

/// What someone typed into a message, as stored: its limit, its cleaning, its snippet. Its HTML
/// is `MessageHTML`'s.
enum MessageText {
    static let limit = TextLimit(characters: 5000)

    /// Text as stored: NFC, `\r\n` as `\n`, control characters other than newline and tab
    /// removed, surrounding whitespace trimmed.
    static func clean(_ raw: String) -> String {
        let unified = raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return String(String.UnicodeScalarView(unified.nfc.unicodeScalars.filter {
            $0 == "\n" || $0 == "\t" || !$0.isDisallowedInText
        })).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first characters of a message as plain text, for notifications.
    static func snippet(_ text: String, length: Int = 140) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count <= length ? flat : String(flat.prefix(length - 1)) + "…"
    }
}
