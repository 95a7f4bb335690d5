/// From bytes to the codeword sequence placed in the symbol: one byte-mode segment, the
/// terminator and padding that fill the data capacity, then the data split into blocks, each
/// with its Reed–Solomon codewords, and the blocks interleaved.
enum QRCodewords {
    /// Byte mode's indicator (0100), then its character-count field, whose width depends on the
    /// version range (table 3).
    static let byteModeIndicator = 0b0100

    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    static func fits(byteCount: Int, in layout: QRLayout) -> Bool {
        let countBits = countBits(version: layout.version)
        return byteCount < 1 << countBits && 4 + countBits + 8 * byteCount <= 8 * layout.dataCodewords
    }

    /// The data codewords: the segment, a terminator of up to four zero bits, zeros to the next
    /// byte boundary, then the pad codewords 11101100 and 00010001 in turn until full.
    static func data(_ bytes: [UInt8], in layout: QRLayout) -> [UInt8] {
        var bits = QRBitWriter()
        bits.append(byteModeIndicator, count: 4)
        bits.append(bytes.count, count: countBits(version: layout.version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = 8 * layout.dataCodewords
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        for index in 0..<(layout.dataCodewords - codewords.count) {
            codewords.append(index % 2 == 0 ? 0xEC : 0x11)
        }
        return codewords
    }

    /// Splits the data into blocks (the shorter ones first; the rest hold one codeword more),
    /// adds each block's error correction, then takes the data codewords column by column across
    /// the blocks, then the error-correction codewords the same way, so damage in one area of
    /// the symbol is spread over many blocks.
    static func final(_ data: [UInt8], in layout: QRLayout) -> [UInt8] {
        let shortLength = layout.dataCodewords / layout.blockCount
        let longBlocks = layout.dataCodewords % layout.blockCount
        let shortBlocks = layout.blockCount - longBlocks
        let coder = QRReedSolomon(degree: layout.eccPerBlock)
        var blocks: [ArraySlice<UInt8>] = []
        var start = 0
        for block in 0..<layout.blockCount {
            let length = shortLength + (block < shortBlocks ? 0 : 1)
            blocks.append(data[start..<start + length])
            start += length
        }
        var result: [UInt8] = []
        result.reserveCapacity(layout.totalCodewords)
        for column in 0...shortLength {
            for block in blocks where column < block.count {
                result.append(block[block.startIndex + column])
            }
        }
        let corrections = blocks.map { coder.remainder(of: Array($0)) }
        for column in 0..<layout.eccPerBlock {
            for correction in corrections { result.append(correction[column]) }
        }
        return result
    }
}

/// Bits appended most significant first, packed into bytes.
struct QRBitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count width: Int) {
        for shift in stride(from: width - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 != 0 { bytes[bytes.count - 1] |= 0x80 >> (count % 8) }
            count += 1
        }
    }
}
