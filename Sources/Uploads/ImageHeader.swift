import Foundation
import VipsShim

/// What an image's header says, read without decoding its pixels.
public struct ImageHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1 (upright) when the image has none.
    public var orientation: Int
    /// The libvips loader that recognised the bytes, e.g. `pngload`.
    public var loader: String
    /// Channels (3 for RGB, 4 with alpha) and bytes per channel (1, or 2 for 16-bit).
    public var bands: Int
    public var bytesPerSample: Int

    /// Pixels the decoded image would have; checked against a limit before any decoding.
    public var pixelCount: Int { width * height }

    /// Memory the decoded image can take: pixels × bands × bytes per sample. Pixels alone
    /// undercounted a 16-bit RGBA PNG eightfold: 49 Mpx of it (583 KB on disk) took 355 MB.
    public var decodeBytes: Int { pixelCount * max(1, bands) * max(1, bytesPerSample) }
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
        Self.header { info, loader, size in
            data.withUnsafeBytes { raw in wsx_vips_header(raw.baseAddress, raw.count, info, loader, size) }
        }
    }

    /// Reads the header of an image file; `nil` when libvips cannot load it.
    public func header(ofFile url: URL) -> ImageHeader? {
        Self.header { info, loader, size in wsx_vips_header_file(url.path, info, loader, size) }
    }

    /// Runs one of the shim's header readers and turns what it filled in into an `ImageHeader`.
    private static func header(_ read: (UnsafeMutablePointer<wsx_vips_image_info>, UnsafeMutablePointer<CChar>, Int) -> Int32)
        -> ImageHeader? {
        var info = wsx_vips_image_info()
        var loader = [CChar](repeating: 0, count: 64)
        let status = loader.withUnsafeMutableBufferPointer { buffer in read(&info, buffer.baseAddress!, buffer.count) }
        guard status == 0 else {
            wsx_vips_error_clear()
            return nil
        }
        let name = loader.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return ImageHeader(width: Int(info.width), height: Int(info.height), orientation: Int(info.orientation),
                           loader: name, bands: Int(info.bands), bytesPerSample: Int(info.sample_bytes))
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
    /// Within the pixel limit but too much memory decoded (many or deep channels): its size,
    /// bands and bytes per sample.
    case tooMuchMemory(width: Int, height: Int, bands: Int, bytesPerSample: Int)
}
