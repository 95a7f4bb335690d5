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
    /// A message's controls by everything they show (language, the session's CSRF token, the
    /// room, which controls): each person's pages render theirs once.
    let controls = BoundedMemo<ControlsKey, IdSlots>(capacity: 1024)

    /// Link preview cards by message (a card never changes; a removed one is not asked for).
    let cards = BoundedMemo<Int64, String>(capacity: 4096)

    /// The "Pinned" / "Saved" line of a message, by language and which of the two it says.
    let flags = BoundedMemo<FlagsKey, String>(capacity: 64)

    /// The line under a thread's root, by everything it shows.
    let threadLines = BoundedMemo<ThreadLineKey, String>(capacity: 4096)

    struct ThreadLineKey: Hashable, Sendable {
        let summary: ThreadSummary, workspaceId: Int64
    }

    struct FlagsKey: Hashable, Sendable {
        let lang: Lang, pinned: Bool, saved: Bool
    }

    /// A message's controls hold no form (Delete is a link to its question), so no CSRF token:
    /// every session of a language shares them.
    struct ControlsKey: Hashable, Sendable {
        let lang: Lang, workspaceId: Int64, roomPath: String, canEdit: Bool, canDelete: Bool, canReact: Bool
        let canReply: Bool
    }

    /// Whole lists by everything they show, so a page rendered again while its messages and the
    /// viewer's view of them are unchanged (another address, a post in another room changing the
    /// sidebar) is put together without walking fifty fragments: that walk was a seventh of a
    /// channel page's CPU. About 50 KB apiece.
    let lists = BoundedMemo<ListKey, String>(capacity: 128)

    /// Everything a page's list shows. Hashed by a few numbers (hashing the authors' names,
    /// Korean, would normalise them); equal only when every field is.
    struct ListKey: Hashable, Sendable {
        let stamps: [MessageStamp]
        let viewer: Int64, isWorkspaceOwner: Bool, workspaceId: Int64, lastRead: Int64?, editing: Int64?, roomPath: String
        let reactions: [Int64: [ReactionGroup]], pinned: Set<Int64>, saved: Set<Int64>, previews: [Int64: LinkPreview]
        let threads: [Int64: ThreadSummary], receipts: ReceiptMarkers?, canReact: Bool, canReply: Bool, readOnly: Bool
        let lang: Lang, csrfToken: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(stamps.count)
            hasher.combine(stamps.first?.id)
            hasher.combine(stamps.last?.id)
            hasher.combine(viewer)
            hasher.combine(lastRead)
            hasher.combine(editing)
            hasher.combine(csrfToken)
            hasher.combine(lang)
            hasher.combine(reactions.count)
            hasher.combine(saved.count)
        }
    }

    /// The parts a page's scripts clone, by everything they show.
    let templates = BoundedMemo<TemplatesKey, String>(capacity: 1024)

    struct TemplatesKey: Hashable, Sendable {
        let lang: Lang, csrfToken: String, workspaceId: Int64, roomPath: String, isWorkspaceOwner: Bool, canReact: Bool
        let canReply: Bool, readOnly: Bool
    }

    /// Which controls the viewer of one list gets: in which room, and what they may do there.
    struct ControlsScope {
        let workspaceId: Int64, roomPath: String, canReact: Bool, canReply: Bool, readOnly: Bool
        let request: Request, visitor: Visitor
    }

    /// The fragment every reader gets, the same bytes for all.
    func neutral(_ row: MessageRow, workspaceId: Int64) -> String {
        rendered(row, workspaceId: workspaceId).whole
    }

    /// The same fragment rendered afresh and not kept: a post's, drawn before its write with
    /// stand-in ids (`PostDraft`).
    func unkeptNeutral(_ row: MessageRow, workspaceId: Int64) -> String {
        render(row, workspaceId: workspaceId).whole
    }

    /// Keeps `html` as the fragment of `row`, so pages and events reuse it.
    func keep(_ html: String, for row: MessageRow) {
        cache.keep(RenderedMessage(html, marker: Self.actionsMarker), for: row)
    }

    /// The cached fragment, also split at the actions marker so pages splice in controls
    /// without searching the bytes again.
    private func rendered(_ row: MessageRow, workspaceId: Int64) -> RenderedMessage {
        cache.fragment(for: row) { render(row, workspaceId: workspaceId) }
    }

    private func render(_ row: MessageRow, workspaceId: Int64) -> RenderedMessage {
        RenderedMessage(pages.renderer.neutralFragment(.message, page: view(row, workspaceId: workspaceId, actionsHtml: Self.actionsMarker)),
                        marker: Self.actionsMarker)
    }

    /// The line under a thread's root, the same for every reader.
    func threadLine(_ summary: ThreadSummary, workspaceId: Int64) -> String {
        threadLines.value(for: ThreadLineKey(summary: summary, workspaceId: workspaceId)) {
            let view = ThreadSummaryView(
                rootId: summary.rootId, url: Paths.thread(workspaceId, summary.rootId),
                countTexts: LocalText.every("thread_reply_count", summary.replyCount), lastTexts: LocalText.every("thread_last_reply"),
                lastTimestamp: Timestamps.iso(summary.lastReplyAt), lastTimeText: Timestamps.utcText(summary.lastReplyAt),
                repliers: summary.repliers.map { ThreadReplierView(id: $0.id, nickname: $0.nickname, avatarURL: $0.avatarId.map { Paths.thumbnail($0) }) })
            return pages.renderer.neutralFragment(.threadSummary, page: view)
        }
    }

    /// Where a page puts a message's controls in its cached fragment (an HTML comment, so the
    /// fragment events carry is unchanged for readers).
    static let actionsMarker = "<!--actions-->"
    /// Stands for the message id in controls rendered once per page.
    /// A message id no message has (ids are positive), written where each message's own id goes.
    static let idPlaceholder: Int64 = -7_000_000_000_001

    /// What `stamps` need to be listed: their kept fragments, and whole rows, through `read`, for
    /// the others and for the message being edited (its form shows the text).
    func parts(for stamps: [MessageStamp], editing: Int64?, read: ([Int64]) throws -> [MessageRow]) rethrows -> ListParts {
        var kept = cache.kept(stamps.map(FragmentCache.Key.init))
        var missing: [Int64] = []
        for (index, stamp) in stamps.enumerated() where kept[index] == nil || stamp.id == editing {
            kept[index] = nil
            missing.append(stamp.id)
        }
        let rows = try read(missing)
        return ListParts(stamps: stamps, kept: kept, rows: Dictionary(rows.map { ($0.id, $0) }) { first, _ in first })
    }

    /// A page's list. `lastRead` places the unread line; `editing` opens that message's form;
    /// `reactions` go under their messages, the viewer's own pressed; `pinned` messages (the
    /// room's) and `saved` ones (the viewer's) say so; `threads` put their line under their
    /// roots; room members (`canReact`) get a way to react to each message, and to answer it in
    /// its thread (`canReply`: not inside a thread); a `readOnly` list (an archived channel) has
    /// no controls at all.
    func list(_ parts: ListParts, viewer: Int64, isWorkspaceOwner: Bool, workspaceId: Int64, lastRead: Int64?,
              editing: Int64?, roomPath: String, reactions: [Int64: [ReactionGroup]] = [:], pinned: Set<Int64> = [],
              saved: Set<Int64> = [], previews: [Int64: LinkPreview] = [:], threads: [Int64: ThreadSummary] = [:],
              receipts: ReceiptMarkers? = nil, canReact: Bool = false, canReply: Bool = false, readOnly: Bool = false,
              request: Request,
              visitor: Visitor) -> String {
        let key = ListKey(stamps: parts.stamps, viewer: viewer, isWorkspaceOwner: isWorkspaceOwner, workspaceId: workspaceId,
                          lastRead: lastRead, editing: editing, roomPath: roomPath, reactions: reactions, pinned: pinned,
                          saved: saved, previews: previews, threads: threads, receipts: receipts, canReact: canReact,
                          canReply: canReply, readOnly: readOnly, lang: visitor.lang, csrfToken: visitor.csrfToken)
        return lists.value(for: key) {
            assemble(parts, viewer: viewer, isWorkspaceOwner: isWorkspaceOwner, workspaceId: workspaceId, lastRead: lastRead,
                     editing: editing, roomPath: roomPath, reactions: reactions, pinned: pinned, saved: saved,
                     previews: previews, threads: threads, receipts: receipts, canReact: canReact, canReply: canReply,
                     readOnly: readOnly, request: request, visitor: visitor)
        }
    }

    /// `list`, walking the fragments.
    private func assemble(_ parts: ListParts, viewer: Int64, isWorkspaceOwner: Bool, workspaceId: Int64, lastRead: Int64?,
                          editing: Int64?, roomPath: String, reactions: [Int64: [ReactionGroup]], pinned: Set<Int64>,
                          saved: Set<Int64>, previews: [Int64: LinkPreview], threads: [Int64: ThreadSummary],
                          receipts: ReceiptMarkers?, canReact: Bool, canReply: Bool, readOnly: Bool, request: Request,
                          visitor: Visitor) -> String {
        let scope = ControlsScope(workspaceId: workspaceId, roomPath: roomPath, canReact: canReact, canReply: canReply,
                                  readOnly: readOnly, request: request, visitor: visitor)
        let ownControls = parts.stamps.contains { $0.authorId == viewer } ? controls(canEdit: true, canDelete: true, scope) : nil
        let othersControls = controls(canEdit: false, canDelete: isWorkspaceOwner, scope)
        var html = ""
        // Room for every fragment and its controls, so the list is not copied as it grows.
        html.reserveCapacity(parts.kept.reduce(0) { total, kept in total + (kept?.whole.utf8.count ?? 2048) + 1024 })
        var day: Int?
        var unreadPlaced = false
        var previous: MessageStamp?
        for (index, row) in parts.stamps.enumerated() {
            let rowDay = Timestamps.dayNumber(row.createdAt)
            if rowDay != day {
                html += Self.daySeparator(Timestamps.utcDay(row.createdAt))
                day = rowDay
                previous = nil
            }
            if let lastRead, !unreadPlaced, row.id > lastRead, row.authorId != viewer {
                html += #"<li class="unread-line" id="unread-line"><span>\#(HTMLEscaping.escape(visitor.strings["unread_line"]))</span></li>"#
                unreadPlaced = true
                previous = nil
            }
            // Both come from the read that produced the stamps, so one of them is there.
            guard let fragment = parts.kept[index] ?? parts.rows[row.id].map({ rendered($0, workspaceId: workspaceId) }) else { continue }
            // Under the one before it by the same author within five minutes: no avatar or name.
            var from = fragment.whole.startIndex
            if let previous, Self.continues(previous, with: row), fragment.whole.hasPrefix(Self.messageOpening) {
                html += Self.continuedOpening
                from = fragment.whole.utf8.index(from, offsetBy: Self.messageOpening.utf8.count)
            }
            previous = row
            let mine = row.authorId == viewer
            // A deleted root's placeholder has nothing to act on.
            let controls = row.isDeleted ? nil : mine ? ownControls : othersControls
            let groups = reactions[row.id] ?? []
            let isPinned = !pinned.isEmpty && pinned.contains(row.id), isSaved = !saved.isEmpty && saved.contains(row.id)
            let preview = previews.isEmpty ? nil : previews[row.id]
            let thread = threads.isEmpty ? nil : threads[row.id]
            let unreadBy = row.isDeleted ? 0 : receipts?.unreadBy(messageId: row.id, authorId: row.authorId) ?? 0
            guard controls != nil || !groups.isEmpty || isPinned || isSaved || preview != nil || thread != nil || unreadBy > 0,
                  let marker = fragment.marker else {
                html += fragment.whole[from...]
                continue
            }
            html += fragment.whole[from..<marker.lowerBound]
            if let preview {
                html += cards.value(for: row.id) { pages.renderer.neutralFragment(.linkPreview, page: preview.card) }
                if mine, !readOnly {
                    html += pages.fragment(.linkPreviewRemoval, page: LinkPreviewRemoval(action: Paths.removePreview(workspaceId, row.id)),
                                           request: request, visitor: visitor)
                }
            }
            if isPinned || isSaved {
                html += flags.value(for: FlagsKey(lang: visitor.lang, pinned: isPinned, saved: isSaved)) {
                    pages.fragment(.messageFlags, page: MessageFlags(pinned: isPinned, saved: isSaved), request: request, visitor: visitor)
                }
            }
            if !groups.isEmpty {
                html += reactionBar(groups, messageId: row.id, viewer: viewer, workspaceId: workspaceId, request: request, visitor: visitor)
            }
            if let thread { html += threadLine(thread, workspaceId: workspaceId) }
            if unreadBy > 0 { html += Self.receipt(unreadBy, label: visitor.strings["receipt_unread"]) }
            if mine && editing == row.id, let body = parts.rows[row.id]?.body {
                html += pages.fragment(.messageActions, page: MessageActions(
                    canEdit: true, canDelete: true, editing: true, body: body, cancelURL: Paths.message(row.id, on: roomPath),
                    editURL: "", saveURL: Paths.editMessage(workspaceId, row.id), deleteURL: Paths.deleteMessage(workspaceId, row.id)),
                    request: request, visitor: visitor)
            } else if let controls {
                controls.append(id: String(row.id), to: &html)
            }
            html += fragment.whole[marker.upperBound...]
        }
        return html
    }

    /// A message's controls, the same for every message but the id: rendered once per kind
    /// (`canEdit`/`canDelete`: one's own messages, or others' for a workspace owner).
    func controls(canEdit: Bool, canDelete: Bool, _ scope: ControlsScope) -> IdSlots? {
        guard !scope.readOnly, canEdit || canDelete || scope.canReact else { return nil }
        let (workspaceId, roomPath) = (scope.workspaceId, scope.roomPath)
        let key = ControlsKey(lang: scope.visitor.lang, workspaceId: workspaceId,
                              roomPath: roomPath, canEdit: canEdit, canDelete: canDelete, canReact: scope.canReact,
                              canReply: scope.canReply && scope.canReact)
        return self.controls.value(for: key) {
            let id = Self.idPlaceholder
            var actions = MessageActions(canEdit: canEdit, canDelete: canDelete, editing: false, body: "", cancelURL: "",
                                         editURL: Paths.message(id, on: roomPath, editing: true),
                                         saveURL: Paths.editMessage(workspaceId, id), deleteURL: Paths.deleteMessage(workspaceId, id),
                                         reactURL: scope.canReact ? Paths.messageReactions(workspaceId, id) : nil)
            if key.canReply { actions.threadURL = Paths.thread(workspaceId, id) }
            return IdSlots(pages.fragment(.messageActions, page: actions, request: scope.request, visitor: scope.visitor),
                           placeholder: String(id))
        }
    }

    /// The parts of messages a page's scripts clone (`<template id="tpl-…">`, the id slot where
    /// a message's id goes) for messages that arrive or change while it is open, rendered from
    /// the same templates and code as the page's own list, so markup is written once: the
    /// viewer's controls on their own messages and on others', the edit form, a day's
    /// separator, the pinned and saved flags, a reaction bar with one reaction, and the way to
    /// remove a link preview.
    func scriptTemplates(isWorkspaceOwner: Bool, _ scope: ControlsScope) -> String {
        let visitor = scope.visitor
        let key = TemplatesKey(lang: visitor.lang, csrfToken: visitor.csrfToken, workspaceId: scope.workspaceId,
                               roomPath: scope.roomPath, isWorkspaceOwner: isWorkspaceOwner, canReact: scope.canReact,
                               canReply: scope.canReply, readOnly: scope.readOnly)
        return templates.value(for: key) {
            let (id, slot, wid) = (Self.idPlaceholder, String(Self.idPlaceholder), scope.workspaceId)
            func fragment<Model>(_ template: TemplateName, _ model: Model) -> String {
                pages.fragment(template, page: model, request: scope.request, visitor: visitor)
            }
            var parts: [(name: String, html: String)] = [
                ("controls-own", controls(canEdit: true, canDelete: true, scope)?.filled(with: slot) ?? ""),
                ("controls-other", controls(canEdit: false, canDelete: isWorkspaceOwner, scope)?.filled(with: slot) ?? ""),
                ("day-separator", Self.daySeparator("")),
                ("receipt", Self.receipt(0, label: visitor.strings["receipt_unread"])),
                ("flags", fragment(.messageFlags, MessageFlags(pinned: true, saved: true))),
                ("reactions", fragment(.reactions, ReactionBar(action: Paths.messageReactions(wid, id), chips: [
                    ReactionChip(emoji: "", userIds: [], names: [], viewer: 0),
                ]))),
            ]
            if !scope.readOnly, scope.canReact {
                var marks = MessageActions(canEdit: false, canDelete: false, editing: false, body: "", cancelURL: "", editURL: "",
                                           saveURL: "", deleteURL: "")
                marks.withMarks = true
                parts.append(("marks", fragment(.messageActions, marks)))
            }
            if !scope.readOnly {
                parts.append(("edit-form", fragment(.messageActions, MessageActions(
                    canEdit: true, canDelete: true, editing: true, body: "", cancelURL: Paths.message(id, on: scope.roomPath),
                    editURL: "", saveURL: Paths.editMessage(wid, id), deleteURL: Paths.deleteMessage(wid, id)))))
                parts.append(("preview-remove", fragment(.linkPreviewRemoval, LinkPreviewRemoval(action: Paths.removePreview(wid, id)))))
            }
            return parts.map { #"<template id="tpl-\#($0.name)">\#($0.html)</template>"# }.joined()
        }
    }

    /// How every message's fragment begins, and how one shown under the one before it does.
    static let messageOpening = #"<li class="message"#
    static let continuedOpening = #"<li class="message message-continued"#

    /// Whether `next` reads as part of `previous`: the same author (not a deleted root's
    /// placeholder), within five minutes. The page's script applies the same rule by the
    /// reader's own day (`regroup()` in chat.js).
    static func continues(_ previous: MessageStamp, with next: MessageStamp) -> Bool {
        !previous.isDeleted && !next.isDeleted && previous.authorId != nil && previous.authorId == next.authorId
            && next.createdAt.timeIntervalSince(previous.createdAt) < 300
    }

    /// How many of a conversation's members have not read a message yet (the script keeps the
    /// number current as they read).
    static func receipt(_ count: Int, label: String) -> String {
        #"<span class="receipt" data-receipt>\#(count)<span class="visually-hidden">\#(HTMLEscaping.escape(label))</span></span>"#
    }

    /// The line that starts a day in a list (the script writes the reader's own day into it).
    static func daySeparator(_ text: String) -> String {
        #"<li class="day-separator" data-day="\#(text)"><span>\#(text)</span></li>"#
    }

    /// The reactions under one message, as `viewer` sees them.
    func reactionBar(_ groups: [ReactionGroup], messageId: Int64, viewer: Int64, workspaceId: Int64, request: Request,
                     visitor: Visitor) -> String {
        let bar = ReactionBar(action: Paths.messageReactions(workspaceId, messageId), chips: groups.map { group in
            ReactionChip(emoji: group.emoji, userIds: group.userIds, names: group.names, viewer: viewer)
        })
        return pages.fragment(.reactions, page: bar, request: request, visitor: visitor)
    }

    private func view(_ row: MessageRow, workspaceId: Int64, actionsHtml: String?) -> MessageView {
        var view = MessageView(id: row.id, authorId: row.isDeleted ? 0 : row.authorId ?? 0, author: row.authorNickname ?? "—",
                               timestamp: Timestamps.iso(row.createdAt), timeText: Timestamps.utcText(row.createdAt),
                               isEdited: row.editedAt != nil, bodyHtml: row.bodyHtml, actionsHtml: actionsHtml,
                               attachments: row.attachments.map(Self.attachment),
                               avatarURL: row.authorAvatarId.map { Paths.thumbnail($0) }, authorURL: row.authorId.map { Paths.user($0) })
        view.link = Paths.message(row.id)
        if row.authorDeactivated { view.deactivatedTexts = Self.deactivatedTexts }
        if row.authorIsBot { view.botTexts = Self.botTexts }
        if row.isDeleted {
            (view.isDeleted, view.deletedTexts) = (true, Self.deletedTexts)
        } else if let root = row.threadRootId {
            (view.threadURL, view.replyTexts) = (Paths.thread(workspaceId, root, fragment: "m-\(row.id)"), Self.replyTexts)
        }
        return view
    }

    private static let deletedTexts = LocalText.every("message_deleted_placeholder")
    private static let deactivatedTexts = LocalText.every("author_deactivated")
    private static let botTexts = LocalText.every("author_bot")
    private static let replyTexts = LocalText.every("thread_reply_context")

    private static let openTexts = LocalText.every("file_open")
    private static let downloadTexts = LocalText.every("file_download")

    static func attachment(_ file: StoredFile) -> AttachmentView {
        // Thumbnails fit in 360 × 360 px on the page, proportions kept; the box is reserved from
        // these before the picture loads, so nothing below it moves when it arrives.
        let (width, height) = Self.thumbnailBox(width: file.width, height: file.height)
        var view = AttachmentView(url: file.url, thumbnailURL: file.thumbnailURL, name: file.originalName,
                                  sizeText: byteText(file.size), isImage: file.isImage && file.hasThumbnail,
                                  kindLabel: file.kindLabel, width: width, height: height)
        if file.isPlayable { view.player = file.mime.hasPrefix("video/") ? .video : .audio }
        if file.isPDF {
            view.downloadURL = file.downloadURL
            (view.openTexts, view.downloadTexts) = (Self.openTexts, Self.downloadTexts)
        }
        return view
    }

    /// The shown size of a picture of `width` × `height` (unknown: 360 × 240), within 360 × 360.
    static func thumbnailBox(width: Int?, height: Int?) -> (width: Int, height: Int) {
        guard let width, let height, width > 0, height > 0 else { return (360, 240) }
        let scale = min(1, 360 / Double(max(width, height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    static func byteText(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: "\(bytes) B"
        case ..<(1024 * 1024): String(format: "%.0f KB", Double(bytes) / 1024)
        default: String(format: "%.1f MB", Double(bytes) / 1_048_576)
        }
    }
}

/// Controls rendered once with a placeholder where the message id goes, cut at each
/// placeholder, so every message gets its copy by a few appends. (Cutting with Foundation's
/// `components(separatedBy:)`, or the standard library's `split`, was 5% of a channel page.)
struct IdSlots: Sendable {
    /// The text around the placeholders: one more piece than there are placeholders.
    let pieces: [String]

    init(_ html: String, placeholder: String) {
        var html = html
        let marker = Array(placeholder.utf8)
        pieces = html.withUTF8 { bytes in
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            var pieces: [String] = []
            var start = 0, index = 0
            while index + marker.count <= bytes.count {
                if bytes[index] == marker[0], bytes[index ..< index + marker.count].elementsEqual(marker) {
                    pieces.append(text(start ..< index))
                    index += marker.count
                    start = index
                } else {
                    index += 1
                }
            }
            pieces.append(text(start ..< bytes.count))
            return pieces
        }
    }

    /// The controls with `text` in every slot.
    func filled(with text: String) -> String {
        pieces.joined(separator: text)
    }

    /// The controls with `id` in every slot, appended to `html`.
    func append(id: String, to html: inout String) {
        html += pieces[0]
        for index in 1 ..< pieces.count {
            html += id
            html += pieces[index]
        }
    }
}

/// What a page's list is made of: fragments rendered before, and whole rows for the rest.
struct ListParts: Sendable {
    let stamps: [MessageStamp]
    /// For each stamp, in order, its kept fragment (nil: render it from `rows`).
    let kept: [RenderedMessage?]
    let rows: [Int64: MessageRow]
}

/// A message's rendered fragment and where its actions marker is. A class, so the fifty a page
/// lists are passed around by one reference each (copying them showed in the page's profile).
final class RenderedMessage: Sendable {
    let whole: String
    let marker: Range<String.Index>?

    init(_ html: String, marker: String) {
        whole = html
        self.marker = html.firstUTF8Range(of: marker)
    }
}

/// A bounded cache of rendered message fragments, keyed by every input of the rendering that
/// can change (edit time, author name and photo), so an entry can never be stale: a change makes
/// a new key. When full, the oldest half is dropped.
final class FragmentCache: Sendable {
    private struct State {
        var entries: [Key: (html: RenderedMessage, order: Int)] = [:]
        var counter = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The fragment rendered before for `key`, if it is still kept.
    func kept(_ key: Key) -> RenderedMessage? {
        state.withLock { $0.entries[key]?.html }
    }

    /// The same for each of `keys`, under one lock.
    func kept(_ keys: [Key]) -> [RenderedMessage?] {
        state.withLock { state in keys.map { state.entries[$0]?.html } }
    }

    func fragment(for row: MessageRow, render: () -> RenderedMessage) -> RenderedMessage {
        let key = Key(MessageStamp(row))
        if let hit = kept(key) { return hit }
        let html = render()
        keep(html, for: key)
        return html
    }

    /// Keeps `html` as the fragment of `row`, rendered elsewhere (a post's, before its write).
    func keep(_ html: RenderedMessage, for row: MessageRow) {
        keep(html, for: Key(MessageStamp(row)))
    }

    private func keep(_ html: RenderedMessage, for key: Key) {
        state.withLock { state in
            state.counter += 1
            state.entries[key] = (html, state.counter)
            if state.entries.count > capacity {
                let cutoff = state.counter - capacity / 2
                state.entries = state.entries.filter { $0.value.order > cutoff }
            }
        }
    }

    /// Everything a message's fragment shows that can change. Its files cannot: they are stored
    /// with the message and never replaced, and message ids are never reused.
    struct Key: Hashable {
        let id: Int64
        let editedAt: Date?
        let author: String?
        let avatarId: Int64?
        let isDeleted: Bool
        let authorDeactivated: Bool

        init(_ stamp: MessageStamp) {
            (id, editedAt, author, avatarId) = (stamp.id, stamp.editedAt, stamp.authorNickname, stamp.authorAvatarId)
            (isDeleted, authorDeactivated) = (stamp.isDeleted, stamp.authorDeactivated)
        }

        /// The id alone spreads the keys (equality still compares everything); hashing the
        /// author's name for each of a page's fifty lookups showed in its profile.
        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
        }
    }
}
