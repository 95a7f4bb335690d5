/// Reed–Solomon error correction as QR codes use it: arithmetic in GF(256) built on the
/// polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), and a generator polynomial whose roots are
/// α⁰ … αⁿ⁻¹ with α = 2. The error-correction codewords of a block are the remainder of the
/// block's data (as a polynomial, highest power first) times xⁿ, divided by the generator.
struct QRReedSolomon: Sendable {
    /// The generator's coefficients below the leading 1, highest power first.
    private let generator: [UInt8]

    init(degree: Int) {
        // Multiply out (x − α⁰)(x − α¹)…; in GF(256) subtraction is addition (XOR).
        var coefficients: [UInt8] = [1]
        var root: UInt8 = 1
        for _ in 0..<degree {
            var next = [UInt8](repeating: 0, count: coefficients.count + 1)
            for (index, coefficient) in coefficients.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= Self.multiply(coefficient, root)
            }
            coefficients = next
            root = Self.multiply(root, 2)
        }
        generator = Array(coefficients.dropFirst())
    }

    /// The error-correction codewords for one block of data.
    func remainder(of data: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            // Long division one term at a time: the register shifts left and the leading term
            // leaving it says how much of the generator to subtract.
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in generator.indices {
                remainder[index] ^= Self.multiply(generator[index], factor)
            }
        }
        return remainder
    }

    /// Product in GF(256): carry-less multiplication, reduced by 0x11D whenever x⁸ appears.
    /// A loop of eight steps is quick enough for the few thousand codewords of version 40.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = UInt16(a)
        var b = b
        var product: UInt16 = 0
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(product)
    }
}
