import Foundation
import SlackFormat

/// What an import brought, for the operator (printed by the command) and the audit log.
struct SlackImportSummary: Sendable {
    let archive: String
    let workspaceName: String
    var workspaceId: Int64 = 0
    var isNew = false
    var users = 0
    var matched = 0
    var created = 0
    var members = 0
    var invited = 0
    var mailed = false
    var publicChannels = 0
    var privateChannels = 0
    var groups = 0
    var directs = 0
    var closedDirects = 0
    var newRooms = 0
    /// Messages, replies, reactions, files and pins of every conversation together.
    var content = SlackConversationImport.Counts()

    mutating func add(_ plan: SlackConversationPlan, counts: SlackConversationImport.Counts, isNew: Bool, closed: Bool) {
        switch plan.kind {
        case .channel(let isPrivate): if isPrivate { privateChannels += 1 } else { publicChannels += 1 }
        case .group: groups += 1
        case .direct: directs += 1
        }
        if closed { closedDirects += 1 }
        if isNew { newRooms += 1 }
        content.add(counts)
    }

    var messages: Int { content.messages }
    var replies: Int { content.replies }
    var alreadyThere: Int { content.alreadyThere }
    var customReactions: [String: Int] { content.customReactions }
    var filesKept: Int { content.filesKept }

    /// The report, a line per kind of thing.
    var lines: [String] {
        var lines = ["imported \(archive) into workspace \(workspaceId) \"\(workspaceName)\"\(isNew ? " (new)" : "")"]
        var people = "people: \(users) in the export; \(matched) matched to accounts here by e-mail, \(created) new accounts; \(members) members"
        if invited > 0 {
            people += "; \(invited) invited to choose a password (\(mailed ? "mailed; " : "")links on the members page)"
        }
        lines.append(people)
        var rooms = "conversations: \(publicChannels) public channels, \(privateChannels) private, \(groups) group, \(directs) direct"
        if closedDirects > 0 { rooms += " (\(closedDirects) kept closed: the other person is not a member)" }
        lines.append(rooms + "; \(newRooms) new")
        var posts = "messages: \(messages + replies) new (\(replies) replies in threads), \(alreadyThere) already here"
        if content.notices > 0 { posts += ", \(content.notices) notices left out (joins, leaves, topic changes)" }
        lines.append(posts)
        var reacted = "reactions: \(content.reactions)"
        if !customReactions.isEmpty {
            let names = customReactions.keys.sorted().map { ":\($0):" }.joined(separator: " ")
            reacted += " (\(customReactions.values.reduce(0, +)) with custom emoji not kept: \(names))"
        }
        lines.append(reacted + "; pins: \(content.pins)")
        lines.append("files: \(filesKept) kept, \(content.filesLeft) named in their message instead (not in the export, deleted, or refused)")
        return lines
    }

    /// One line for the audit log.
    var auditDetail: String {
        "\(archive): \(members) members, \(publicChannels + privateChannels + groups + directs) conversations, \(messages + replies) messages"
    }
}
