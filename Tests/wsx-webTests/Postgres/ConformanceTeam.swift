import Foundation
@testable import wsx_web

/// The rows most conformance suites start from, written as plain inserts on either backend.
/// Workspace 10 (Mina's): #general (100, default) with all three, #random (101) with Mina and
/// Bob, a private #plans (102) with Mina alone. Workspace 11 (Carol's, joined first by her):
/// #lobby (110, default).
struct ConformanceTeam: Sendable {
    let mina: Int64, bob: Int64, carol: Int64

    /// Three people (Mina, Bob, Carol) in these rooms, on `node`.
    static func make<Stores>(on node: ConformanceNode<Stores>) async throws -> ConformanceTeam {
        let team = ConformanceTeam(mina: try await node.person("mina@example.com"), bob: try await node.person("bob@example.com"),
                                   carol: try await node.person("carol@example.com"))
        try await node.fixture("UPDATE users SET nickname = '민아' WHERE id = \(team.mina)")
        try await node.fixture("UPDATE users SET nickname = 'Bob' WHERE id = \(team.bob)")
        try await node.fixture("UPDATE users SET nickname = 'Carol' WHERE id = \(team.carol)")
        for sql in team.rows { try await node.fixture(sql) }
        return team
    }

    static let time = "'2026-11-01 09:00:00.000'"

    var rows: [String] {
        let t = Self.time
        return [
            "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (10, '팀', '팀', \(mina), \(t), \(t))",
            "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (11, 'Other', 'other', \(carol), \(t), \(t))",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(mina), 'owner', \(t))",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(bob), 'member', \(t))",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(carol), 'member', '2026-11-02 09:00:00.000')",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (11, \(carol), 'owner', \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (100, 10, 'channel', 'general', 'general', TRUE, \(t), \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (101, 10, 'channel', 'random', 'random', FALSE, \(t), \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, visibility, created_at, updated_at) VALUES (102, 10, 'channel', 'plans', 'plans', FALSE, 'private', \(t), \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (110, 11, 'channel', 'lobby', 'lobby', TRUE, \(t), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (100, \(mina), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (100, \(bob), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (100, \(carol), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (101, \(mina), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (101, \(bob), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (102, \(mina), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (110, \(carol), \(t))",
        ]
    }

    /// A message by `author` in `room` (a thread reply when `root` is given), with its id.
    func post(_ id: Int64, in room: Int64, by author: Int64, root: Int64? = nil) -> String {
        """
        INSERT INTO messages (id, room_id, author_id, body, body_html, created_at, thread_root_id, in_timeline)
        VALUES (\(id), \(room), \(author), 'm\(id)', '<p>m\(id)</p>', \(Self.time), \(root.map(String.init) ?? "NULL"), \(root == nil ? "TRUE" : "FALSE"))
        """
    }
}
