import Foundation
import SlackFormat

/// The Slack id of each person, room, message and file of a workspace: how an import knows what
/// it brought before, and an export which ids to write. They are kept by `tx.slackImport`
/// (`SlackImportStore`).
enum SlackIds {
    enum Kind: String {
        case user, room, message, file
    }

    /// A message's key: its conversation's id and its `ts` (Slack's ids are unique per conversation).
    static func messageKey(conversation: String, ts: SlackTimestamp) -> String {
        "\(conversation)/\(ts.text)"
    }

    /// The messages of one conversation already brought over, by `ts`.
    static func messages(_ tx: any StoreTransaction, workspaceId: Int64, conversation: String) throws -> [SlackTimestamp: Int64] {
        var found: [SlackTimestamp: Int64] = [:]
        for (key, localId) in try tx.slackImport.messageKeys(workspaceId: workspaceId, conversation: conversation) {
            if let stamp = SlackTimestamp(String(key.dropFirst(conversation.count + 1))) { found[stamp] = localId }
        }
        return found
    }
}
