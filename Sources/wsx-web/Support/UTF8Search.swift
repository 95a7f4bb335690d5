extension StringProtocol {
    /// The first occurrence of `needle` in the UTF-8 bytes, as indices of `self`. Byte for byte,
    /// unlike `range(of:)` (Foundation) and `firstRange(of:)` (Characters), which were each tens
    /// of µs in a post's profile; a needle that starts with an ASCII byte can only match at a
    /// scalar boundary, so its ends are valid indices for slicing.
    func firstUTF8Range(of needle: some StringProtocol) -> Range<Index>? {
        let bytes = utf8, pattern = needle.utf8
        guard let first = pattern.first else { return nil }
        var start = bytes.startIndex
        while let candidate = bytes[start...].firstIndex(of: first) {
            if bytes[candidate...].starts(with: pattern) {
                return candidate ..< bytes.index(candidate, offsetBy: pattern.count)
            }
            start = bytes.index(after: candidate)
        }
        return nil
    }

    /// Whether the UTF-8 bytes hold `byte` (an ASCII character such as `@`).
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.contains(byte)
    }
}
