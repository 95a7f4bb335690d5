import Foundation
import VipsShim

/// What an image's header says, read without decoding its pixels.
public struct ImageHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1 (upright) when the image has none.
    public var orientation: Int
    /// The libvips loader that recognised the bytes, e.g. `jpegload_buffer`.
    public var loader: String

    /// Pixels the decoded image would have; checked against a limit before any decoding.
    public var pixelCount: Int { width * height }
}

/// Access to libvips. Create one per process (`VIPS_INIT` is process-wide) and pass it along.
public final class ImageLibrary: Sendable {
    /// Starts libvips with untrusted loaders (SVG, PDF, ImageMagick) blocked.
    public init() throws {
        guard wsx_vips_init(CommandLine.arguments.first ?? "wsx") == 0 else {
            throw ImageError.unavailable(Self.lastError())
        }
    }

    /// Reads the header of an image held in memory; `nil` when libvips cannot load the bytes.
    public func header(of data: Data) -> ImageHeader? {
        var width: Int32 = 0, height: Int32 = 0, orientation: Int32 = 1
        var loader = [CChar](repeating: 0, count: 64)
        let status = data.withUnsafeBytes { raw in
            wsx_vips_header(raw.baseAddress, raw.count, &width, &height, &orientation, &loader, loader.count)
        }
        guard status == 0 else {
            wsx_vips_error_clear()
            return nil
        }
        let name = loader.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return ImageHeader(width: Int(width), height: Int(height), orientation: Int(orientation), loader: name)
    }

    /// Reads the header of an image file; `nil` when libvips cannot load it.
    public func header(ofFile url: URL) -> ImageHeader? {
        var width: Int32 = 0, height: Int32 = 0, orientation: Int32 = 1
        var loader = [CChar](repeating: 0, count: 64)
        guard wsx_vips_header_file(url.path, &width, &height, &orientation, &loader, loader.count) == 0 else {
            wsx_vips_error_clear()
            return nil
        }
        let name = loader.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return ImageHeader(width: Int(width), height: Int(height), orientation: Int(orientation), loader: name)
    }

    /// Writes a JPEG thumbnail (blocking: call it off the cooperative pool).
    func writeThumbnail(of source: URL, to target: URL, width: Int, quality: Int) throws -> (width: Int, height: Int) {
        var outWidth: Int32 = 0, outHeight: Int32 = 0
        guard wsx_vips_thumbnail_file(source.path, target.path, Int32(width), Int32(quality), &outWidth, &outHeight) == 0 else {
            throw ImageError.unreadable(Self.lastError())
        }
        return (Int(outWidth), Int(outHeight))
    }

    static func lastError() -> String {
        let message = String(cString: wsx_vips_error())
        wsx_vips_error_clear()
        return message
    }
}

/// Why an image operation failed.
public enum ImageError: Error, Equatable {
    case unavailable(String)
    /// Broken, truncated or not an image libvips may read (its message).
    case unreadable(String)
    /// More pixels than allowed: refused before decoding (decompression bombs).
    case tooManyPixels(width: Int, height: Int)
}
