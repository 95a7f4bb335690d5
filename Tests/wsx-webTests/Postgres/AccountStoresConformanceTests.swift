import Foundation
import Testing
import Views
@testable import wsx_web

/// Accounts, statuses and two-step sign-in: the same tests on each backend (`ConformanceNode`).
@Suite("Accounts, statuses and two-step sign-in on both backends", .timeLimit(.minutes(5)))
struct AccountStoresConformanceTests {
    typealias Stores = (accounts: any AccountStore, statuses: any StatusStore, twoStep: any TwoStepStore)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.accounts, $0.statuses, $0.twoStep) },
                                       postgres: { (PostgresAccountStore(session: $0), PostgresStatusStore(session: $0),
                                                    PostgresTwoStepStore(session: $0)) }) {
            try await body($0[0])
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.5)

    private static func account(_ email: String, nickname: String, password: String = "hash") -> User {
        User(email: email, emailKey: User.key(forEmail: email), nickname: nickname, phone: nil, passwordHash: password,
             lang: nil, createdAt: start, updatedAt: start)
    }

    @Test("an account is stored once per address, found by id and address, and keeps every field it is saved with",
          arguments: StorageBackend.allCases)
    func accounts(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let mina = try await node.answer { try $0.accounts.insert(Self.account("Mina@Example.com", nickname: "민아")) }
            #expect(mina.id != nil)
            await #expect(throws: DuplicateKey.self) {
                try await node.answer { try $0.accounts.insert(Self.account("MINA@example.com", nickname: "다른 민아")) }
            }
            let found = try await node.answer { try $0.accounts.user(emailKey: "mina@example.com") }
            #expect(found == mina)
            #expect(try await node.answer { try $0.accounts.user(id: mina.id!) } == mina)
            #expect(try await node.answer { try $0.accounts.user(id: 999_999) } == nil)
            #expect(try await node.answer { try $0.accounts.count() } == 1)
            #expect(try await node.answer { try $0.accounts.hasAccount(emailKey: "mina@example.com") })
            #expect(try await node.answer { try $0.accounts.hasAccount(emailKey: "bob@example.com") } == false)

            var changed = mina
            changed.nickname = "김민아"
            changed.phone = "010-1234-5678"
            changed.lang = "ko"
            changed.notifyDefault = NotifyLevel.all.rawValue
            changed.updatedAt = Self.start.addingTimeInterval(60)
            let saved = changed
            try await node.answer { try $0.accounts.update(saved) }
            #expect(try await node.answer { try $0.accounts.user(id: mina.id!) } == saved)

            let later = Self.start.addingTimeInterval(120)
            try await node.answer { try $0.accounts.setPassword(hash: "new-hash", userId: mina.id!, at: later) }
            try await node.answer { try $0.accounts.setLanguage("en", userId: mina.id!) }
            try await node.answer { try $0.accounts.confirmEmail(userId: mina.id!, at: later) }
            let stored = try #require(try await node.answer { try $0.accounts.user(id: mina.id!) })
            #expect(stored.passwordHash == "new-hash" && stored.updatedAt == later && stored.lang == "en" && stored.emailConfirmedAt == later)

            #expect(try await node.answer { try $0.accounts.mailDigest(userId: mina.id!) } == true, "on until turned off")
            try await node.answer { try $0.accounts.setMailDigest(false, userId: mina.id!) }
            #expect(try await node.answer { try $0.accounts.mailDigest(userId: mina.id!) } == false)
            #expect(try await node.answer { try $0.accounts.mailDigest(userId: 999_999) } == nil)
        }
    }

    @Test("an imported account without a password is found as such until it has one", arguments: StorageBackend.allCases)
    func passwordless(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let imported = try await node.answer { try $0.accounts.insert(Self.account("imported@example.com", nickname: "Im", password: "")) }
            #expect(try await node.answer { try $0.accounts.passwordlessUser(emailKey: "imported@example.com") }?.id == imported.id)
            try await node.answer { try $0.accounts.setPassword(hash: "set", userId: imported.id!, at: Self.start) }
            #expect(try await node.answer { try $0.accounts.passwordlessUser(emailKey: "imported@example.com") } == nil)
        }
    }

    @Test("the administrators' search matches address or name in any case, active accounts first, newest first",
          arguments: StorageBackend.allCases)
    func search(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let old = try await node.answer { try $0.accounts.insert(Self.account("kim.old@example.com", nickname: "Old Kim")) }
            let gone = try await node.answer { try $0.accounts.insert(Self.account("kim.gone@example.com", nickname: "Gone", password: "")) }
            let new = try await node.answer { try $0.accounts.insert(Self.account("new@example.com", nickname: "KIM New")) }
            _ = try await node.answer { try $0.accounts.insert(Self.account("lee@example.com", nickname: "Lee")) }
            let seen = Self.start.addingTimeInterval(300)
            try await node.answer { try $0.accounts.noteSeen(userId: new.id!, at: seen) }
            try await node.answer { try $0.accounts.deactivate(userId: gone.id!, at: seen) }
            try await node.answer { try $0.twoStep.enable(userId: old.id!, step: 1, at: seen) }

            let found = try await node.answer { try $0.accounts.accounts(matching: ContainsPattern.of("kim"), limit: 10) }
            #expect(found.map(\.id) == [new.id!, old.id!, gone.id!])
            #expect(found[0].lastSeenAt == seen && found[0].nickname == "KIM New" && !found[0].twoStep && found[0].hasPassword)
            #expect(found[1].twoStep && found[1].lastSeenAt == nil)
            #expect(found[2].deactivatedAt == seen && !found[2].hasPassword && found[2].workspaces == 0)
            let first = try await node.answer { try $0.accounts.accounts(matching: ContainsPattern.of("kim"), limit: 1) }
            #expect(first.map(\.id) == [new.id!])
            let literal = try await node.answer { try $0.accounts.accounts(matching: ContainsPattern.of("k_m"), limit: 10) }
            #expect(literal.isEmpty, "an underscore is a character, not a wildcard")
        }
    }

    @Test("administrators are counted and listed while active; deactivation and reactivation stick",
          arguments: StorageBackend.allCases)
    func administrators(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let first = try await node.answer { try $0.accounts.insert(Self.account("first@example.com", nickname: "First")) }
            let second = try await node.answer { try $0.accounts.insert(Self.account("second@example.com", nickname: "Second")) }
            for person in [first, second] {
                try await node.answer { try $0.accounts.setAdministrator(true, userId: person.id!, at: Self.start) }
            }
            #expect(try await node.answer { try $0.accounts.administratorEmails() } == ["first@example.com", "second@example.com"])
            #expect(try await node.answer { try $0.accounts.otherActiveAdministrators(besides: first.id!) } == 1)
            let later = Self.start.addingTimeInterval(10)
            try await node.answer { try $0.accounts.deactivate(userId: second.id!, at: later) }
            #expect(try await node.answer { try $0.accounts.otherActiveAdministrators(besides: first.id!) } == 0)
            #expect(try await node.answer { try $0.accounts.administratorEmails() } == ["first@example.com"])
            let deactivated = try #require(try await node.answer { try $0.accounts.user(id: second.id!) })
            #expect(!deactivated.isActive && deactivated.updatedAt == later)
            try await node.answer { try $0.accounts.reactivate(userId: second.id!, at: later) }
            #expect(try await node.answer { try $0.accounts.user(id: second.id!) }?.isActive == true)
            try await node.answer { try $0.accounts.setAdministrator(false, userId: second.id!, at: later) }
            #expect(try await node.answer { try $0.accounts.administratorEmails() } == ["first@example.com"])
        }
    }

    @Test("deleting an account removes it with its own rows, and is refused while it owns a workspace",
          arguments: StorageBackend.allCases)
    func delete(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let owner = try await node.person("owner@example.com")
            let leaver = try await node.person("leaver@example.com")
            try await node.fixture("""
                INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at)
                VALUES (10, 'Team', 'team', \(owner), '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')
                """)
            try await node.answer { try $0.statuses.set(userId: leaver, emoji: "🌴", text: "휴가", expiresAt: nil, at: Self.start) }
            try await node.answer { try $0.accounts.delete(userId: leaver) }
            #expect(try await node.answer { try $0.accounts.user(id: leaver) } == nil)
            #expect(try await node.answer { try $0.statuses.current(of: [leaver], at: Self.start) }.isEmpty)
            await #expect(throws: (any Error).self) { try await node.answer { try $0.accounts.delete(userId: owner) } }
            #expect(try await node.answer { try $0.accounts.user(id: owner) } != nil, "the refused delete left the owner")
        }
    }

    @Test("a status replaces the one before, is gone once expired or cleared, and is announced in default channels",
          arguments: StorageBackend.allCases)
    func statuses(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let mina = try await node.person("mina@example.com")
            let bob = try await node.person("bob@example.com")
            let hour = Self.start.addingTimeInterval(3600)
            try await node.answer { try $0.statuses.set(userId: mina, emoji: "🤒", text: "병가", expiresAt: nil, at: Self.start) }
            try await node.answer { try $0.statuses.set(userId: mina, emoji: "📅", text: "회의 중", expiresAt: hour, at: Self.start) }
            try await node.answer { try $0.statuses.set(userId: bob, emoji: "🏠", text: "재택", expiresAt: nil, at: Self.start) }
            let now = try await node.answer { try $0.statuses.current(of: [mina, bob, 999_999], at: Self.start) }
            #expect(now == [mina: UserStatus(emoji: "📅", text: "회의 중", expiresAt: hour), bob: UserStatus(emoji: "🏠", text: "재택", expiresAt: nil)])
            #expect(try await node.answer { try $0.statuses.current(of: [mina, bob], at: hour) }.keys.sorted() == [bob])
            #expect(try await node.answer { try $0.statuses.current(of: [], at: hour) }.isEmpty)
            try await node.answer { try $0.statuses.clear(userId: bob) }
            #expect(try await node.answer { try $0.statuses.current(of: [bob], at: Self.start) }.isEmpty)

            for sql in [
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (10, 'A', 'a', \(mina), '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (11, 'B', 'b', \(bob), '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(mina), 'owner', '2026-11-01 09:00:00.000')",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (11, \(bob), 'owner', '2026-11-01 09:00:00.000')",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (100, 10, 'channel', 'general', 'general', TRUE, '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (101, 10, 'channel', 'random', 'random', FALSE, '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (110, 11, 'channel', 'general', 'general', TRUE, '2026-11-01 09:00:00.000', '2026-11-01 09:00:00.000')",
            ] { try await node.fixture(sql) }
            #expect(try await node.answer { try $0.statuses.announcementRooms(userId: mina) } == [100])
        }
    }

    @Test("two-step sign-in: a secret waits until enabled, each step and recovery code is taken once, disabling clears all",
          arguments: StorageBackend.allCases)
    func twoStep(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let person = try await node.person("totp@example.com")
            #expect(try await node.answer { try $0.twoStep.state(userId: 999_999) } == nil)
            let off = try #require(try await node.answer { try $0.twoStep.state(userId: person) })
            #expect(off.secret == nil && off.enabledAt == nil && off.lastStep == 0)
            try await node.answer { try $0.twoStep.setSecret("JBSWY3DPEHPK3PXP", userId: person) }
            let waiting = try #require(try await node.answer { try $0.twoStep.state(userId: person) })
            #expect(waiting.secret == "JBSWY3DPEHPK3PXP" && waiting.enabledAt == nil)
            try await node.answer { try $0.twoStep.enable(userId: person, step: 59_000_000, at: Self.start) }
            try await node.answer { try $0.twoStep.acceptStep(59_000_001, userId: person) }
            let on = try #require(try await node.answer { try $0.twoStep.state(userId: person) })
            #expect(on.enabledAt == Self.start && on.lastStep == 59_000_001)
            #expect(try await node.answer { try $0.accounts.user(id: person) }?.twoStepEnabledAt == Self.start)

            try await node.answer { try $0.twoStep.replaceRecoveryCodes(hashes: ["h1", "h2", "h3"], userId: person) }
            #expect(try await node.answer { try $0.twoStep.recoveryCodesLeft(userId: person) } == 3)
            #expect(try await node.answer { try $0.twoStep.useRecoveryCode(hash: "h2", userId: person, at: Self.start) })
            #expect(try await node.answer { try $0.twoStep.useRecoveryCode(hash: "h2", userId: person, at: Self.start) } == false)
            #expect(try await node.answer { try $0.twoStep.useRecoveryCode(hash: "nope", userId: person, at: Self.start) } == false)
            #expect(try await node.answer { try $0.twoStep.recoveryCodesLeft(userId: person) } == 2)
            try await node.answer { try $0.twoStep.replaceRecoveryCodes(hashes: ["n1", "n2"], userId: person) }
            #expect(try await node.answer { try $0.twoStep.useRecoveryCode(hash: "h1", userId: person, at: Self.start) } == false,
                    "new codes replace the old")
            #expect(try await node.answer { try $0.twoStep.recoveryCodesLeft(userId: person) } == 2)

            try await node.answer { try $0.twoStep.disable(userId: person, at: Self.start) }
            let disabled = try #require(try await node.answer { try $0.twoStep.state(userId: person) })
            #expect(disabled.secret == nil && disabled.enabledAt == nil && disabled.lastStep == 0)
            #expect(try await node.answer { try $0.twoStep.recoveryCodesLeft(userId: person) } == 0)
        }
    }
}
