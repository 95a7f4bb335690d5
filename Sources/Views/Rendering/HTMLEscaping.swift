/// HTML escaping for text placed in elements and quoted attributes: `& < > " '` become
/// `&amp; &lt; &gt; &quot; &#39;` (the same entities swift-mustache's HTML type writes). Works on
/// UTF-8 bytes and returns the text itself when nothing needs escaping: templates, message bodies
/// and search excerpts all go through it.
public enum HTMLEscaping {
    public static func escape(_ text: some StringProtocol) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: needsEscape) else { return String(text) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): output.append(contentsOf: "&#39;".utf8)
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
