import Foundation
import Testing
@testable import wsx_web

/// Workspaces' audit logs and the server's security log: the same tests on each backend
/// (`ConformanceNode`).
@Suite("Audit and security logs on both backends", .timeLimit(.minutes(5)))
struct AuditStoresConformanceTests {
    typealias Stores = (audit: any AuditStore, securityLog: any SecurityLogStore, rows: any ConformanceRows)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.audit, $0.securityLog, SQLiteConformanceRows(tx: $0)) },
                                       postgres: { (PostgresAuditStore(session: $0), PostgresSecurityLogStore(session: $0),
                                                    PostgresConformanceRows(session: $0)) }) {
            try await body($0[0])
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.375)

    /// `minutes` after the start.
    private static func at(_ minutes: Double) -> Date {
        start.addingTimeInterval(minutes * 60)
    }

    /// A workspace's owner and a member, two workspaces and a channel of the first.
    private struct Scene: Sendable {
        let owner, member, acme, beta, channel: Int64
    }

    private static func scene(_ node: ConformanceNode<Stores>) async throws -> Scene {
        try await node.answer { stores in
            let owner = try stores.rows.person("olive@example.com", nickname: "Olive")
            let member = try stores.rows.person("milo@example.com", nickname: "Milo")
            let acme = try stores.rows.workspace("Acme", ownerId: owner)
            return Scene(owner: owner, member: member, acme: acme, beta: try stores.rows.workspace("Beta", ownerId: owner),
                         channel: try stores.rows.room(workspaceId: acme, kind: .channel, name: "general"))
        }
    }

    @Test("a workspace's log reads newest first with the names it mentions, at most the limit, its own lines alone",
          arguments: StorageBackend.allCases)
    func workspaceLog(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let scene = try await Self.scene(node)
            try await node.answer { stores in
                try stores.audit.record(workspaceId: scene.acme, actor: scene.owner, action: "workspace.created", at: Self.at(0))
                try stores.audit.record(workspaceId: scene.beta, actor: scene.owner, action: "workspace.created", at: Self.at(0))
                // Two lines of one change share its time: the later one still reads first.
                try stores.audit.record(workspaceId: scene.acme, actor: scene.owner, action: "member.invited",
                                        targetUser: scene.member, detail: "milo@example.com", at: Self.at(1))
                try stores.audit.record(workspaceId: scene.acme, actor: nil, action: "channel.renamed", targetRoom: scene.channel,
                                        detail: "random → general", at: Self.at(1))
                // Written last by a node whose clock is behind: it reads first all the same.
                try stores.audit.record(workspaceId: scene.acme, actor: scene.member, action: "channel.left", at: Self.at(0))
            }
            let lines = try await node.answer { try $0.audit.lines(workspaceId: scene.acme, limit: 10) }
            #expect(lines.map(\.action) == ["channel.left", "channel.renamed", "member.invited", "workspace.created"])
            #expect(lines.map(\.createdAt) == [Self.at(0), Self.at(1), Self.at(1), Self.at(0)])
            try #require(lines.count == 4)
            let (left, renamed, invited) = (lines[0], lines[1], lines[2])
            #expect(left.actor == "Milo" && left.target == nil && left.room == nil)
            #expect(renamed.actor == nil && renamed.target == nil && renamed.room == "general" && renamed.detail == "random → general")
            #expect(invited.actor == "Olive" && invited.target == "Milo" && invited.room == nil && invited.detail == "milo@example.com")
            #expect(lines.last?.detail == "", "no detail unless given")

            #expect(try await node.answer { try $0.audit.lines(workspaceId: scene.acme, limit: 2).map(\.action) }
                    == ["channel.left", "channel.renamed"])
            #expect(try await node.answer { try $0.audit.lines(workspaceId: scene.beta, limit: 10).count } == 1)
            #expect(try await node.answer { try $0.audit.lines(workspaceId: 999_999, limit: 10).isEmpty })
        }
    }

    @Test("the export reads every workspace's lines from a time on, oldest first, with addresses and names",
          arguments: StorageBackend.allCases)
    func workspaceExport(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let scene = try await Self.scene(node)
            try await node.answer { stores in
                try stores.audit.record(workspaceId: scene.acme, actor: scene.owner, action: "too.early", at: Self.at(0))
                try stores.audit.record(workspaceId: scene.acme, actor: scene.owner, action: "member.removed", targetUser: scene.member,
                                        targetRoom: 999_999, detail: "Milo", at: Self.at(3))
                try stores.audit.record(workspaceId: scene.beta, actor: nil, action: "channel.created", targetRoom: scene.channel,
                                        at: Self.at(2))
                try stores.audit.record(workspaceId: scene.acme, actor: scene.member, action: "at.the.start", at: Self.at(1))
            }
            let exported = try await node.answer { stores in
                var lines: [WorkspaceAuditExportLine] = []
                try stores.audit.each(since: Self.at(1)) { lines.append($0) }
                return lines
            }
            #expect(exported.map(\.action) == ["at.the.start", "channel.created", "member.removed"], "by time, not as written")
            #expect(exported.map(\.at) == [Self.at(1), Self.at(2), Self.at(3)])
            let removed = try #require(exported.last)
            #expect(removed.actor == "olive@example.com" && removed.target == "milo@example.com" && removed.detail == "Milo")
            #expect(removed.workspaceId == scene.acme && removed.workspace == "Acme" && removed.room == nil, "no such room")
            let created = exported[1]
            #expect(created.actor == nil && created.target == nil && created.workspace == "Beta" && created.room == "general")
            #expect(exported.first?.actor == "milo@example.com")

            let none = try await node.answer { stores in
                var count = 0
                try stores.audit.each(since: Self.at(3).addingTimeInterval(0.001)) { _ in count += 1 }
                return count
            }
            #expect(none == 0)
        }
    }

    @Test("the security log reads newest first, a page before an id, with the accounts' addresses; what it keeps is capped",
          arguments: StorageBackend.allCases)
    func securityLog(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (admin, person) = (try await node.person("admin@example.com"), try await node.person("person@example.com"))
            let typed = String(repeating: "k", count: 300) + "@example.com"
            let address = String(repeating: "2001:db8:", count: 10)
            let detail = String(repeating: "가", count: 600)
            try await node.answer { stores in
                try stores.securityLog.record(.signIn, actor: person, address: "203.0.113.5", email: "person@example.com", at: Self.at(0))
                try stores.securityLog.record(.signInFailed, address: address, email: typed, detail: detail, at: Self.at(1))
                try stores.securityLog.record(.deactivated, actor: admin, target: person, workspaceId: 7, detail: "spam", at: Self.at(2))
            }
            let lines = try await node.answer { try $0.securityLog.lines(limit: 10, beforeId: nil) }
            #expect(lines.map(\.action) == ["deactivated", "sign_in_failed", "sign_in"])
            #expect(lines.map(\.at) == [Self.at(2), Self.at(1), Self.at(0)])
            let deactivated = try #require(lines.first), failed = lines[1], signIn = lines[2]
            #expect(deactivated.actor == "admin@example.com" && deactivated.target == "person@example.com")
            #expect(deactivated.workspaceId == 7 && deactivated.detail == "spam" && deactivated.address == "" && deactivated.email == "")
            #expect(signIn.actor == "person@example.com" && signIn.target == nil && signIn.workspaceId == nil)
            #expect(signIn.address == "203.0.113.5" && signIn.email == "person@example.com")
            #expect(failed.actor == nil && failed.address == String(address.prefix(64)))
            #expect(failed.email == LoginThrottle.capped(typed) && failed.email.utf8.count == SecurityLog.emailBytes)
            #expect(failed.detail == String(detail.prefix(500)))

            let page = try await node.answer { try $0.securityLog.lines(limit: 1, beforeId: deactivated.id) }
            #expect(page.map(\.id) == [failed.id])
            #expect(try await node.answer { try $0.securityLog.lines(limit: 10, beforeId: signIn.id).isEmpty })
        }
    }

    @Test("the security log's export reads the lines from a time on, oldest first, one at a time",
          arguments: StorageBackend.allCases)
    func securityExport(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let person = try await node.person("person@example.com")
            try await node.answer { stores in
                // More lines than an export fetches at a time.
                for index in 0..<1_200 {
                    try stores.securityLog.record(.signIn, actor: person, detail: "\(index)", at: Self.at(Double(index) / 60))
                }
            }
            let details = try await node.answer { stores in
                var details: [String] = []
                try stores.securityLog.each(since: Self.at(10)) { details.append($0.detail) }
                return details
            }
            #expect(details == (600..<1_200).map(String.init))
            let actors = try await node.answer { stores in
                var actors: Set<String?> = []
                try stores.securityLog.each(since: Self.at(19)) { actors.insert($0.actor) }
                return actors
            }
            #expect(actors == ["person@example.com"])

            // A line refused part way through stops the export; another export in the same
            // transaction reads from the start again.
            struct Enough: Error {}
            let (stopped, again) = try await node.answer { stores in
                var stopped: [String] = []
                do {
                    try stores.securityLog.each(since: Self.at(0)) { line in
                        stopped.append(line.detail)
                        if line.detail == "3" { throw Enough() }
                    }
                } catch is Enough {}
                var again = 0
                try stores.securityLog.each(since: Self.at(19)) { _ in again += 1 }
                return (stopped, again)
            }
            #expect(stopped == ["0", "1", "2", "3"] && again == 60)
        }
    }
}
