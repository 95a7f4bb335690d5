import Foundation
import GRDB
import SlackFormat

/// The Slack id of each person, room, message and file of a workspace (`slack_ids`): how an
/// import knows what it brought before, and an export which ids to write. SQL about them lives
/// here, so another storage backend replaces this one file.
enum SlackIds {
    enum Kind: String {
        case user, room, message, file
    }

    /// A message's key: its conversation's id and its `ts` (Slack's ids are unique per conversation).
    static func messageKey(conversation: String, ts: SlackTimestamp) -> String {
        "\(conversation)/\(ts.text)"
    }

    /// Local ids by Slack id, for one kind.
    static func all(_ db: Database, workspaceId: Int64, kind: Kind) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = ?",
                                    arguments: [workspaceId, kind.rawValue]) {
            found[row[0]] = row[1]
        }
        return found
    }

    /// Slack ids by local id, for one kind (an export's ids).
    static func slackIds(_ db: Database, workspaceId: Int64, kind: Kind) throws -> [Int64: String] {
        var found: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = ?",
                                    arguments: [workspaceId, kind.rawValue]) {
            // One local row may have been read under two ids (two exports): the first stays.
            let local: Int64 = row[1]
            if found[local] == nil { found[local] = row[0] }
        }
        return found
    }

    /// The local id behind one Slack id.
    static func local(_ db: Database, workspaceId: Int64, kind: Kind, slackId: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT local_id FROM slack_ids WHERE workspace_id = ? AND kind = ? AND slack_id = ?
            """), arguments: [workspaceId, kind.rawValue, slackId])
    }

    /// The messages of one conversation already brought over, by `ts`.
    static func messages(_ db: Database, workspaceId: Int64, conversation: String) throws -> [SlackTimestamp: Int64] {
        // Keys of the conversation sort between "C01/" and "C010" ("0" follows "/").
        var found: [SlackTimestamp: Int64] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = 'message' AND slack_id >= ? AND slack_id < ?
            """, arguments: [workspaceId, conversation + "/", conversation + "0"]) {
            let key: String = row[0]
            if let stamp = SlackTimestamp(String(key.dropFirst(conversation.count + 1))) { found[stamp] = row[1] }
        }
        return found
    }

    /// Remembers a pairing (the first one for a Slack id stays).
    static func remember(_ db: Database, workspaceId: Int64, kind: Kind, slackId: String, localId: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO slack_ids (workspace_id, kind, slack_id, local_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [workspaceId, kind.rawValue, slackId, localId])
    }
}
