import Foundation

extension MembershipChange {
    /// The change as one line of text, for a backend that keeps it beside its event so other
    /// nodes' hubs can apply it: `added:ROOM:USER,USER`, `removed:ROOM:USER,…`, `deleted:ROOM,ROOM`.
    var text: String {
        switch self {
        case .added(let room, let users): "added:\(room):" + users.map(String.init).joined(separator: ",")
        case .removed(let room, let users): "removed:\(room):" + users.map(String.init).joined(separator: ",")
        case .roomsDeleted(let rooms): "deleted:" + rooms.map(String.init).joined(separator: ",")
        }
    }

    /// The change `text` describes; nil for text that does not describe one.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func ids(_ part: Substring) -> [Int64]? {
            guard !part.isEmpty else { return [] }
            let ids = part.split(separator: ",").compactMap { Int64($0) }
            return ids.count == part.split(separator: ",").count ? ids : nil
        }
        switch (parts.first, parts.count) {
        case ("added", 3), ("removed", 3):
            guard let room = Int64(parts[1]), let users = ids(parts[2]) else { return nil }
            self = parts[0] == "added" ? .added(room: room, users: users) : .removed(room: room, users: users)
        case ("deleted", 2):
            guard let rooms = ids(parts[1]) else { return nil }
            self = .roomsDeleted(rooms: rooms)
        default:
            return nil
        }
    }
}
