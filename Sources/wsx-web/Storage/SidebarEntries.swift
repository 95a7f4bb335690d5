import Foundation
import Views

/// One room a person is in, as every backend's sidebar query reads it (`RoomStore.summaries`).
struct SidebarEntry: Sendable {
    let id: Int64
    let kind: Room.Kind
    let name: String
    let dmKey: String?
    let isPrivate: Bool
    let isArchived: Bool
    /// Messages after their marker, not their own (kept by the triggers).
    let unread: Int
    let ownNotify: NotifyLevel?
    let defaultNotify: NotifyLevel
    /// The room's last timeline message, when asked for.
    let lastBody: String?
    let lastAt: Date?
}

/// A DM's other person as the sidebar shows them.
struct SidebarPartner: Sendable {
    let nickname: String
    let avatarFileId: Int64?
}

/// Turns the entries a backend read into the sidebar's summaries, the same on every backend: a
/// DM named after the other person (with their photo and status), a group after its other
/// members, a channel after itself.
enum SidebarEntries {
    /// A DM's other person: the id in its key that is not the viewer's (their own for notes to
    /// self); nil for other rooms.
    static func partnerId(of entry: SidebarEntry, viewer userId: Int64) -> Int64? {
        guard entry.kind == .dm, let key = entry.dmKey else { return nil }
        return key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
    }

    /// The DM partners of `entries`, for the backend to look up.
    static func partnerIds(_ entries: [SidebarEntry], viewer userId: Int64) -> [Int64] {
        Array(Set(entries.compactMap { partnerId(of: $0, viewer: userId) }))
    }

    /// The groups among `entries`, for the backend to look up their members.
    static func groupIds(_ entries: [SidebarEntry]) -> [Int64] {
        entries.filter { $0.kind == .group }.map(\.id)
    }

    static func summaries(_ entries: [SidebarEntry], workspaceId: Int64, viewer userId: Int64, partners: [Int64: SidebarPartner],
                          statuses: [Int64: UserStatus], groups: [Int64: [GroupRooms.Person]]) -> [RoomSummary] {
        entries.map { entry in
            var name = entry.name, url = Paths.channel(workspaceId, entry.id)
            var avatarURL: String?, personId: Int64?
            if let partner = partnerId(of: entry, viewer: userId) {
                name = partners[partner]?.nickname ?? ""
                avatarURL = partners[partner]?.avatarFileId.map { Paths.thumbnail($0) }
                url = Paths.directMessages(workspaceId, partner)
                personId = partner
            }
            let group = groups[entry.id]
            if let group {
                name = GroupRooms.title(group, viewer: userId)
                url = Paths.group(workspaceId, entry.id)
            }
            return RoomSummary(id: entry.id, isChannel: entry.kind == .channel, name: name, url: url, unread: entry.unread,
                               lastSnippet: entry.lastBody.map { MessageText.snippet($0, length: 80) }, lastAt: entry.lastAt,
                               avatarURL: avatarURL, personId: personId, status: personId.flatMap { statuses[$0]?.label },
                               isPrivate: entry.isPrivate, isArchived: entry.isArchived, groupSize: group?.count,
                               initial: AvatarFace.initial(name), ownNotify: entry.ownNotify, defaultNotify: entry.defaultNotify)
        }
    }
}
