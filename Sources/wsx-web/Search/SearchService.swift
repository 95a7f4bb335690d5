import Foundation
import Views

/// Search in a workspace: channels (name, description), members (nickname, email) and messages
/// of the rooms the person is in. Newest messages first (keyset paging by id: ordering by rank
/// is far too slow for a one-syllable query that matches much of a large workspace).
struct SearchService: Sendable {
    let database: AppDatabase

    static let queryLimit = TextLimit(characters: 100)
    static let pageSize = 50

    struct ChannelHit: Sendable, Decodable {
        let id: Int64
        let name: String
        let description: String
    }

    struct MemberHit: Sendable, Decodable {
        let id: Int64
        let nickname: String
        let email: String
    }

    struct MessageHit: Sendable {
        let id: Int64
        let roomId: Int64
        let roomName: String
        let roomPath: String
        let isChannel: Bool
        let author: String
        let body: String
        let createdAt: Date
        /// A reply's thread (its result links there).
        var threadRootId: Int64?
    }

    /// A file whose name matches, with the message it came in.
    struct FileHit: Sendable {
        let name: String
        let size: Int
        let message: MessageHit
    }

    /// Where each section continues, when it has more.
    struct Cursors: Sendable, Equatable {
        var channelsAfter: Int64?
        var membersAfter: Int64?
        var messagesBefore: Int64?
    }

    struct Results: Sendable {
        var channels: [ChannelHit] = []
        var members: [MemberHit] = []
        var messages: [MessageHit] = []
        /// The newest files whose names match (`pageSize` at most).
        var files: [FileHit] = []
        /// Set for a section that has more than one page.
        var next = Cursors()
    }

    /// Searches for `query` (already NFC and trimmed, at most 100 characters).
    func search(_ access: WorkspaceAccess, query: String, from cursors: Cursors) async throws -> Results {
        let contains = ContainsPattern.of(query.lowercased())
        let size = Self.pageSize
        return try await database.queryOffLoop { tx in
            var results = Results()
            let channels = try tx.search.channels(workspaceId: access.workspaceId, userId: access.userId, containing: contains,
                                                  afterId: cursors.channelsAfter ?? 0, limit: size + 1)
            results.channels = Array(channels.prefix(size))
            if channels.count > size { results.next.channelsAfter = results.channels.last?.id }

            let members = try tx.search.members(workspaceId: access.workspaceId, containing: contains,
                                                afterId: cursors.membersAfter ?? 0, limit: size + 1)
            results.members = Array(members.prefix(size))
            if members.count > size { results.next.membersAfter = results.members.last?.id }

            let rooms = try tx.rooms.summaries(workspaceId: access.workspaceId, userId: access.userId, reads: .roomsOnly)
            let byRoom = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, $0) })
            func hit(_ found: FoundMessage) -> MessageHit? {
                guard let room = byRoom[found.roomId] else { return nil }   // never outside the person's rooms
                return MessageHit(id: found.id, roomId: room.id, roomName: room.name, roomPath: room.url, isChannel: room.isChannel,
                                  author: found.authorNickname ?? "—", body: found.body, createdAt: found.createdAt,
                                  threadRootId: found.threadRootId)
            }
            if cursors.messagesBefore == nil {
                results.files = try tx.search.files(containing: contains, roomIds: rooms.map(\.id), limit: size).compactMap { file in
                    hit(file.message).map { FileHit(name: file.name, size: file.size, message: $0) }
                }
            }
            let found = try tx.search.messages(matching: query, roomIds: rooms.map(\.id),
                                               beforeId: cursors.messagesBefore ?? Int64.max, limit: size + 1)
            let page = Array(found.prefix(size))
            if found.count > size { results.next.messagesBefore = page.last?.id }
            results.messages = page.compactMap(hit)
            return results
        }
    }

    /// An excerpt of a message around the first match, as plain text (its Markdown read as
    /// people see it: `**필수**` is 필수), escaped, every match wrapped in `<mark>`.
    static func highlighted(_ text: String, query: String, radius: Int = 60) -> String {
        let terms = SearchTokenizer.runs(query).map { String($0.characters) }.filter { !$0.isEmpty }
        let flat = MessageHTML.render(text, members: .none).plain.replacingOccurrences(of: "\n", with: " ")
        let options: String.CompareOptions = [.caseInsensitive]
        var start = flat.startIndex, end = flat.endIndex
        if let first = terms.compactMap({ flat.range(of: $0, options: options) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            start = flat.index(first.lowerBound, offsetBy: -radius, limitedBy: flat.startIndex) ?? flat.startIndex
            end = flat.index(first.upperBound, offsetBy: radius * 2, limitedBy: flat.endIndex) ?? flat.endIndex
        } else {
            end = flat.index(flat.startIndex, offsetBy: radius * 3, limitedBy: flat.endIndex) ?? flat.endIndex
        }
        let excerpt = flat[start..<end]
        var html = start > flat.startIndex ? "…" : ""
        var index = excerpt.startIndex
        while index < excerpt.endIndex {
            let match = terms.compactMap { excerpt.range(of: $0, options: options, range: index..<excerpt.endIndex) }
                .min { $0.lowerBound < $1.lowerBound || ($0.lowerBound == $1.lowerBound && $0.upperBound > $1.upperBound) }
            guard let match else {
                html += HTMLEscaping.escape(excerpt[index...])
                break
            }
            html += HTMLEscaping.escape(excerpt[index..<match.lowerBound])
            html += "<mark>" + HTMLEscaping.escape(excerpt[match]) + "</mark>"
            index = match.upperBound
        }
        return html + (end < flat.endIndex ? "…" : "")
    }
}
