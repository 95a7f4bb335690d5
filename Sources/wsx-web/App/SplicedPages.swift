import Foundation
import NIOCore
import Views

/// Rendered pages kept as the text around their one large part, so a page whose other inputs
/// did not change is put together instead of rendered again.
///
/// Two parts are kept: the layout around a page's content, by the whole chrome (sidebar,
/// counts, event id, notice) and title; and a room page's content around its message list, by
/// the room page's every other field, the language and the CSRF token. Each is a pure function
/// of its key, so a kept part is never stale: anything a page shows that changed makes a new
/// key. (The messages have their own fragments, `FragmentCache`.)
final class SplicedPages: Sendable {
    /// Where the large part goes; random per process, so no text a person writes can be it.
    private let slot = "\u{0}wsx-\(UUID().uuidString)\u{0}"
    /// Where a room page's script templates go: the same for every page of a room and viewer,
    /// and kilobytes long, so they are spliced like the messages rather than hashed into the
    /// key on every request (hashing a String normalises it: 7% of a page's CPU).
    private let templatesSlot = "\u{0}wsx-templates-\(UUID().uuidString)\u{0}"
    private let layouts: BoundedMemo<LayoutKey, Around>
    private let rooms: BoundedMemo<RoomKey, RoomAround>

    /// The text before and after the slot.
    struct Around: Sendable {
        let before: String
        let after: String
    }

    /// A page's content: its text in order, written once into the response (a channel page is
    /// some 70 KB, and joining its parts into one String, then the layout around it, then
    /// copying that into a buffer copied it three times).
    struct Content: Sendable {
        let pieces: [String]

        init(_ pieces: String...) { self.pieces = pieces }
        init(pieces: [String]) { self.pieces = pieces }
    }

    /// Hashes what tells two layouts apart cheaply (ids, counts, flags, the address, the token)
    /// and leaves out the sidebar's names: hashing a String that is not ASCII normalises it, and
    /// hashing every Korean name in the sidebar was 3–4% of a page's CPU. Equality still compares
    /// every field, so two keys are the same only when all of the chrome is.
    struct LayoutKey: Hashable, Sendable {
        let chrome: Chrome
        let title: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(title.utf8.count)
            hasher.combine(chrome.lang)
            hasher.combine(chrome.csrfToken)
            hasher.combine(chrome.path)
            hasher.combine(chrome.viewer?.id)
            hasher.combine(chrome.currentWorkspaceId)
            hasher.combine(chrome.lastEventId)
            hasher.combine(chrome.roomsCountedThrough)
            hasher.combine(chrome.coinBalance)
            hasher.combine(chrome.threadsUnread)
            hasher.combine(chrome.mentionsUnread)
            hasher.combine(chrome.flash?.utf8.count)
            hasher.combine(chrome.workspaces.count)
            hasher.combine(chrome.rooms.count)
            for room in chrome.rooms {
                hasher.combine(room.id)
                hasher.combine(room.unread)
                hasher.combine(room.mentions)
                hasher.combine(room.isCurrent)
            }
        }
    }

    /// Hashed by the room, the page's position and the session; equal only when the whole
    /// skeleton is (see `LayoutKey`).
    struct RoomKey: Hashable, Sendable {
        let lang: Lang
        let csrfToken: String
        let page: RoomPage

        func hash(into hasher: inout Hasher) {
            hasher.combine(lang)
            hasher.combine(csrfToken)
            hasher.combine(page.workspaceId)
            hasher.combine(page.roomId)
            hasher.combine(page.isMember)
            hasher.combine(page.olderURL)
            hasher.combine(page.newerURL)
            hasher.combine(page.title.utf8.count)
            hasher.combine(page.content.utf8.count)
        }
    }

    /// At most `capacity` of each (about 10 KB of text apiece on a channel page, so a few MB).
    init(capacity: Int = 512) {
        layouts = BoundedMemo(capacity: capacity)
        rooms = BoundedMemo(capacity: capacity)
    }

    /// The whole page: the layout around `content`, in one buffer.
    func document(_ renderer: PageRenderer, title: String, content: Content, chrome: Chrome) -> ByteBuffer {
        guard !renderer.watchesFolder else {
            return Self.bytes([renderer.document(title: title, contentHtml: content.pieces.joined(), chrome: chrome)])
        }
        let layout = layouts.value(for: LayoutKey(chrome: chrome, title: title)) {
            split(renderer.document(title: title, contentHtml: slot, chrome: chrome))
        }
        return Self.bytes([layout.before] + content.pieces + [layout.after])
    }

    private static func bytes(_ pieces: [String]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: pieces.reduce(0) { $0 + $1.utf8.count })
        for piece in pieces { buffer.writeString(piece) }
        return buffer
    }

    /// A room page's content. It is rendered with a chrome of the language and CSRF token alone,
    /// the only parts of the chrome its key holds (a template naming another renders nothing,
    /// which tests see at once).
    func room(_ renderer: PageRenderer, _ page: RoomPage, chrome: Chrome) -> Content {
        let bare = Chrome(lang: chrome.lang, csrfToken: chrome.csrfToken, viewer: nil, path: "", cssURL: "",
                          scriptURLs: [], links: chrome.links)
        guard !renderer.watchesFolder else { return Content(renderer.content(.room, page: page, chrome: bare)) }
        var skeleton = page
        skeleton.messagesHtml = slot
        skeleton.messageTemplatesHtml = templatesSlot
        let kept = rooms.value(for: RoomKey(lang: chrome.lang, csrfToken: chrome.csrfToken, page: skeleton)) {
            let around = split(renderer.fragment(.room, page: skeleton, chrome: bare))
            // The templates come after the messages.
            guard let templates = around.after.firstUTF8Range(of: templatesSlot) else { return RoomAround(around, between: nil) }
            return RoomAround(Around(before: around.before, after: String(around.after[templates.upperBound...])),
                              between: String(around.after[..<templates.lowerBound]))
        }
        return kept.around(page.messagesHtml, templates: page.messageTemplatesHtml)
    }

    /// A room page's content around its messages and, after them, its script templates.
    struct RoomAround: Sendable {
        let outer: Around
        /// The text between the messages and the templates; nil when the page has no templates.
        let between: String?

        init(_ outer: Around, between: String?) {
            (self.outer, self.between) = (outer, between)
        }

        func around(_ messages: String, templates: String) -> Content {
            guard let between else { return Content(outer.before, messages, outer.after) }
            return Content(outer.before, messages, between, templates, outer.after)
        }
    }

    private func split(_ rendered: String) -> Around {
        guard let range = rendered.firstUTF8Range(of: slot) else { return Around(before: rendered, after: "") }
        return Around(before: String(rendered[..<range.lowerBound]), after: String(rendered[range.upperBound...]))
    }
}
