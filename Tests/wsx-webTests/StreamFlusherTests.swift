import NIOCore
import NIOEmbedded
import Testing
@testable import wsx_web

@Suite(.timeLimit(.minutes(5))) struct StreamFlusherTests {
    /// A stream that notes the loop's time at each flush.
    final class Probe: FlushableStream {
        let loop: EmbeddedEventLoop
        var flushedAt: [UInt64] = []
        init(_ loop: EmbeddedEventLoop) { self.loop = loop }
        func flushIfNeeded() { flushedAt.append(loop.now.uptimeNanoseconds / 1_000_000) }
    }

    @Test("after a quiet spell frames go in the loop's next task; while events keep coming, at most once per delay")
    func sharesWritesOnlyUnderLoad() {
        let loop = EmbeddedEventLoop()
        let flusher = StreamFlusher<Probe>(eventLoop: loop, delay: .milliseconds(10))
        let first = Probe(loop), second = Probe(loop)

        flusher.flush([first])
        #expect(first.flushedAt.isEmpty)
        loop.run()
        #expect(first.flushedAt == [0])

        // 2 ms later two commits come: both wait for the 10 ms since the last flush, and go together.
        loop.advanceTime(by: .milliseconds(2))
        flusher.flush([first, second])
        loop.advanceTime(by: .milliseconds(3))
        flusher.flush([second])
        loop.advanceTime(by: .milliseconds(4))
        #expect(first.flushedAt == [0])
        #expect(second.flushedAt.isEmpty)
        loop.advanceTime(by: .milliseconds(1))
        #expect(first.flushedAt == [0, 10])
        #expect(Set(second.flushedAt) == [10])

        // A quiet spell: the next event goes at once.
        loop.advanceTime(by: .milliseconds(50))
        flusher.flush([second])
        loop.run()
        #expect(second.flushedAt.last == 60)
    }

    @Test("with no delay every commit is flushed in the next task")
    func noDelay() {
        let loop = EmbeddedEventLoop()
        let flusher = StreamFlusher<Probe>(eventLoop: loop, delay: .zero)
        let stream = Probe(loop)
        for _ in 0..<3 {
            flusher.flush([stream])
            loop.run()
            loop.advanceTime(by: .milliseconds(1))
        }
        #expect(stream.flushedAt == [0, 1, 2])
    }
}
