import Foundation

/// Makes the downsampled copies images are shown with: shrink-on-load, right way up, sRGB,
/// metadata (GPS included) stripped. The header is checked first (pixel count and loader), so a
/// lying or huge image is refused in a millisecond instead of decoded. libvips blocks its
/// thread, so the work runs on Dispatch's threads, at most `concurrency` images at once.
public final class Thumbnailer: Sendable {
    /// Width of the stored thumbnail: sharp at the 360 px messages show on 2x screens.
    public static let width = 720
    public static let quality = 82

    private let library: ImageLibrary
    private let policy: UploadPolicy
    private let slots: WorkSlots

    public init(library: ImageLibrary, policy: UploadPolicy, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.library = library
        self.policy = policy
        slots = WorkSlots(max(1, concurrency))
    }

    /// Checks an image file's header against the policy; returns it when acceptable.
    public func inspect(_ file: URL) throws -> ImageHeader {
        guard let header = library.header(ofFile: file), UploadPolicy.allowedLoaders.contains(header.loader) else {
            throw ImageError.unreadable("not an image wsx can read")
        }
        guard header.width > 0, header.height > 0, header.pixelCount <= policy.maximumPixels else {
            throw ImageError.tooManyPixels(width: header.width, height: header.height)
        }
        return header
    }

    /// Inspects `source` and writes its thumbnail to `target`; returns the image's displayed
    /// size (after EXIF rotation) and the thumbnail's.
    public func makeThumbnail(of source: URL, to target: URL) async throws -> (image: (Int, Int), thumbnail: (Int, Int)) {
        let header = try inspect(source)
        try DataFolder.createFolder(target.deletingLastPathComponent().path)
        let library = self.library
        let size = try await slots.run {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result {
                        try library.writeThumbnail(of: source, to: target, width: Self.width, quality: Self.quality)
                    })
                }
            }
        }
        // libvips creates the file with the process's umask: make it the owner's alone.
        chmod(target.path, DataFolder.fileMode)
        // Orientations 5–8 swap width and height.
        let upright = header.orientation >= 5 ? (header.height, header.width) : (header.width, header.height)
        return (upright, size)
    }
}

/// A counting semaphore for async work: at most `count` bodies run at once, the rest wait in order.
actor WorkSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
