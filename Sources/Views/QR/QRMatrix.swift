/// The grid of modules while a symbol is drawn: the function patterns first (which also marks
/// where data may not go), then the codewords, then a mask, then the format and version
/// information. Coordinates are column `x` and row `y` from the top-left corner.
struct QRMatrix: Sendable {
    let version: Int
    let size: Int
    /// Row by row, `true` for dark.
    private(set) var dark: [Bool]
    /// Modules of function patterns and format/version information: never data, never masked.
    private var isFunction: [Bool]

    /// A symbol of `version` with every function pattern drawn and the format and version areas
    /// reserved, light for now.
    init(version: Int) {
        self.version = version
        size = 4 * version + 17
        dark = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        for index in 0..<size {
            // Timing lines: alternate along row 6 and column 6, dark on even coordinates.
            set(x: index, y: 6, dark: index % 2 == 0)
            set(x: 6, y: index, dark: index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinder(centreX: x, centreY: y) }
        let centres = QRTables.alignmentCentres[version - 1]
        for x in centres {
            for y in centres where !Self.isFinderCorner(x, y, centres) { drawAlignment(centreX: x, centreY: y) }
        }
        // The standard chooses the mask before this information exists (7.1, steps 5 and 6), so
        // these areas stay light while masks are scored, as in segno, until `drawInformation`.
        placeFormat(0, darkModule: false)
        if version >= 7 { placeVersion(0) }
    }

    subscript(x: Int, y: Int) -> Bool { dark[y * size + x] }

    private mutating func set(x: Int, y: Int, dark value: Bool) {
        dark[y * size + x] = value
        isFunction[y * size + x] = true
    }

    /// The alignment grid's three corners that are finders instead.
    private static func isFinderCorner(_ x: Int, _ y: Int, _ centres: [Int]) -> Bool {
        let first = centres[0], last = centres[centres.count - 1]
        return (x == first && y == first) || (x == first && y == last) || (x == last && y == first)
    }

    /// A 7×7 finder (dark ring, light ring, 3×3 dark centre) with its one-module light
    /// separator, clipped at the symbol's edge.
    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx, y = centreY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                set(x: x, y: y, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// A 5×5 alignment pattern: dark ring, light ring, dark centre.
    private mutating func drawAlignment(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                set(x: centreX + dx, y: centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Draws what a reader needs before the data: the 15-bit format information (correction
    /// level, mask, BCH(15,5) check bits, XORed with 101010000010010 so it is never all light),
    /// the dark module and, from version 7, the 18-bit version information (6-bit version,
    /// BCH(18,6) check bits).
    mutating func drawInformation(correction: QRCode.Correction, mask: Int) {
        let level = switch correction {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
        let format = level << 3 | mask
        placeFormat((format << 10 | QRBCH.remainder(format, dataBits: 5, generator: 0x537, checkBits: 10)) ^ 0x5412,
                    darkModule: true)
        if version >= 7 {
            placeVersion(version << 12 | QRBCH.remainder(version, dataBits: 6, generator: 0x1F25, checkBits: 12))
        }
    }

    /// The format information twice, bit 14 the most significant: around the top-left finder,
    /// and split between the other two; and the dark module beside the bottom-left finder.
    private mutating func placeFormat(_ bits: Int, darkModule: Bool) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 != 0 }
        // Around the top-left finder: bits 0–7 down column 8 (skipping the timing row), bits
        // 8–14 leftwards along row 8 (skipping the timing column).
        for index in 0...5 { set(x: 8, y: index, dark: bit(index)) }
        set(x: 8, y: 7, dark: bit(6))
        set(x: 8, y: 8, dark: bit(7))
        set(x: 7, y: 8, dark: bit(8))
        for index in 9...14 { set(x: 14 - index, y: 8, dark: bit(index)) }
        // The copy: bits 0–7 along row 8 leftwards from the right edge, bits 8–14 down column 8
        // to the bottom edge.
        for index in 0...7 { set(x: size - 1 - index, y: 8, dark: bit(index)) }
        for index in 8...14 { set(x: 8, y: size - 15 + index, dark: bit(index)) }
        set(x: 8, y: size - 8, dark: darkModule)
    }

    /// The version information as a 6×3 block above the bottom-left finder and its transpose
    /// left of the top-right finder, bit 0 (least significant) first.
    private mutating func placeVersion(_ bits: Int) {
        for index in 0..<18 {
            let value = (bits >> index) & 1 != 0
            let across = index / 3, along = size - 11 + index % 3
            set(x: along, y: across, dark: value)
            set(x: across, y: along, dark: value)
        }
    }

    /// Places the codewords' bits, most significant first, in two-module-wide columns from the
    /// bottom-right corner, zigzagging up then down, right module before left, skipping function
    /// modules and the vertical timing column. Modules left over (remainder bits) stay light.
    mutating func place(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var next = 0
        var right = size - 1
        var upward = true
        while right >= 1 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if next < totalBits {
                        dark[y * size + x] = (codewords[next / 8] >> (7 - next % 8)) & 1 != 0
                    }
                    next += 1
                }
            }
            upward.toggle()
            right -= 2
        }
    }

    /// Flips every data module where mask pattern `mask` (0…7, table 10) holds; `i` is the row
    /// and `j` the column, as the standard writes them.
    mutating func applyMask(_ mask: Int) {
        for i in 0..<size {
            for j in 0..<size where !isFunction[i * size + j] {
                let flip = switch mask {
                case 0: (i + j) % 2 == 0
                case 1: i % 2 == 0
                case 2: j % 3 == 0
                case 3: (i + j) % 3 == 0
                case 4: (i / 2 + j / 3) % 2 == 0
                case 5: (i * j) % 2 + (i * j) % 3 == 0
                case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
                default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
                }
                if flip { dark[i * size + j].toggle() }
            }
        }
    }
}

/// The BCH check bits of the format and version information: the remainder of the data,
/// shifted left by the check length, divided by the generator polynomial over GF(2).
enum QRBCH {
    static func remainder(_ data: Int, dataBits: Int, generator: Int, checkBits: Int) -> Int {
        var value = data << checkBits
        for bit in stride(from: dataBits + checkBits - 1, through: checkBits, by: -1) where (value >> bit) & 1 != 0 {
            value ^= generator << (bit - checkBits)
        }
        return value
    }
}
