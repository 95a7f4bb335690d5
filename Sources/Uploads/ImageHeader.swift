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

    static func lastError() -> String {
        let message = String(cString: wsx_vips_error())
        wsx_vips_error_clear()
        return message
    }
}

/// Why an image operation failed.
public enum ImageError: Error {
    case unavailable(String)
}
