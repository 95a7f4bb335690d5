import NIOCore
import Synchronization
import Testing
@testable import wsx_web

@Suite("Frame queue")
struct FrameQueueTests {
    static func frame(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
    static func texts(_ frames: [ByteBuffer]?) -> [String]? { frames?.map { String(buffer: $0) } }

    @Test("frames waiting are taken together, in order; a waiting writer gets the next one at once")
    func batches() async {
        let queue = FrameQueue(capacity: 10)
        for text in ["a", "b", "c"] { #expect(queue.offer(Self.frame(text)) == .accepted) }
        #expect(Self.texts(await queue.next()) == ["a", "b", "c"])
        async let waiting = queue.next()
        try? await Task.sleep(for: .milliseconds(20))
        #expect(queue.offer(Self.frame("d")) == .accepted)
        #expect(Self.texts(await waiting) == ["d"])
    }

    @Test("a full queue refuses (the hub then disconnects the slow reader); finishing drains, then ends, once")
    func boundedAndFinishing() async {
        let ended = Mutex(0)
        let queue = FrameQueue(capacity: 2) { ended.withLock { $0 += 1 } }
        #expect(queue.offer(Self.frame("a")) == .accepted)
        #expect(queue.offer(Self.frame("b")) == .accepted)
        #expect(queue.offer(Self.frame("c")) == .full)
        queue.finish()
        queue.finish()
        #expect(queue.offer(Self.frame("d")) == .finished)
        #expect(Self.texts(await queue.next()) == ["a", "b"])
        #expect(await queue.next() == nil)
        #expect(ended.withLock { $0 } == 1)
    }

    @Test("a writer whose task is cancelled (the browser left) ends at once and the queue finishes")
    func cancellation() async {
        let ended = Mutex(0)
        let queue = FrameQueue(capacity: 4) { ended.withLock { $0 += 1 } }
        let writer = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(20))
        writer.cancel()
        #expect(await writer.value == nil)
        #expect(ended.withLock { $0 } == 1)
        #expect(queue.offer(Self.frame("late")) == .finished)
    }
}
