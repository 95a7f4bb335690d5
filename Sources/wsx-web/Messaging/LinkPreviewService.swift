import Foundation
import GRDB
import LinkPreviews
import Logging
import Uploads
import Views

/// A message's link preview as stored: what the card shows.
struct LinkPreview: Sendable, Equatable {
    let messageId: Int64
    let url: String
    let title: String
    let description: String
    let siteName: String
    let imageFileId: Int64?

    var card: LinkPreviewCard {
        LinkPreviewCard(messageId: messageId, url: url, host: URL(string: url)?.host() ?? "", title: title,
                        description: description, siteName: siteName, imageURL: imageFileId.map { Paths.thumbnail($0) })
    }
}

/// Link previews: after a message with an `http(s)` link commits, its first link's page is
/// fetched (through `SafeFetcher`, in the background: the post never waits), and a card with the
/// page's title, description, site and picture goes under the message, live, on every reader's
/// page. The picture goes through the upload checks (typed by its bytes, an image, thumbnailed)
/// and is stored as one of our files. Off when `fetcher` is nil (`--link-previews off`).
struct LinkPreviewService: Sendable {
    let database: AppDatabase
    let fetcher: SafeFetcher?
    let files: FileService
    let renderer: PageRenderer
    let clock: WallClock
    let logger: Logger

    /// The first `http(s)` link of a message, from its HTML: links there are only ever written
    /// by the renderer (code is never linked), as `<a href="…"`.
    static func firstLink(inHTML html: String) -> URL? {
        guard let start = html.range(of: #"<a href=""#) else { return nil }
        let rest = html[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        let address = String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        return url
    }

    /// Starts making the preview of a message just posted, if it has a link and previews are on.
    /// Returns the work, for a caller that wants to wait for it (tests); pages do not.
    @discardableResult
    func schedule(_ posted: WrittenMessage, in room: Room) -> Task<Void, Never>? {
        guard let fetcher, !posted.isRepeat, let url = Self.firstLink(inHTML: posted.row.bodyHtml) else { return nil }
        let messageId = posted.id, authorId = posted.row.authorId
        return Task.detached { [self] in
            do {
                try await make(url: url, messageId: messageId, authorId: authorId, room: room, fetcher: fetcher)
            } catch {
                logger.debug("no link preview", metadata: ["message": "\(messageId)", "reason": "\(error)"])
            }
        }
    }

    private func make(url: URL, messageId: Int64, authorId: Int64?, room: Room, fetcher: SafeFetcher) async throws {
        let page = try await fetcher.fetch(url, accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", oversize: .truncate)
        guard page.mediaType == "text/html" || page.mediaType == "application/xhtml+xml" else { return }
        let metadata = PageMetadata.read(html: page.body, from: page.url)
        guard !metadata.isEmpty else { return }
        var picture: PreparedFile?
        if let imageURL = metadata.imageURL {
            do {
                let image = try await fetcher.fetch(imageURL, accept: "image/*", oversize: .refuse)
                let received = try files.receiver.receive(bytes: image.body, name: "preview", field: "preview", kind: .image)
                picture = try await files.prepare(ReceivedForm(files: [received])).first
            } catch {
                // A card without its picture is still a card.
                logger.debug("no link preview image", metadata: ["message": "\(messageId)", "reason": "\(error)"])
            }
        }
        let now = clock.now(), outbox = database.outbox, renderer = self.renderer, image = picture
        try await database.writer.write { db in
            // The message may have gone (or been given a card) while the page was fetched.
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE id = ?)", arguments: [messageId]) == true,
                  try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM link_previews WHERE message_id = ?)",
                                    arguments: [messageId]) == false
            else { return }
            let imageFileId = try image.map { try FileService.insert(db, [$0], uploader: authorId ?? 0, at: now)[0].id! }
            let preview = LinkPreview(messageId: messageId, url: url.absoluteString, title: metadata.title,
                                      description: metadata.description, siteName: metadata.siteName, imageFileId: imageFileId)
            try db.execute(sql: """
                INSERT INTO link_previews (message_id, url, title, description, site_name, image_file_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [messageId, preview.url, preview.title, preview.description, preview.siteName, imageFileId, now])
            try Self.announce(db, outbox: outbox, room: room, messageId: messageId, authorId: authorId,
                              html: renderer.neutralFragment(.linkPreview, page: preview.card))
        }
    }

    /// Takes the card off the author's own message (anyone else: 403; outside the room: 404).
    func remove(messageId: Int64, in access: WorkspaceAccess) async throws {
        let outbox = database.outbox
        try await database.writer.write { db in
            let (message, room) = try MessageService.writableMessage(db, id: messageId, access)
            guard message.authorId == access.userId else { throw AppError.forbidden("error_message_author_only") }
            try db.execute(sql: "DELETE FROM link_previews WHERE message_id = ?", arguments: [messageId])
            guard db.changesCount > 0 else { return }
            try Self.announce(db, outbox: outbox, room: room, messageId: messageId, authorId: message.authorId, html: nil)
        }
    }

    private static func announce(_ db: Database, outbox: EventOutbox, room: Room, messageId: Int64, authorId: Int64?,
                                 html: String?) throws {
        var fields: [(key: String, value: CompactJSON.Value)] = [
            ("authorId", .optional(authorId)), ("messageId", .int(messageId)), ("roomId", .int(room.id!)),
            ("workspaceId", .int(room.workspaceId)),
        ]
        if let html { fields.insert(("html", .string(html)), at: 1) }
        var event = OutgoingEvent(.messagePreview, to: .room(room.id!), json: CompactJSON.object(fields))
        event.messageId = messageId
        try outbox.publish(event, in: db)
    }

    /// The cards of those of `messageIds` that have one.
    static func previews(_ db: Database, among messageIds: [Int64]) throws -> [Int64: LinkPreview] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT message_id, url, title, description, site_name, image_file_id FROM link_previews
            WHERE message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            """), arguments: StatementArguments(messageIds))
        var found: [Int64: LinkPreview] = [:]
        for row in rows {
            let preview = LinkPreview(messageId: row[0], url: row[1], title: row[2], description: row[3], siteName: row[4],
                                      imageFileId: row[5])
            found[preview.messageId] = preview
        }
        return found
    }
}
