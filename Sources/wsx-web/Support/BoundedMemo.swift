import Synchronization

/// Values computed from their key alone, kept up to `capacity` (then all dropped at once: what
/// is still in use is computed again on its next use).
final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func value(for key: Key, compute: () -> Value) -> Value {
        if let kept = entries.withLock({ $0[key] }) { return kept }
        let value = compute()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
        return value
    }
}
