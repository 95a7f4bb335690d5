import Foundation

extension String {
    /// Text as wsx stores it: Unicode NFC (macOS sends decomposed Hangul in file names and some
    /// input methods do in forms), so `회의록` typed anywhere equals `회의록` stored.
    var nfc: String { precomposedStringWithCanonicalMapping }

    /// A name or other one-line field as typed: NFC, control and bidi-override characters
    /// removed, surrounding whitespace trimmed.
    var cleanedLine: String {
        String(String.UnicodeScalarView(nfc.unicodeScalars.filter { !$0.isDisallowedInText }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension Unicode.Scalar {
    /// C0/C1 controls and DEL, and the bidi embedding/override/isolate controls that can make
    /// a name display as something else.
    var isDisallowedInText: Bool {
        if properties.generalCategory == .control { return true }
        return (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
}
