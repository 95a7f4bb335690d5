import CCompress
import Foundation

/// Public/'s text files, compressed once at build time so the server sends them compressed
/// without compressing anything per request.
enum Compression {
    /// The file types worth compressing (images and fonts are compressed already).
    static let compressible: Set<String> = ["css", "js", "svg", "json", "webmanifest", "tsv", "html", "txt", "ico"]

    /// gzip (RFC 1952) at zlib's best level.
    static func gzip(_ data: Data) -> Data? {
        var stream = z_stream()
        // 15 window bits, +16: a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, UInt(data.count))) + 32)
        let written: Int? = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH) == Z_STREAM_END ? Int(stream.total_out) : nil
            }
        }
        guard let written else { return nil }
        return output.prefix(written)
    }

    /// Brotli (RFC 7932) at its best quality, in text mode.
    static func brotli(_ data: Data) -> Data? {
        var size = BrotliEncoderMaxCompressedSize(data.count)
        guard size > 0 else { return nil }
        var output = Data(count: size)
        let done = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                BrotliEncoderCompress(BROTLI_MAX_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, input.count,
                                      input.bindMemory(to: UInt8.self).baseAddress, &size,
                                      out.bindMemory(to: UInt8.self).baseAddress)
            }
        }
        return done == BROTLI_TRUE ? output.prefix(size) : nil
    }
}
