import Foundation
import Hummingbird
import NIOCore
import Uploads

/// `/v1`'s conversations (`../shared/APP-API.md` §3.3, §3.4, §7): the chats of channels and of
/// one-to-one DMs, read after a cursor and posted with files, the DM rooms, and unread counts.
/// Posts go through the web's `MessagePoster`, so they appear live on every page and stream.
struct ChatsAPIController: Sendable {
    let access: APIAccess
    let channels: ChannelsAPIController
    let messages: MessageService
    let directRooms: DirectRooms
    let poster: MessagePoster
    let files: FileService
    let rateLimiter: AccountRateLimiter

    /// Messages one read of a chat list takes: the list is streamed page by page, so a long
    /// history costs the same memory as a short one.
    static let pageSize = 200

    func addRoutes(to v1: APIRoutes) {
        v1.get("workspaces/:workspace/channels/:channel/chats", use: channelChats)
        v1.post("workspaces/:workspace/channels/:channel/chats", use: postToChannel)
        v1.get("workspaces/:workspace/channels/:channel/unreads", use: channelUnreads)
        v1.get("workspaces/:workspace/dms", use: dmRooms)
        v1.post("workspaces/:workspace/dms", use: openDM)
        v1.get("workspaces/:workspace/dms/:room/chats", use: dmChats)
        v1.post("workspaces/:workspace/dms/:room/chats", use: postToDM)
        v1.get("workspaces/:workspace/dms/:room/unreads", use: dmUnreads)
    }

    /// Every chat of the channel after `cursor_date`, oldest first. A member of the workspace
    /// who is not in the (public) channel joins it by reading it, as the apps expect.
    @Sendable func channelChats(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channels.channel(request, context)
        if !view.isMember { try await channels.channels.join(view) }
        return try await chats(of: view.room, after: try cursor(request, "cursor_date"), request: request)
    }

    /// Posts to a channel the caller is in (multipart `content`, `files` × 0–5); one they are not
    /// in is `E13`.
    @Sendable func postToChannel(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channels.channel(request, context)
        guard view.isMember else { throw APIError.notFound }
        return try await post(request, in: view.room, author: try await access.caller(request))
    }

    /// `{channel_id, name, count}`: the channel's chats after `after` not by the caller.
    @Sendable func channelUnreads(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channels.channel(request, context)
        let count = try await unread(view.room, after: try cursor(request, "after"), userId: view.access.userId)
        let id = try await access.database.queryOffLoop { tx in try tx.publicIds.publicIds(of: [view.room.id!], in: .rooms)[view.room.id!] }
        return APIResponse.json(Unreads(channelId: id, name: view.room.name, roomId: nil, count: count))
    }

    /// The caller's one-to-one conversations in the workspace, oldest first (groups stay on the web).
    @Sendable func dmRooms(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        let userId = caller.id!, workspaceId = membership.workspaceId
        @Sendable func read(_ tx: any StoreTransaction) throws -> [(Room, User)] {
            let rooms = try tx.rooms.directRooms(workspaceId: workspaceId, of: userId)
                .filter { try tx.rooms.isMember(roomId: $0.id!, userId: userId) }
                .sorted { ($0.createdAt, $0.id!) < ($1.createdAt, $1.id!) }
            let partners = Dictionary(try tx.accounts.users(ids: rooms.map { DirectRooms.partnerId(of: $0, for: userId) })
                .map { ($0.id!, $0) }, uniquingKeysWith: { first, _ in first })
            return rooms.compactMap { room in partners[DirectRooms.partnerId(of: room, for: userId)].map { (room, $0) } }
        }
        let shown = try await access.present({ wanted, tx in
            for (room, partner) in try read(tx) {
                wanted.add(.rooms, room.id)
                wanted.add(partner)
            }
        }, { book, tx in try read(tx).map { try APIDMRoom($0.0, partner: $0.1, book: book) } })
        return APIResponse.json(shown)
    }

    /// Opens the conversation with `opponent_id` (a member of the workspace), made when missing.
    @Sendable func openDM(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        let opponent = try await APIFields.read(request).required("opponent_id")
        guard let partnerId = try await access.database.queryOffLoop({ tx in try tx.publicIds.id(of: opponent, in: .users) }) else {
            throw APIError.notFound
        }
        let partner = try await directRooms.partner(membership, userId: partnerId)
        let room = try await directRooms.open(membership, with: partnerId)
        let shown = try await access.present({ wanted, _ in
            wanted.add(.rooms, room.id)
            wanted.add(partner)
        }, { book, _ in try APIDMRoom(room, partner: partner, book: book) })
        return APIResponse.json(shown)
    }

    @Sendable func dmChats(_ request: Request, context: AppRequestContext) async throws -> Response {
        let room = try await dm(request, context)
        return try await chats(of: room, after: try cursor(request, "cursor_date"), request: request)
    }

    @Sendable func postToDM(_ request: Request, context: AppRequestContext) async throws -> Response {
        let room = try await dm(request, context)
        return try await post(request, in: room, author: try await access.caller(request))
    }

    /// `{room_id, count}`.
    @Sendable func dmUnreads(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, _) = try await access.workspace(request, context)
        let room = try await dm(request, context)
        let count = try await unread(room, after: try cursor(request, "after"), userId: caller.id!)
        let id = try await access.database.queryOffLoop { tx in try tx.publicIds.publicIds(of: [room.id!], in: .rooms)[room.id!] }
        return APIResponse.json(Unreads(channelId: nil, name: nil, roomId: id, count: count))
    }

    /// The unread answers: a channel's (`channel_id`, `name`) or a DM's (`room_id`).
    private struct Unreads: Encodable {
        let channelId: String?, name: String?, roomId: String?, count: Int

        enum CodingKeys: String, CodingKey {
            case channelId = "channel_id", name, roomId = "room_id", count
        }

        func encode(to encoder: any Encoder) throws {
            var keys = encoder.container(keyedBy: CodingKeys.self)
            if let channelId, let name {
                try keys.encode(channelId, forKey: .channelId)
                try keys.encode(name, forKey: .name)
            }
            if let roomId { try keys.encode(roomId, forKey: .roomId) }
            try keys.encode(count, forKey: .count)
        }
    }

    /// The DM room the path names (`{room}`), one the caller is in; a group or a channel is `E13`.
    private func dm(_ request: Request, _ context: AppRequestContext) async throws -> Room {
        let (_, membership) = try await access.workspace(request, context)
        let id = try await access.row(context, "room", in: .rooms)
        let room = try await messages.memberRoom(membership, id: id)
        guard room.kind == .dm else { throw APIError.notFound }
        return room
    }

    private func cursor(_ request: Request, _ name: String) throws -> Date? {
        try APIDates.parameter(request.uri.queryParameters[Substring(name)].map(String.init))
    }

    private func unread(_ room: Room, after: Date?, userId: Int64) async throws -> Int {
        try await access.database.queryOffLoop { tx in try tx.messages.chatCount(roomId: room.id!, after: after, excluding: userId) }
    }

    /// Posts the form's `content` and `files` to `room` as `author`: the web's per-account limits
    /// (`E98`), the web's checks of text and files (`E11`).
    private func post(_ request: Request, in room: Room, author: User) async throws -> Response {
        let form = try await APIForm.read(request, files: files, uploader: author.id!, fileFields: ["files"])
        do {
            try rateLimiter.charge(.post, userId: author.id!)
        } catch {
            form.discard()
            throw error
        }
        let prepared = try await form.attachments(files)
        let posted = try await poster.deliver(form.fields["content"] ?? "", files: prepared, in: room, author: author)
        let place = try await self.place(of: room)
        let chat = try await access.present({ wanted, tx in
            for row in try tx.messages.rows(ids: [posted.id]) { Self.want(row, into: &wanted) }
        }, { book, tx in
            let row = try tx.messages.rows(ids: [posted.id])[0]
            return try APIChat(row, author: author, place: place, book: book)
        })
        return APIResponse.json(chat)
    }

    /// How a chat of `room` names where it was said.
    private func place(of room: Room) async throws -> APIChat.Place {
        let roomId = room.id!
        let id = try await access.database.queryOffLoop { tx in try tx.publicIds.publicIds(of: [roomId], in: .rooms)[roomId] }
        guard let id else { throw APIError.notFound }
        return room.kind == .channel ? .channel(id: id, name: room.name) : .dm(roomId: id)
    }

    private static func want(_ row: MessageRow, into wanted: inout APIIdBook.Wanted) {
        wanted.add(.messages, row.id)
        wanted.add(.users, row.authorId)
        wanted.add(.files, row.authorAvatarId)
        for file in row.attachments { wanted.add(.files, file.id) }
    }

    /// One page of chats after `after` (a time, and an id among messages of that time), each
    /// with its author, and where the next page starts.
    private func page(of room: Room, place: APIChat.Place, after: (date: Date, id: Int64)?) async throws
        -> (chats: [APIChat], next: (date: Date, id: Int64)?) {
        let roomId = room.id!, size = Self.pageSize
        return try await access.database.queryOffLoop { tx in
            let rows = try tx.messages.chats(roomId: roomId, after: after, limit: size)
            let authors = Dictionary(try tx.accounts.users(ids: Array(Set(rows.compactMap(\.authorId)))).map { ($0.id!, $0) },
                                     uniquingKeysWith: { first, _ in first })
            var wanted = APIIdBook.Wanted()
            for row in rows {
                Self.want(row, into: &wanted)
                if let author = row.authorId.flatMap({ authors[$0] }) { wanted.add(author) }
            }
            let book = try APIIdBook.load(tx, wanted)
            let chats = try rows.map { try APIChat($0, author: $0.authorId.flatMap { authors[$0] }, place: place, book: book) }
            let next = rows.count == size ? rows.last.map { (date: $0.createdAt, id: $0.id) } : nil
            return (chats, next)
        }
    }

    /// Every chat of `room` after `after`, oldest first, as one JSON array written page by page.
    /// The first page is read before the answer starts, so a refusal is still an error answer.
    private func chats(of room: Room, after: Date?, request: Request) async throws -> Response {
        let place = try await self.place(of: room)
        let first = try await page(of: room, place: place, after: after.map { (date: $0, id: Int64.max) })
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let body = ResponseBody { [self] writer in
            var (chats, next) = first
            var separator = "["
            while true {
                var buffer = ByteBuffer()
                for chat in chats {
                    buffer.writeString(separator)
                    buffer.writeBytes(try encoder.encode(chat))
                    separator = ","
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                guard let after = next else { break }
                (chats, next) = try await page(of: room, place: place, after: after)
            }
            try await writer.write(ByteBuffer(string: separator == "[" ? "[]" : "]"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
