import Foundation
import Testing
@testable import wsx_web

/// Invitations to workspaces and their join links: the same tests on each backend
/// (`ConformanceNode`).
@Suite("Invitations and join links on both backends", .timeLimit(.minutes(5)))
struct InvitationStoreConformanceTests {
    typealias Stores = (invitations: any InvitationStore, rows: any ConformanceRows)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.invitations, SQLiteConformanceRows(tx: $0)) },
                                       postgres: { (PostgresInvitationStore(session: $0), PostgresConformanceRows(session: $0)) }) {
            try await body($0[0])
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.625)

    /// `minutes` after the start.
    private static func at(_ minutes: Double) -> Date {
        start.addingTimeInterval(minutes * 60)
    }

    /// An invitation not stored yet, made at the start.
    private static func invitation(_ tokenHash: String, to email: String, workspaceId: Int64, by inviter: Int64,
                                   expiresAt: Date = at(60), nonce: String? = "nonce", claimsAccount: Bool = false) -> Invite {
        Invite(id: nil, workspaceId: workspaceId, email: email, emailKey: email.lowercased(), tokenHash: tokenHash, tokenNonce: nonce,
               invitedBy: inviter, createdAt: start, expiresAt: expiresAt, usedAt: nil, declinedAt: nil, revokedAt: nil,
               claimsAccount: claimsAccount)
    }

    @Test("an invitation is found by id and by its token's hash, and is pending until used, declined, revoked or expired",
          arguments: StorageBackend.allCases)
    func pending(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let owner = try await node.person("owner@example.com")
            let acme = try await node.answer { try $0.rows.workspace("Acme", ownerId: owner) }
            let first = try await node.answer {
                try $0.invitations.insert(Self.invitation("h1", to: "X@Example.com", workspaceId: acme, by: owner, nonce: nil,
                                                          claimsAccount: true))
            }
            let second = try await node.answer { try $0.invitations.insert(Self.invitation("h2", to: "X@Example.com", workspaceId: acme, by: owner)) }
            let (firstId, secondId) = (try #require(first.id), try #require(second.id))
            #expect(firstId != secondId)

            let stored = try #require(try await node.answer { try $0.invitations.invite(id: firstId) })
            #expect(stored.workspaceId == acme && stored.email == "X@Example.com" && stored.emailKey == "x@example.com")
            #expect(stored.tokenHash == "h1" && stored.tokenNonce == nil && stored.invitedBy == owner && stored.claimsAccount)
            #expect(stored.createdAt == Self.start && stored.expiresAt == Self.at(60))
            #expect(stored.usedAt == nil && stored.declinedAt == nil && stored.revokedAt == nil)
            let byHash = try await node.answer { try $0.invitations.invite(tokenHash: "h2") }
            #expect(byHash?.id == secondId && byHash?.tokenNonce == "nonce" && byHash?.claimsAccount == false)
            #expect(try await node.answer { try $0.invitations.invite(tokenHash: "h9") } == nil)
            #expect(try await node.answer { try $0.invitations.invite(id: 999_999) } == nil)

            /// The id of the address's pending invitation to Acme at `time`.
            @Sendable func pendingId(at time: Date, for emailKey: String = "x@example.com") async throws -> Int64? {
                try await node.answer { try $0.invitations.pending(workspaceId: acme, emailKey: emailKey, now: time)?.id }
            }
            #expect(try await pendingId(at: Self.at(0)) == secondId, "the newest")
            #expect(try await pendingId(at: Self.at(0), for: "y@example.com") == nil)
            #expect(try await pendingId(at: Self.at(60)) == nil, "expired at its very time")
            try await node.answer { try $0.invitations.markRevoked(id: secondId, at: Self.at(1)) }
            #expect(try await pendingId(at: Self.at(0)) == firstId)
            try await node.answer { try $0.invitations.markDeclined(id: firstId, at: Self.at(2)) }
            #expect(try await pendingId(at: Self.at(0)) == nil)
            let third = try await node.answer { try $0.invitations.insert(Self.invitation("h3", to: "x@example.com", workspaceId: acme, by: owner)) }
            try await node.answer { try $0.invitations.markUsed(id: third.id!, at: Self.at(3)) }
            #expect(try await pendingId(at: Self.at(0)) == nil)
            let marks = try await node.answer { stores in
                try [secondId, firstId, third.id!].map { id in
                    let invite = try #require(try stores.invitations.invite(id: id))
                    return [invite.revokedAt, invite.declinedAt, invite.usedAt]
                }
            }
            #expect(marks == [[Self.at(1), nil, nil], [nil, Self.at(2), nil], [nil, nil, Self.at(3)]])

            // A later expiry is saved, and nothing else of the value handed over.
            let fourth = try await node.answer {
                try $0.invitations.insert(Self.invitation("h4", to: "x@example.com", workspaceId: acme, by: owner, expiresAt: Self.at(10)))
            }
            #expect(try await pendingId(at: Self.at(20)) == nil)
            var renewed = fourth
            (renewed.expiresAt, renewed.email, renewed.tokenHash) = (Self.at(30), "changed@example.com", "h5")
            let extended = renewed
            try await node.answer { try $0.invitations.saveExpiry(of: extended) }
            #expect(try await pendingId(at: Self.at(20)) == fourth.id)
            let saved = try await node.answer { try $0.invitations.invite(id: fourth.id!) }
            #expect(saved?.expiresAt == Self.at(30) && saved?.email == "x@example.com" && saved?.tokenHash == "h4")
        }
    }

    @Test("a person's pending invitations come newest first with their workspace and inviter, not to workspaces they are in",
          arguments: StorageBackend.allCases)
    func received(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let people = try await node.answer { stores in
                let rows = stores.rows
                let (olive, pat, reader) = (try rows.person("olive@example.com", nickname: "Olive"),
                                            try rows.person("pat@example.com", nickname: "Pat"), try rows.person("r@example.com"))
                let (acme, beta, gamma) = (try rows.workspace("Acme", ownerId: olive), try rows.workspace("Beta", ownerId: pat),
                                           try rows.workspace("Gamma", ownerId: olive))
                try rows.join(workspaceId: beta, userId: reader)
                let invitations = stores.invitations
                let toAcme = try invitations.insert(Self.invitation("a1", to: "R@example.com", workspaceId: acme, by: olive, nonce: "n-acme"))
                let toBeta = try invitations.insert(Self.invitation("b1", to: "r@example.com", workspaceId: beta, by: pat, nonce: "n-beta"))
                let toGamma = try invitations.insert(Self.invitation("g1", to: "r@example.com", workspaceId: gamma, by: olive,
                                                                     expiresAt: Self.at(1), nonce: "n-gamma"))
                _ = try invitations.insert(Self.invitation("g2", to: "r@example.com", workspaceId: gamma, by: olive, nonce: nil))
                let declined = try invitations.insert(Self.invitation("a2", to: "r@example.com", workspaceId: acme, by: olive))
                try invitations.markDeclined(id: declined.id!, at: Self.at(0))
                _ = try invitations.insert(Self.invitation("a3", to: "s@example.com", workspaceId: acme, by: olive))
                return (reader: reader, acme: toAcme.id!, beta: toBeta.id!, gamma: toGamma.id!)
            }
            let anyone = try await node.answer { try $0.invitations.received(emailKey: "r@example.com", userId: nil, now: Self.at(0)) }
            #expect(anyone.map(\.id) == [people.gamma, people.beta, people.acme])
            #expect(anyone.map(\.workspaceName) == ["Gamma", "Beta", "Acme"])
            #expect(anyone.map(\.inviterNickname) == ["Olive", "Pat", "Olive"])
            #expect(anyone.map(\.tokenNonce) == ["n-gamma", "n-beta", "n-acme"])
            #expect(anyone.map(\.expiresAt) == [Self.at(1), Self.at(60), Self.at(60)])
            let theirs = try await node.answer {
                try $0.invitations.received(emailKey: "r@example.com", userId: people.reader, now: Self.at(0)).map(\.id)
            }
            #expect(theirs == [people.gamma, people.acme], "not to Beta, which they are in")
            let later = try await node.answer {
                try $0.invitations.received(emailKey: "r@example.com", userId: people.reader, now: Self.at(1)).map(\.id)
            }
            #expect(later == [people.acme], "Gamma's expired")
            #expect(try await node.answer { try $0.invitations.received(emailKey: "t@example.com", userId: nil, now: Self.at(0)).isEmpty })
        }
    }

    @Test("a workspace's pending invitations come newest first with who sent them, at most 200", arguments: StorageBackend.allCases)
    func sent(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (olive, milo) = (try await node.person("olive@example.com"), try await node.answer { try $0.rows.person("milo@example.com", nickname: "Milo") })
            let (acme, beta) = try await node.answer { stores in
                (try stores.rows.workspace("Acme", ownerId: olive), try stores.rows.workspace("Beta", ownerId: olive))
            }
            try await node.answer { stores in
                for index in 0...200 {
                    _ = try stores.invitations.insert(Self.invitation("p\(index)", to: "p\(index)@example.com", workspaceId: acme, by: olive))
                }
            }
            let many = try await node.answer { try $0.invitations.sent(workspaceId: acme, now: Self.at(0)).map(\.email) }
            #expect(many.count == 200 && many.first == "p200@example.com" && many.last == "p1@example.com")

            let kept = try await node.answer { stores in
                let invitations = stores.invitations
                let pending = try invitations.insert(Self.invitation("s1", to: "Sam@example.com", workspaceId: beta, by: milo, nonce: "n-sam"))
                for (token, mark) in [("s2", invitations.markUsed), ("s3", invitations.markDeclined), ("s4", invitations.markRevoked)] {
                    try mark(try invitations.insert(Self.invitation(token, to: "\(token)@example.com", workspaceId: beta, by: milo)).id!,
                             Self.at(0))
                }
                _ = try invitations.insert(Self.invitation("s5", to: "s5@example.com", workspaceId: beta, by: milo, expiresAt: Self.at(0)))
                _ = try invitations.insert(Self.invitation("s6", to: "s6@example.com", workspaceId: beta, by: milo, nonce: nil))
                return pending.id!
            }
            let listed = try await node.answer { try $0.invitations.sent(workspaceId: beta, now: Self.at(0)) }
            #expect(listed.map(\.id) == [kept], "not used, declined, revoked, expired, or without a link")
            #expect(listed.first?.email == "Sam@example.com" && listed.first?.inviterNickname == "Milo")
            #expect(listed.first?.tokenNonce == "n-sam" && listed.first?.expiresAt == Self.at(60))
            #expect(try await node.answer { try $0.invitations.sent(workspaceId: 999_999, now: Self.at(0)).isEmpty })
        }
    }

    @Test("a join link is made anew in place of the old one, found by its hash with its maker, counted, and removed",
          arguments: StorageBackend.allCases)
    func joinLinks(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (olive, milo, acme, beta) = try await node.answer { stores in
                let olive = try stores.rows.person("olive@example.com", nickname: "Olive")
                let milo = try stores.rows.person("milo@example.com", nickname: "Milo")
                return (olive, milo, try stores.rows.workspace("Acme", ownerId: olive), try stores.rows.workspace("Beta", ownerId: olive))
            }
            #expect(try await node.answer { try $0.invitations.joinLink(workspaceId: acme) } == nil)
            #expect(try await node.answer { try $0.invitations.removeJoinLink(workspaceId: acme) } == false)
            try await node.answer { try $0.invitations.countJoinLinkUse(workspaceId: acme) }

            try await node.answer { stores in
                try stores.invitations.resetJoinLink(workspaceId: acme, tokenHash: "j1", nonce: "n1", expiresAt: nil, maxUses: nil,
                                                     createdBy: olive, at: Self.at(0))
                try stores.invitations.resetJoinLink(workspaceId: beta, tokenHash: "k1", nonce: "m1", expiresAt: nil, maxUses: 3,
                                                     createdBy: olive, at: Self.at(0))
                try stores.invitations.countJoinLinkUse(workspaceId: acme)
                try stores.invitations.countJoinLinkUse(workspaceId: acme)
            }
            let link = try #require(try await node.answer { try $0.invitations.joinLink(workspaceId: acme) })
            #expect(link.workspaceId == acme && link.nonce == "n1" && link.expiresAt == nil && link.maxUses == nil && link.uses == 2)
            let found = try #require(try await node.answer { try $0.invitations.joinLink(tokenHash: "j1") })
            #expect(found.link.workspaceId == acme && found.link.uses == 2 && found.creatorNickname == "Olive")
            #expect(try await node.answer { try $0.invitations.joinLink(workspaceId: beta)?.uses } == 0)

            // Made anew: the old token stops working and the count starts again.
            try await node.answer {
                try $0.invitations.resetJoinLink(workspaceId: acme, tokenHash: "j2", nonce: "n2", expiresAt: Self.at(60), maxUses: 5,
                                                 createdBy: milo, at: Self.at(1))
            }
            #expect(try await node.answer { try $0.invitations.joinLink(tokenHash: "j1") } == nil)
            let renewed = try #require(try await node.answer { try $0.invitations.joinLink(tokenHash: "j2") })
            #expect(renewed.link.workspaceId == acme && renewed.link.nonce == "n2" && renewed.link.expiresAt == Self.at(60))
            #expect(renewed.link.maxUses == 5 && renewed.link.uses == 0 && renewed.creatorNickname == "Milo")
            try await node.answer { try $0.rows.remove(person: milo) }
            #expect(try await node.answer { try $0.invitations.joinLink(tokenHash: "j2")?.creatorNickname } == "", "its maker's account is gone")

            #expect(try await node.answer { try $0.invitations.removeJoinLink(workspaceId: acme) })
            #expect(try await node.answer { try $0.invitations.removeJoinLink(workspaceId: acme) } == false)
            #expect(try await node.answer { try $0.invitations.joinLink(workspaceId: acme) } == nil)
            #expect(try await node.answer { try $0.invitations.joinLink(tokenHash: "k1")?.link.maxUses } == 3, "Beta's stays")
        }
    }
}
