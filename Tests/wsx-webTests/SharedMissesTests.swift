import Synchronization
import Testing
@testable import wsx_web

/// Many page requests missing the same kept read at once (right after a post) read it once.
@Suite("Reads missed together", .timeLimit(.minutes(2)))
struct SharedMissesTests {
    /// A value kept in memory, as a cache keeps a page's reads: `memory` answers it or throws
    /// `NotKeptInMemory`; `read` counts the reads that would go to the database.
    final class Kept: Sendable {
        private let value = Mutex<String?>(nil)
        private let reads = Mutex(0)
        var readCount: Int { reads.withLock { $0 } }

        func memory() throws -> String {
            guard let value = value.withLock({ $0 }) else { throw NotKeptInMemory() }
            return value
        }

        /// A read that ends once `release` says so; keeps its value unless `keeps` is false.
        func read(keeps: Bool = true, until release: @Sendable () async -> Void) async throws -> String {
            reads.withLock { $0 += 1 }
            await release()
            if keeps { value.withLock { $0 = "rows" } }
            return "rows"
        }

    }

    /// Holds reads until it opens.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// Starts `count` requests for `key` and lets the reads end once each request reads or waits.
    private func missTogether(_ misses: SharedMisses, _ kept: Kept, key: Int = 1, count: Int, keeps: Bool = true,
                              failing: Bool = false) async throws -> [Result<String, any Error>] {
        let gate = Gate()
        defer { gate.open() }   // a failed wait (the time limit) must not leave the reads held
        return try await withThrowingTaskGroup(of: Result<String, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        return .success(try await misses.answer(key, memory: kept.memory) {
                            _ = try await kept.read(keeps: keeps, until: gate.wait)
                            if failing { throw CancellationError() }
                            return "rows"
                        })
                    } catch {
                        return .failure(error)
                    }
                }
            }
            // Every request either reads (held at the gate) or waits for another's read.
            while misses.waiters + kept.readCount < count { try await Task.sleep(for: .milliseconds(1)) }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("requests that miss the same read at once read it once, and each gets its value")
    func onceForAll() async throws {
        let misses = SharedMisses(), kept = Kept()
        let answers = try await missTogether(misses, kept, count: 12)
        #expect(kept.readCount == 1)
        #expect(answers.map { try? $0.get() } == Array(repeating: "rows", count: 12))
        #expect(misses.underWay == 0)
        // Kept now: the next request reads nothing.
        _ = try await misses.answer(1, memory: kept.memory) { try await kept.read { } }
        #expect(kept.readCount == 1)
    }

    @Test("when a read keeps nothing (a commit landed during it), the requests that waited for it read for themselves")
    func staleReadKeepsNothing() async throws {
        let misses = SharedMisses(turns: 2), kept = Kept()
        let answers = try await missTogether(misses, kept, count: 4, keeps: false)
        #expect(answers.allSatisfy { (try? $0.get()) == "rows" })
        // Nothing was kept, so each request read for itself in the end (none was handed another's
        // answer), after waiting at most its turns.
        #expect(kept.readCount == 4)
        #expect(misses.underWay == 0)
    }

    @Test("a read that fails does not leave the requests waiting for it stuck")
    func failingRead() async throws {
        let misses = SharedMisses(), kept = Kept()
        let answers = try await missTogether(misses, kept, count: 5, keeps: false, failing: true)
        #expect(answers.count == 5)
        #expect(answers.allSatisfy { if case .failure = $0 { true } else { false } })
        #expect(misses.underWay == 0)
    }

    @Test("different keys do not wait for each other")
    func keysApart() async throws {
        let misses = SharedMisses(), first = Kept(), second = Kept()
        let gate = Gate()
        defer { gate.open() }
        async let slow = misses.answer(1, memory: first.memory) { try await first.read(until: gate.wait) }
        while misses.underWay == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // Key 2 reads while key 1's read is still under way.
        #expect(try await misses.answer(2, memory: second.memory) { try await second.read { } } == "rows")
        gate.open()
        #expect(try await slow == "rows")
        #expect(first.readCount == 1)
        #expect(second.readCount == 1)
    }
}
