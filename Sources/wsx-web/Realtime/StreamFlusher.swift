import NIOCore
import Synchronization

/// A stream whose queued frames can be sent.
protocol FlushableStream {
    /// Sends what was queued (on the stream's event loop).
    func flushIfNeeded()
}

/// Sends the frames queued on one event loop's streams to their sockets.
///
/// A write to a socket is most of what a delivered event costs (under the posts benchmark, one
/// write per listener per commit was 14% of the server's CPU). After a quiet spell the flush
/// comes in the loop's next task, as soon as the frames are queued; while events keep coming,
/// at most once per `delay`, so the events of several commits share a write. The delay bounds
/// how much later an event arrives under load; zero flushes every commit in the next task.
final class StreamFlusher<Stream: FlushableStream> {
    private let eventLoop: any EventLoop
    private let delay: TimeAmount
    private var waiting: [Stream] = []
    private var lastFlush: NIODeadline?
    private var isScheduled = false

    init(eventLoop: any EventLoop, delay: TimeAmount) {
        self.eventLoop = eventLoop
        self.delay = delay
    }

    /// Flushes `streams` (called on the loop, once their frames are queued).
    func flush(_ streams: some Sequence<Stream>) {
        waiting.append(contentsOf: streams)
        guard !isScheduled else { return }
        isScheduled = true
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        if let lastFlush, lastFlush + delay > eventLoop.now {
            eventLoop.scheduleTask(deadline: lastFlush + delay) { bound.value.flushWaiting() }
        } else {
            eventLoop.execute { bound.value.flushWaiting() }
        }
    }

    private func flushWaiting() {
        isScheduled = false
        lastFlush = eventLoop.now
        let streams = waiting
        waiting = []
        for stream in streams { stream.flushIfNeeded() }
    }
}

/// One `StreamFlusher` per event loop, made when the loop's first stream opens.
final class StreamFlushers: Sendable {
    private let delay: TimeAmount
    private let byLoop = Mutex<[ObjectIdentifier: NIOLoopBound<StreamFlusher<EventStreamHandle>>]>([:])

    init(delay: Duration) {
        self.delay = TimeAmount(delay)
    }

    /// The flusher of `eventLoop` (called on that loop).
    func flusher(on eventLoop: any EventLoop) -> NIOLoopBound<StreamFlusher<EventStreamHandle>> {
        byLoop.withLock { flushers in
            let key = ObjectIdentifier(eventLoop)
            if let existing = flushers[key] { return existing }
            let made = NIOLoopBound(StreamFlusher<EventStreamHandle>(eventLoop: eventLoop, delay: delay), eventLoop: eventLoop)
            flushers[key] = made
            return made
        }
    }
}
