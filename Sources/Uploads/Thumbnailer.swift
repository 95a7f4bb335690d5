import Foundation

/// Makes the downsampled copies images are shown with: shrink-on-load, right way up, sRGB,
/// metadata (GPS included) stripped. The header is checked first (pixel count, decoded memory
/// and loader), so a lying or huge image is refused in a millisecond instead of decoded.
/// libvips blocks its thread, so the work runs on Dispatch's threads, at most `concurrency`
/// images at once and within the policy's memory for decoding (`DecodeGate`).
public final class Thumbnailer: Sendable {
    /// Width of the stored thumbnail: sharp at the 360 px messages show on 2x screens.
    public static let width = 720
    public static let quality = 82

    private let library: ImageLibrary
    private let policy: UploadPolicy
    private let gate: DecodeGate

    public init(library: ImageLibrary, policy: UploadPolicy, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.library = library
        self.policy = policy
        gate = DecodeGate(slots: concurrency, memory: max(policy.decodeMemory, policy.maximumDecodeBytes))
    }

    /// Checks an image file's header against the policy; returns it when acceptable.
    public func inspect(_ file: URL) throws -> ImageHeader {
        guard let header = library.header(ofFile: file), UploadPolicy.allowedLoaders.contains(header.loader) else {
            throw ImageError.unreadable("not an image wsx can read")
        }
        guard header.width > 0, header.height > 0, header.pixelCount <= policy.maximumPixels else {
            throw ImageError.tooManyPixels(width: header.width, height: header.height)
        }
        guard header.decodeBytes <= policy.maximumDecodeBytes else {
            throw ImageError.tooMuchMemory(width: header.width, height: header.height, bands: header.bands,
                                           bytesPerSample: header.bytesPerSample)
        }
        return header
    }

    /// Inspects `source` and writes its thumbnail to `target` (under a temporary name, flushed to
    /// disk, then renamed: nodes sharing the files folder never see half a thumbnail); returns
    /// the image's displayed size (after EXIF rotation) and the thumbnail's.
    public func makeThumbnail(of source: URL, to target: URL) async throws -> (image: (Int, Int), thumbnail: (Int, Int)) {
        let header = try inspect(source)
        try DataFolder.createFolder(target.deletingLastPathComponent().path)
        let library = self.library
        // libvips picks the format by the name's ending: the temporary name ends like the target's.
        let partial = target.deletingLastPathComponent().appendingPathComponent(".partial-\(UUID().uuidString)-" + target.lastPathComponent)
        let size: (Int, Int)
        do {
            size = try await gate.run(memory: header.decodeBytes) {
                try await withCheckedThrowingContinuation { continuation in
                    DispatchQueue.global(qos: .userInitiated).async {
                        continuation.resume(with: Result {
                            try library.writeThumbnail(of: source, to: partial, width: Self.width, quality: Self.quality)
                        })
                    }
                }
            }
            // libvips creates the file with the process's umask: make it the owner's alone.
            chmod(partial.path, DataFolder.fileMode)
            try DataFolder.flushToDisk(partial)
            guard rename(partial.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        // Orientations 5–8 swap width and height.
        let upright = header.orientation >= 5 ? (header.height, header.width) : (header.width, header.height)
        return (upright, size)
    }
}

/// Where decoding waits its turn: at most `slots` images at once, and together at most `memory`
/// bytes decoded (each image's header says how many it needs). Six deep PNGs at once took
/// 791 MB; now a big one waits until the memory is there, in arrival order, while small ones
/// that fit run side by side.
actor DecodeGate {
    private let slots: Int
    private let memory: Int
    private var running = 0
    private var inUse = 0
    private var waiting: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(slots: Int, memory: Int) {
        self.slots = max(1, slots)
        self.memory = memory
    }

    func run<T: Sendable>(memory bytes: Int, _ body: @Sendable () async throws -> T) async throws -> T {
        let share = min(bytes, memory)
        if waiting.isEmpty, fits(share) {
            take(share)
        } else {
            // Handed its share by `release` when it is first in line and fits.
            await withCheckedContinuation { waiting.append((share, $0)) }
        }
        defer { release(share) }
        return try await body()
    }

    private func fits(_ bytes: Int) -> Bool {
        running < slots && (running == 0 || inUse + bytes <= memory)
    }

    private func take(_ bytes: Int) {
        running += 1
        inUse += bytes
    }

    private func release(_ bytes: Int) {
        running -= 1
        inUse -= bytes
        while let next = waiting.first, fits(next.bytes) {
            waiting.removeFirst()
            take(next.bytes)
            next.continuation.resume()
        }
    }

    /// Decodes in progress and their memory (for tests).
    var load: (running: Int, bytes: Int, waiting: Int) { (running, inUse, waiting.count) }
}
