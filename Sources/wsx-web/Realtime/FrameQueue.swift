import NIOCore
import Synchronization

/// One open stream's waiting SSE frames. The hub offers frames; the stream's writer takes all
/// that are waiting at once, so a busy stream writes many events per socket write instead of
/// one write (and one task wake-up) per event.
///
/// Bounded: an offer to a full queue is refused and the hub disconnects that slow reader, which
/// reconnects and replays (never a silent skip). Finishing lets the writer take what is left,
/// then ends it; a writer whose task is cancelled (the browser went away) ends at once.
final class FrameQueue: Sendable {
    enum Offer: Equatable { case accepted, full, finished }

    private struct State {
        var frames: [ByteBuffer] = []
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?
        var isFinished = false
        var onTermination: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    private let capacity: Int

    /// `onTermination` runs once, when the queue finishes for any reason.
    init(capacity: Int, onTermination: (@Sendable () -> Void)? = nil) {
        self.capacity = capacity
        state = Mutex(State(onTermination: onTermination))
    }

    func offer(_ frame: ByteBuffer) -> Offer {
        let (result, waiter): (Offer, CheckedContinuation<[ByteBuffer]?, Never>?) = state.withLock { state in
            if state.isFinished { return (.finished, nil) }
            if state.frames.count >= capacity { return (.full, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.accepted, waiter)
            }
            state.frames.append(frame)
            return (.accepted, nil)
        }
        waiter?.resume(returning: [frame])
        return result
    }

    /// Every frame waiting, oldest first, waiting for one if there is none; nil once finished
    /// and drained, or when the calling task is cancelled.
    func next() async -> [ByteBuffer]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[ByteBuffer]?, Never>) in
                let ready: [ByteBuffer]?? = state.withLock { state in
                    if !state.frames.isEmpty {
                        defer { state.frames.removeAll(keepingCapacity: true) }
                        return .some(state.frames)
                    }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the queue: the writer gets what is waiting, then nil.
    func finish() {
        let (waiter, onTermination) = state.withLock { state -> (CheckedContinuation<[ByteBuffer]?, Never>?, (@Sendable () -> Void)?) in
            guard !state.isFinished else { return (nil, nil) }
            state.isFinished = true
            defer { state.waiter = nil; state.onTermination = nil }
            return (state.waiter, state.onTermination)
        }
        waiter?.resume(returning: nil)
        onTermination?()
    }
}
