import Foundation
import Synchronization
import Hummingbird
import Views

/// Renders messages: the viewer-neutral fragment events carry, and a page's list with day
/// separators, the "read up to here" line and the viewer's own controls.
struct MessageListRenderer: Sendable {
    let pages: Pages
    /// Rendered fragments by everything they show: a message is rendered once, then every page
    /// and event that shows it reuses the bytes (template rendering dominated page time).
    let cache = FragmentCache(capacity: 20_000)

    /// The fragment every reader gets, the same bytes for all.
    func neutral(_ row: MessageRow) -> String {
        rendered(row).whole
    }

    /// The cached fragment, also split at the actions marker so pages splice in controls
    /// without searching the bytes again.
    private func rendered(_ row: MessageRow) -> RenderedMessage {
        cache.fragment(for: row) {
            RenderedMessage(pages.renderer.neutralFragment(.message, page: view(row, actionsHtml: Self.actionsMarker)),
                            marker: Self.actionsMarker)
        }
    }

    /// Where a page puts a message's controls in its cached fragment (an HTML comment, so the
    /// fragment events carry is unchanged for readers).
    static let actionsMarker = "<!--actions-->"
    /// Stands for the message id in controls rendered once per page.
    static let idPlaceholder = "MESSAGE-ID"

    /// A page's list. `lastRead` places the unread line; `editing` opens that message's form.
    func list(_ rows: [MessageRow], viewer: Int64, isWorkspaceOwner: Bool, workspaceId: Int64, lastRead: Int64?,
              editing: Int64?, roomPath: String, request: Request, visitor: Visitor) -> String {
        // The controls are the same for every message but the id: render them once per kind.
        func controls(canEdit: Bool) -> String {
            let id = Self.idPlaceholder
            let actions = MessageActions(messageId: id, workspaceId: workspaceId, canEdit: canEdit, canDelete: true,
                                         editing: false, body: "", cancelURL: "",
                                         editURL: "\(roomPath)?around=\(id)&edit=\(id)#m-\(id)")
            return pages.fragment(.messageActions, page: actions, request: request, visitor: visitor)
        }
        // Split once at the id placeholder; each message joins the pieces around its id.
        let ownControls = rows.contains { $0.authorId == viewer }
            ? controls(canEdit: true).components(separatedBy: Self.idPlaceholder) : []
        let moderatorControls = isWorkspaceOwner
            ? controls(canEdit: false).components(separatedBy: Self.idPlaceholder) : []
        var html = ""
        var day = ""
        var unreadPlaced = false
        for row in rows {
            let rowDay = Timestamps.utcDay(row.createdAt)
            if rowDay != day {
                html += #"<li class="day-separator" data-day="\#(rowDay)"><span>\#(rowDay)</span></li>"#
                day = rowDay
            }
            if let lastRead, !unreadPlaced, row.id > lastRead, row.authorId != viewer {
                html += #"<li class="unread-line" id="unread-line"><span>\#(HTMLEscaping.escape(visitor.strings["unread_line"]))</span></li>"#
                unreadPlaced = true
            }
            let mine = row.authorId == viewer
            let pieces = mine ? ownControls : moderatorControls
            var actionsHtml = pieces.joined(separator: String(row.id))
            if mine && editing == row.id {
                actionsHtml = pages.fragment(.messageActions, page: MessageActions(
                    messageId: String(row.id), workspaceId: workspaceId, canEdit: true, canDelete: true, editing: true,
                    body: row.body, cancelURL: "\(roomPath)?around=\(row.id)#m-\(row.id)", editURL: ""),
                    request: request, visitor: visitor)
            }
            let fragment = rendered(row)
            if !actionsHtml.isEmpty, let around = fragment.aroundMarker {
                html += around.before
                html += actionsHtml
                html += around.after
            } else {
                html += fragment.whole
            }
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
}

/// A message's rendered fragment, whole and split around the actions marker.
struct RenderedMessage: Sendable {
    let whole: String
    let aroundMarker: (before: Substring, after: Substring)?

    init(_ html: String, marker: String) {
        whole = html
        aroundMarker = html.firstRange(of: marker).map { (html[..<$0.lowerBound], html[$0.upperBound...]) }
    }
}

/// A bounded cache of rendered message fragments, keyed by every input of the rendering (id,
/// edit time, author name and photo, files), so an entry can never be stale: a change makes a
/// new key. When full, the oldest half is dropped.
final class FragmentCache: Sendable {
    private struct State {
        var entries: [Key: (html: RenderedMessage, order: Int)] = [:]
        var counter = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func fragment(for row: MessageRow, render: () -> RenderedMessage) -> RenderedMessage {
        let key = Key(row)
        if let hit = state.withLock({ $0.entries[key]?.html }) { return hit }
        let html = render()
        state.withLock { state in
            state.counter += 1
            state.entries[key] = (html, state.counter)
            if state.entries.count > capacity {
                let cutoff = state.counter - capacity / 2
                state.entries = state.entries.filter { $0.value.order > cutoff }
            }
        }
        return html
    }

    /// Everything a message's fragment shows that can change.
    struct Key: Hashable {
        let id: Int64
        let editedAt: Date?
        let author: String?
        let avatarId: Int64?
        let fileIds: [Int64?]

        init(_ row: MessageRow) {
            (id, editedAt, author, avatarId) = (row.id, row.editedAt, row.authorNickname, row.authorAvatarId)
            fileIds = row.attachments.map(\.id)
        }
    }
}
