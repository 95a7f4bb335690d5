import Foundation
import SlackFormat
import Uploads

/// `wsx-web export`: a workspace written in Slack's export format, so a team can take its
/// history elsewhere (or into another wsx). Public channels by default; private channels,
/// group and direct messages only when asked (`includePrivate`), and every export is in the
/// workspace's audit log, saying which.
///
/// The export is read from one snapshot of the database while the server keeps writing. People,
/// conversations, messages and files keep the Slack ids an import gave them; the rest get ids
/// made here, kept (`SlackIds`) so that the next export says the same, and importing the export
/// into this workspace again adds nothing. Files go inside the zip (`__uploads/<id>/<name>`),
/// which `import slack` reads back.
struct SlackExport {
    struct Request: Sendable {
        let workspaceId: Int64
        let includePrivate: Bool
        let destination: URL
        /// The site's address, for the files' links.
        let baseURL: String
    }

    let database: AppDatabase
    let store: FileStore
    let catalog: EmojiCatalog
    let clock: WallClock

    /// What went into the zip.
    struct Summary: Sendable {
        var people = 0
        var channels = 0
        var privateChannels = 0
        var groups = 0
        var directs = 0
        var messages = 0
        var files = 0
        var bytes = 0
    }

    func run(_ request: Request) throws -> Summary {
        let now = clock.now()
        let temporary = request.destination.deletingLastPathComponent()
            .appendingPathComponent(".\(request.destination.lastPathComponent).\(UUID().uuidString).partial")
        defer { try? FileManager.default.removeItem(at: temporary) }
        var ids = SlackExportIds(workspaceId: request.workspaceId)
        let summary = try database.query { tx in
            try ids.load(tx)
            let writer = try SlackArchiveWriter(url: temporary, modified: now)
            let summary = try write(tx, request, ids: &ids, into: writer)
            try writer.finish()
            return summary
        }
        try FileManager.default.moveItem(at: temporary, to: request.destination)
        var result = summary
        result.bytes = ((try? FileManager.default.attributesOfItem(atPath: request.destination.path)[.size]) as? Int) ?? 0
        let made = ids.made
        try database.writeNow { tx in
            for (kind, slackId, localId) in made {
                try tx.slackImport.remember(workspaceId: request.workspaceId, kind: kind, slackId: slackId, localId: localId)
            }
            try tx.audit.record(workspaceId: request.workspaceId, actor: nil, action: "workspace.export",
                                detail: request.includePrivate ? "public and private channels, group and direct messages"
                                    : "public channels", at: now)
        }
        return result
    }

    private func write(_ tx: any StoreTransaction, _ request: Request, ids: inout SlackExportIds,
                       into writer: SlackArchiveWriter) throws -> Summary {
        guard try tx.memberships.workspace(id: request.workspaceId) != nil else { throw SlackExportError.noWorkspace }
        var summary = Summary()
        let rooms = try tx.slackImport.exportedRooms(workspaceId: request.workspaceId, includePrivate: request.includePrivate)
        let members = try tx.slackImport.roomMembers(workspaceId: request.workspaceId)
        // Public channels by Slack id, for `#name` links (every one of them is in the export).
        var channels: [Int64: String] = [:]
        for room in rooms where room.kind == .channel && !room.isPrivate { channels[room.id!] = ids.room(room) }
        let messages = SlackExportMessages(database: database, store: store, catalog: catalog, baseURL: request.baseURL,
                                           channels: channels)
        let workspaceMembers = Set(try tx.slackImport.memberIds(workspaceId: request.workspaceId))
        var people = workspaceMembers
        var listed: [String: [SlackConversation]] = ["channels.json": [], "groups.json": [], "mpims.json": [], "dms.json": []]
        var folders: Set<String> = []
        for room in rooms {
            let roomMembers = members[room.id!] ?? []
            let slackId = ids.room(room)
            // A DM names its pair in its key, whoever is still in it.
            let pair = room.kind == .dm ? (room.dmKey ?? "").split(separator: ":").compactMap { Int64($0) } : roomMembers
            people.formUnion(pair)
            let name: String?
            switch room.kind {
            case .channel: name = Self.folderName(room.name, taken: &folders)
            case .group: name = Self.folderName("mpdm-" + (try groupNames(tx, roomMembers)).joined(separator: "--") + "-1", taken: &folders)
            case .dm: name = nil
            }
            let written = try messages.write(tx, room: room, conversation: slackId, folder: name ?? slackId, ids: &ids, into: writer)
            people.formUnion(written.people)
            summary.messages += written.count
            summary.files += written.files
            let conversation = SlackConversation(
                id: slackId, name: name, created: SlackNumber(Int64(room.createdAt.timeIntervalSince1970)),
                creator: room.ownerId.map { ids.user($0) }, isArchived: room.kind == .channel ? room.isArchived : nil,
                isGeneral: room.kind == .channel ? room.isDefault : nil, members: pair.map { ids.user($0) },
                topic: room.kind == .channel ? .init(value: "") : nil,
                purpose: room.kind == .channel ? .init(value: room.description) : nil,
                pins: written.pins.isEmpty ? nil : written.pins)
            switch room.kind {
            case .channel where room.isPrivate: listed["groups.json"]!.append(conversation); summary.privateChannels += 1
            case .channel: listed["channels.json"]!.append(conversation); summary.channels += 1
            case .group: listed["mpims.json"]!.append(conversation); summary.groups += 1
            case .dm: listed["dms.json"]!.append(conversation); summary.directs += 1
            }
        }
        let users = try tx.slackImport.users(ids: people.sorted())
        try writer.add(json: "users.json", users.map { user in
            SlackUser(id: ids.user(user.id!), teamId: ids.team, name: user.nickname, deleted: !workspaceMembers.contains(user.id!),
                      isBot: false,
                      realName: user.nickname,
                      profile: .init(email: user.email, displayName: user.nickname, realName: user.nickname))
        })
        summary.people = users.count
        for (file, list) in listed.sorted(by: { $0.key < $1.key }) where request.includePrivate || file == "channels.json" {
            try writer.add(json: file, list)
        }
        return summary
    }

    /// The people of a group by nickname, for its Slack-style name (`mpdm-a--b--c-1`).
    private func groupNames(_ tx: any StoreTransaction, _ ids: [Int64]) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try tx.slackImport.nicknames(userIds: ids)
    }

    /// A conversation's folder: its name, made safe for a path and unique in the zip.
    static func folderName(_ name: String, taken: inout Set<String>) -> String {
        var base = name.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: "\\", with: "-")
        if base.isEmpty || base.hasPrefix(".") || base == "__uploads" { base = "_" + base }
        var folder = base, number = 1
        while !taken.insert(folder.lowercased()).inserted {
            number += 1
            folder = "\(base)-\(number)"
        }
        return folder
    }
}

/// The Slack ids an export writes: those an import read, else made here (`made`, kept after).
struct SlackExportIds {
    let workspaceId: Int64
    private var known: [SlackIds.Kind: [Int64: String]] = [:]
    private var used: [SlackIds.Kind: Set<String>] = [:]
    /// Ids made by this export, to remember.
    private(set) var made: [(SlackIds.Kind, String, Int64)] = []
    /// The `ts` of each message already placed, per conversation.
    private var stamps: [String: Set<SlackTimestamp>] = [:]

    init(workspaceId: Int64) { self.workspaceId = workspaceId }

    /// The workspace's team id in the export.
    var team: String { "TWSX" + String(workspaceId, radix: 36).uppercased() }

    mutating func load(_ tx: any StoreTransaction) throws {
        for kind in [SlackIds.Kind.user, .room, .message, .file] {
            let ids = try tx.slackImport.slackIds(workspaceId: workspaceId, kind: kind)
            known[kind] = ids
            used[kind] = Set(try tx.slackImport.localIds(workspaceId: workspaceId, kind: kind).keys)
        }
        for key in used[.message] ?? [] {
            let parts = key.split(separator: "/", maxSplits: 1)
            if parts.count == 2, let stamp = SlackTimestamp(String(parts[1])) { stamps[String(parts[0]), default: []].insert(stamp) }
        }
    }

    mutating func user(_ local: Int64) -> String { slackId(.user, local, prefix: "U") }
    mutating func file(_ local: Int64) -> String { slackId(.file, local, prefix: "F") }

    mutating func room(_ room: Room) -> String {
        slackId(.room, room.id!, prefix: room.kind == .dm ? "D" : room.kind == .group || room.isPrivate ? "G" : "C")
    }

    /// The message's `ts` in its conversation: the one it came with, else its time (a
    /// microsecond later while another message of the conversation has that one).
    mutating func message(_ id: Int64, at time: Date, conversation: String) -> SlackTimestamp {
        if let key = known[.message]?[id], let stamp = SlackTimestamp(String(key.dropFirst(conversation.count + 1))),
           key.hasPrefix(conversation + "/") {
            return stamp
        }
        var stamp = SlackTimestamp(time)
        while stamps[conversation, default: []].contains(stamp) { stamp = stamp.next }
        stamps[conversation, default: []].insert(stamp)
        let key = SlackIds.messageKey(conversation: conversation, ts: stamp)
        known[.message, default: [:]][id] = key
        made.append((.message, key, id))
        return stamp
    }

    private mutating func slackId(_ kind: SlackIds.Kind, _ local: Int64, prefix: String) -> String {
        if let id = known[kind]?[local] { return id }
        let base = prefix + "WSX" + String(local, radix: 36).uppercased()
        var id = base, number = 1
        while used[kind, default: []].contains(id) {
            number += 1
            id = "\(base)X\(number)"
        }
        used[kind, default: []].insert(id)
        known[kind, default: [:]][local] = id
        made.append((kind, id, local))
        return id
    }
}

enum SlackExportError: Error, CustomStringConvertible {
    case noWorkspace
    case ambiguous(String, [Int64])
    case exists(String)

    var description: String {
        switch self {
        case .noWorkspace: "no such workspace"
        case .ambiguous(let name, let ids):
            "several workspaces are named \"\(name)\" (ids \(ids.map(String.init).joined(separator: ", "))): give the id"
        case .exists(let path): "\(path) exists already: choose another name or remove it"
        }
    }
}
