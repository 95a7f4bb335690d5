import Foundation
import Hummingbird
import Views

/// Renders messages: the viewer-neutral fragment events carry, and a page's list with day
/// separators, the "read up to here" line and the viewer's own controls.
struct MessageListRenderer: Sendable {
    let pages: Pages

    /// The fragment every reader gets, the same bytes for all.
    func neutral(_ row: MessageRow) -> String {
        pages.renderer.neutralFragment(.message, page: view(row, actionsHtml: nil))
    }

    /// A page's list. `lastRead` places the unread line; `editing` opens that message's form.
    func list(_ rows: [MessageRow], viewer: Int64, isWorkspaceOwner: Bool, workspaceId: Int64, lastRead: Int64?,
              editing: Int64?, roomPath: String, request: Request, visitor: Visitor) -> String {
        var html = ""
        var day = ""
        var unreadPlaced = false
        for row in rows {
            let rowDay = Self.utcDay(row.createdAt)
            if rowDay != day {
                html += #"<li class="day-separator" data-day="\#(rowDay)"><span>\#(rowDay)</span></li>"#
                day = rowDay
            }
            if let lastRead, !unreadPlaced, row.id > lastRead, row.authorId != viewer {
                html += #"<li class="unread-line" id="unread-line"><span>\#(MessageText.escape(visitor.strings["unread_line"][...]))</span></li>"#
                unreadPlaced = true
            }
            let mine = row.authorId == viewer
            var actionsHtml: String?
            if mine || isWorkspaceOwner {
                let actions = MessageActions(messageId: row.id, workspaceId: workspaceId, canEdit: mine, canDelete: true,
                                             editing: mine && editing == row.id, body: row.body,
                                             cancelURL: "\(roomPath)?around=\(row.id)#m-\(row.id)",
                                             editURL: "\(roomPath)?around=\(row.id)&edit=\(row.id)#m-\(row.id)")
                actionsHtml = pages.fragment(.messageActions, page: actions, request: request, visitor: visitor)
            }
            html += pages.renderer.neutralFragment(.message, page: view(row, actionsHtml: actionsHtml))
        }
        return html
    }

    private func view(_ row: MessageRow, actionsHtml: String?) -> MessageView {
        MessageView(id: row.id, authorId: row.authorId ?? 0, author: row.authorNickname ?? "—",
                    timestamp: Timestamps.iso(row.createdAt), timeText: Timestamps.utcText(row.createdAt),
                    isEdited: row.editedAt != nil, bodyHtml: row.bodyHtml, actionsHtml: actionsHtml,
                    attachments: row.attachments.map(Self.attachment),
                    avatarURL: row.authorAvatarId.map { "/files/\($0)/thumb" })
    }

    static func attachment(_ file: StoredFile) -> AttachmentView {
        // Thumbnails are at most 360 px wide on the page; keep the image's proportions.
        let width = min(file.width ?? 360, 360)
        let height = file.width.map { w in Int((Double(file.height ?? w) * Double(width) / Double(max(w, 1))).rounded()) } ?? 240
        return AttachmentView(url: file.url, thumbnailURL: file.thumbnailURL, name: file.originalName,
                              sizeText: byteText(file.size), isImage: file.isImage && file.hasThumbnail,
                              kindLabel: file.mime == "application/pdf" ? "PDF" : file.mime == "application/zip" ? "ZIP" : "FILE",
                              width: width, height: height)
    }

    static func byteText(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: "\(bytes) B"
        case ..<(1024 * 1024): String(format: "%.0f KB", Double(bytes) / 1024)
        default: String(format: "%.1f MB", Double(bytes) / 1_048_576)
        }
    }

    static func utcDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
