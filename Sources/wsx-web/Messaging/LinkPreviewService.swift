import Foundation
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
        guard let start = html.firstUTF8Range(of: #"<a href=""#) else { return nil }
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
        let now = clock.now(), renderer = self.renderer, image = picture
        try await database.write { tx in
            // The message may have gone (or been given a card) while the page was fetched.
            guard try tx.linkPreviews.awaitsPreview(messageId: messageId) else { return }
            let imageFileId = try image.map { try tx.files.insert([$0], uploader: authorId ?? 0, at: now)[0].id! }
            let preview = LinkPreview(messageId: messageId, url: url.absoluteString, title: metadata.title,
                                      description: metadata.description, siteName: metadata.siteName, imageFileId: imageFileId)
            try tx.linkPreviews.insert(preview, at: now)
            try Self.announce(tx, room: room, messageId: messageId, authorId: authorId,
                              html: renderer.neutralFragment(.linkPreview, page: preview.card))
        }
    }

    /// Takes the card off the author's own message (anyone else: 403; outside the room: 404).
    func remove(messageId: Int64, in access: WorkspaceAccess) async throws {
        try await database.write { tx in
            let (message, room) = try tx.messages.writable(id: messageId, access)
            guard message.authorId == access.userId else { throw AppError.forbidden("error_message_author_only") }
            guard try tx.linkPreviews.remove(messageId: messageId) else { return }
            try Self.announce(tx, room: room, messageId: messageId, authorId: message.authorId, html: nil)
        }
    }

    private static func announce(_ tx: any StoreTransaction, room: Room, messageId: Int64, authorId: Int64?,
                                 html: String?) throws {
        var fields: [(key: String, value: CompactJSON.Value)] = [
            ("authorId", .optional(authorId)), ("messageId", .int(messageId)), ("roomId", .int(room.id!)),
            ("workspaceId", .int(room.workspaceId)),
        ]
        if let html { fields.insert(("html", .string(html)), at: 1) }
        var event = OutgoingEvent(.messagePreview, to: .room(room.id!), json: CompactJSON.object(fields))
        event.messageId = messageId
        try tx.publish(event)
    }
}
