/// What a version and correction level fix before any data is known: how many codewords the
/// symbol holds and how they split into Reed–Solomon blocks.
struct QRLayout: Sendable {
    let version: Int
    let correction: QRCode.Correction
    let blockCount: Int
    let eccPerBlock: Int
    /// Every 8-bit codeword the symbol holds (any leftover modules are remainder bits).
    let totalCodewords: Int

    init(version: Int, correction: QRCode.Correction) {
        self.version = version
        self.correction = correction
        let level = QRTables.levelIndex(correction)
        blockCount = QRTables.blockCount[level][version - 1]
        eccPerBlock = QRTables.eccPerBlock[level][version - 1]
        totalCodewords = Self.dataModules(version: version) / 8
    }

    var dataCodewords: Int { totalCodewords - blockCount * eccPerBlock }

    /// Modules left for codewords once the function patterns are drawn, counted from the
    /// geometry rather than tabled: the three finders with their separators (8×8 each), the two
    /// format-information strips and the dark module (31), the two timing lines between the
    /// finders, the alignment patterns (5×5, less the timing modules under those on row or
    /// column 6) and, from version 7, the two 6×3 version-information blocks.
    static func dataModules(version: Int) -> Int {
        let size = 4 * version + 17
        var modules = size * size - 3 * 64 - 31 - 2 * (size - 16)
        let centres = QRTables.alignmentCentres[version - 1].count
        if centres > 0 {
            modules -= 25 * (centres * centres - 3) - 2 * 5 * (centres - 2)
        }
        if version >= 7 { modules -= 2 * 18 }
        return modules
    }
}
