import Foundation
import Synchronization
import Testing
@testable import Uploads

/// Class: a limit that counts the wrong thing. Images are budgeted by the memory they take
/// decoded (pixels × bands × bytes per sample), one by one and all together, not by pixels alone.
@Suite("Decode memory", .serialized)
struct DecodeMemoryTests {
    @Test("the header tells bands and bytes per sample, so deep images count for what they take", arguments: [
        ("deep.png", 4, 2, 32_000_000), ("shallow.png", 3, 1, 12_000_000), ("photo.jpg", 3, 1, 600 * 400 * 3),
    ])
    func headerDepth(file: String, bands: Int, bytes: Int, decoded: Int) throws {
        let header = try #require(ImagesAndTypesTests.library.header(ofFile: FixtureFiles.url(file)))
        #expect(header.bands == bands)
        #expect(header.bytesPerSample == bytes)
        #expect(header.decodeBytes == decoded)
    }

    @Test("an image within the pixel limit but over the memory limit is refused from its header; a shallow one of the same size is not")
    func deepImageRefused() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = UploadPolicy(maximumPixels: 10_000_000, maximumDecodeBytes: 20_000_000)
        let thumbnailer = Thumbnailer(library: ImagesAndTypesTests.library, policy: policy)
        await #expect(throws: ImageError.tooMuchMemory(width: 2000, height: 2000, bands: 4, bytesPerSample: 2)) {
            _ = try await thumbnailer.makeThumbnail(of: FixtureFiles.url("deep.png"), to: folder.appendingPathComponent("d.jpg"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("d.jpg").path))
        let made = try await thumbnailer.makeThumbnail(of: FixtureFiles.url("shallow.png"), to: folder.appendingPathComponent("s.jpg"))
        #expect(made.image == (2000, 2000))
        // By default one image may take an 8-bit RGBA image at the pixel limit.
        #expect(UploadPolicy().maximumDecodeBytes == 200_000_000)
    }

    @Test("decodes share a memory budget: a big one waits for room, in arrival order, and the total never passes it")
    func sharedBudget() async throws {
        let gate = DecodeGate(slots: 4, memory: 100)
        let record = Record()
        let release = AsyncStream<Void>.makeStream()
        func job(_ name: String, _ bytes: Int, hold: Bool) -> Task<Void, any Error> {
            Task {
                try await gate.run(memory: bytes) {
                    record.started(name, bytes)
                    if hold { for await _ in release.stream { break } }
                    record.ended(bytes)
                }
            }
        }
        let first = job("first 60", 60, hold: true)
        while await gate.load.running < 1 { await Task.yield() }
        let second = job("second 60", 60, hold: false)
        while await gate.load.waiting < 1 { await Task.yield() }
        // Small enough to fit beside the first, but it arrived after the second: it waits too.
        let third = job("third 30", 30, hold: false)
        while await gate.load.waiting < 2 { await Task.yield() }
        #expect(record.order == ["first 60"])
        release.continuation.yield()
        for task in [first, second, third] { try await task.value }
        #expect(record.order == ["first 60", "second 60", "third 30"])
        #expect(record.most <= 100)
        // One larger than the whole budget still runs, alone.
        try await gate.run(memory: 500) {}
        let load = await gate.load
        #expect(load.running == 0 && load.bytes == 0)
    }
}

/// What the gate let run, and the most memory in use at once.
private final class Record: Sendable {
    private let state = Mutex((order: [String](), now: 0, most: 0))

    func started(_ name: String, _ bytes: Int) {
        state.withLock { $0.order.append(name); $0.now += bytes; $0.most = max($0.most, $0.now) }
    }

    func ended(_ bytes: Int) { state.withLock { $0.now -= bytes } }

    var order: [String] { state.withLock { $0.order } }
    var most: Int { state.withLock { $0.most } }
}
