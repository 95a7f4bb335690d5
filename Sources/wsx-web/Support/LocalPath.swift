/// Where a `next` parameter may send someone after signing in or switching language: only a
/// path on this site.
///
/// Decided by parsing, not by looking for bad prefixes: browsers drop TABs and newlines from a
/// `Location` and read `\` as `/`, so `/\t/evil.example` and `/\evil.example` land on
/// `//evil.example`, another site. A path is accepted only when it is made of visible ASCII
/// (what a browser sends, everything else percent-encoded), starts with exactly one `/`, and has
/// no backslash anywhere.
enum LocalPath {
    /// The longest `next` kept; anything longer is not a path wsx made.
    static let maximumLength = 2048

    static func validated(_ candidate: String?) -> String? {
        guard let candidate else { return nil }
        let bytes = candidate.utf8
        guard bytes.count <= maximumLength, bytes.first == UInt8(ascii: "/") else { return nil }
        // Visible ASCII only: no controls (TAB, CR, LF, NUL), no spaces, nothing beyond 0x7E.
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\\") }) else { return nil }
        // Exactly one leading slash: `//host` is another site.
        if bytes.dropFirst().first == UInt8(ascii: "/") { return nil }
        return candidate
    }
}
