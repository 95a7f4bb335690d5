/// A QR code (ISO/IEC 18004) for a string of bytes, drawn as SVG by `svg(moduleSize:label:)`.
/// We show TOTP enrolment URIs (`otpauth://totp/…`) with it, so a phone can scan the secret
/// from a page that works without JavaScript. Only byte mode is encoded: it takes any UTF-8 text,
/// and the few codewords the other modes would save do not matter for a URI of ~100 bytes.
public struct QRCode: Sendable {
    /// How many codewords may be damaged and still be recovered: about 7, 15, 25 and 30 percent.
    public enum Correction: Sendable, CaseIterable {
        case low, medium, quartile, high
    }

    /// Thrown when the bytes do not fit even version 40 at the chosen correction level.
    public struct TooLong: Error, Sendable, Equatable {
        public let byteCount: Int
        public let correction: Correction
    }

    /// Modules per side, without the quiet zone: 21 for version 1, 177 for version 40.
    public let size: Int
    /// 1...40: the smallest version that holds the bytes.
    public let version: Int
    public let correction: Correction
    /// The mask (0...7) whose pattern scored the lowest penalty; kept so tests can compare it.
    let mask: Int
    /// Row by row, `true` for dark.
    private let modules: [Bool]

    public init(text: String, correction: Correction = .medium) throws {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// Encodes `bytes` in one byte-mode segment in the smallest version that holds them, choosing
    /// the mask the standard's penalty rules prefer.
    public init(bytes: [UInt8], correction: Correction = .medium) throws {
        guard let layout = (1...40).lazy.map({ QRLayout(version: $0, correction: correction) })
            .first(where: { QRCodewords.fits(byteCount: bytes.count, in: $0) })
        else { throw TooLong(byteCount: bytes.count, correction: correction) }
        self.init(bytes: bytes, layout: layout, mask: nil)
    }

    /// The same, at a fixed version and (optionally) mask, so tests can ask for exactly what a
    /// reference encoder drew.
    init(bytes: [UInt8], correction: Correction, version: Int, mask: Int?) throws {
        precondition((1...40).contains(version) && (mask.map { (0..<8).contains($0) } ?? true))
        let layout = QRLayout(version: version, correction: correction)
        guard QRCodewords.fits(byteCount: bytes.count, in: layout) else {
            throw TooLong(byteCount: bytes.count, correction: correction)
        }
        self.init(bytes: bytes, layout: layout, mask: mask)
    }

    private init(bytes: [UInt8], layout: QRLayout, mask fixedMask: Int?) {
        var unmasked = QRMatrix(version: layout.version)
        unmasked.place(QRCodewords.final(QRCodewords.data(bytes, in: layout), in: layout))
        func masked(_ mask: Int) -> QRMatrix {
            var matrix = unmasked
            matrix.applyMask(mask)
            return matrix
        }
        // Masks are scored before the format and version information are drawn (see QRMatrix).
        var chosen = (mask: fixedMask ?? 0, matrix: masked(fixedMask ?? 0))
        if fixedMask == nil {
            var lowest = QRPenalty.score(chosen.matrix)
            for mask in 1..<8 {
                let matrix = masked(mask)
                let penalty = QRPenalty.score(matrix)
                // Strictly lower: on a tie the lower-numbered mask wins, as in other encoders.
                if penalty < lowest { (chosen, lowest) = ((mask, matrix), penalty) }
            }
        }
        chosen.matrix.drawInformation(correction: layout.correction, mask: chosen.mask)
        size = chosen.matrix.size
        version = layout.version
        correction = layout.correction
        mask = chosen.mask
        modules = chosen.matrix.dark
    }

    /// Whether the module at column `x`, row `y` is dark. Anything outside the symbol is the
    /// light quiet zone, so callers can draw a margin without bounds checks.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }
}
