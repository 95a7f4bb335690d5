import Foundation
import Testing
import Views
@testable import wsx_web

/// Sessions and password reset links: the same tests on each backend (`ConformanceNode`).
@Suite("Sessions and password resets on both backends", .timeLimit(.minutes(5)))
struct SessionStoresConformanceTests {
    typealias Stores = (sessions: any SessionRecordStore, resets: any PasswordResetStore)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.sessions, $0.passwordResets) },
                                       postgres: { (PostgresSessionRecordStore(session: $0), PostgresPasswordResetStore(session: $0)) }) {
            try await body($0[0])
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.25)

    private static func session(_ token: String, userId: Int64, minutes: Double) -> Session {
        Session(id: nil, tokenHash: token, userId: userId, csrfToken: "csrf-\(token)", userAgent: token == "a" ? "Firefox" : nil,
                createdAt: start, refreshedAt: start, expiresAt: start.addingTimeInterval(minutes * 60))
    }

    @Test("a session is found by its token's hash with its account, refreshed, and ended alone or with the others",
          arguments: StorageBackend.allCases)
    func sessions(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (one, other) = (try await node.person("one@example.com"), try await node.person("other@example.com"))
            let a = try await node.answer { try $0.sessions.insert(Self.session("a", userId: one, minutes: 60)) }
            let b = try await node.answer { try $0.sessions.insert(Self.session("b", userId: one, minutes: 60)) }
            let c = try await node.answer { try $0.sessions.insert(Self.session("c", userId: other, minutes: 60)) }
            #expect(try await node.answer { try $0.sessions.session(tokenHash: "a") } == a)
            #expect(try await node.answer { try $0.sessions.session(tokenHash: "zz") } == nil)
            let account = try #require(try await node.answer { try $0.sessions.user(id: one) })
            #expect(account.email == "one@example.com" && account.id == one && account.isActive && !account.isAdmin)
            #expect(account.coinBalance == 0 && account.notifyDefault == NotifyLevel.standard.rawValue)
            #expect(try await node.answer { try $0.sessions.user(id: 999_999) } == nil)

            let later = Self.start.addingTimeInterval(600)
            try await node.answer { try $0.sessions.refresh(id: a.id!, refreshedAt: later, expiresAt: later.addingTimeInterval(3600)) }
            let refreshed = try await node.answer { try $0.sessions.session(tokenHash: "a") }
            #expect(refreshed?.refreshedAt == later && refreshed?.expiresAt == later.addingTimeInterval(3600))

            #expect(try await node.answer { try $0.sessions.delete(id: c.id!) })
            #expect(try await node.answer { try $0.sessions.delete(id: c.id!) } == false)
            #expect(Set(try await node.answer { try $0.sessions.deleteAll(userId: one) }) == [a.id!, b.id!])
            #expect(try await node.answer { try $0.sessions.session(tokenHash: "b") } == nil)
        }
    }

    @Test("expired sessions and those past their maximum age are swept; live ones stay", arguments: StorageBackend.allCases)
    func sweep(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let person = try await node.person("sweep@example.com")
            _ = try await node.answer { try $0.sessions.insert(Self.session("short", userId: person, minutes: 5)) }
            _ = try await node.answer { try $0.sessions.insert(Self.session("long", userId: person, minutes: 600)) }
            let tenMinutesOn = Self.start.addingTimeInterval(600)
            #expect(try await node.answer { try $0.sessions.deleteExpired(at: tenMinutesOn, startedBefore: Self.start.addingTimeInterval(-1)) } == 1)
            #expect(try await node.answer { try $0.sessions.session(tokenHash: "long") } != nil)
            #expect(try await node.answer { try $0.sessions.deleteExpired(at: tenMinutesOn, startedBefore: Self.start) } == 1)
            #expect(try await node.answer { try $0.sessions.session(tokenHash: "long") } == nil)
        }
    }

    @Test("a reset link works once, until it expires; spent and expired links are removed", arguments: StorageBackend.allCases)
    func resets(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let person = try await node.person("reset@example.com")
            let hour = Self.start.addingTimeInterval(3600)
            for token in ["r1", "r2", "r3"] {
                try await node.answer {
                    try $0.resets.insert(PasswordReset(id: nil, tokenHash: token, userId: person, createdAt: Self.start, expiresAt: hour, usedAt: nil))
                }
            }
            let live = try #require(try await node.answer { try $0.resets.live(tokenHash: "r1", at: Self.start) })
            #expect(live.userId == person && live.expiresAt == hour && live.usedAt == nil)
            #expect(try await node.answer { try $0.resets.live(tokenHash: "r2", at: hour) } == nil, "expired at its hour")
            try await node.answer { try $0.resets.markUsed(id: live.id!, at: Self.start) }
            #expect(try await node.answer { try $0.resets.live(tokenHash: "r1", at: Self.start) } == nil)
            #expect(try await node.answer { try $0.resets.reset(tokenHash: "r1") }?.usedAt == Self.start)
            try await node.answer { try $0.resets.deleteSpent(at: Self.start) }
            #expect(try await node.answer { try $0.resets.reset(tokenHash: "r1") } == nil)
            #expect(try await node.answer { try $0.resets.reset(tokenHash: "r2") } != nil)
            try await node.answer { try $0.resets.removeAll(userId: person) }
            #expect(try await node.answer { try $0.resets.reset(tokenHash: "r3") } == nil)
        }
    }
}
