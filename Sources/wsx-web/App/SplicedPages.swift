import Foundation
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

        func around(_ middle: String) -> String {
            var whole = ""
            whole.reserveCapacity(before.utf8.count + middle.utf8.count + after.utf8.count)
            whole += before
            whole += middle
            whole += after
            return whole
        }
    }

    struct LayoutKey: Hashable, Sendable {
        let chrome: Chrome
        let title: String
    }

    struct RoomKey: Hashable, Sendable {
        let lang: Lang
        let csrfToken: String
        let page: RoomPage
    }

    /// At most `capacity` of each (about 10 KB of text apiece on a channel page, so a few MB).
    init(capacity: Int = 512) {
        layouts = BoundedMemo(capacity: capacity)
        rooms = BoundedMemo(capacity: capacity)
    }

    /// The layout around `contentHtml`.
    func document(_ renderer: PageRenderer, title: String, contentHtml: String, chrome: Chrome) -> String {
        guard !renderer.watchesFolder else { return renderer.document(title: title, contentHtml: contentHtml, chrome: chrome) }
        return layouts.value(for: LayoutKey(chrome: chrome, title: title)) {
            split(renderer.document(title: title, contentHtml: slot, chrome: chrome))
        }.around(contentHtml)
    }

    /// A room page's content. It is rendered with a chrome of the language and CSRF token alone,
    /// the only parts of the chrome its key holds (a template naming another renders nothing,
    /// which tests see at once).
    func room(_ renderer: PageRenderer, _ page: RoomPage, chrome: Chrome) -> String {
        let bare = Chrome(lang: chrome.lang, csrfToken: chrome.csrfToken, viewer: nil, path: "", cssURL: "",
                          scriptURLs: [], links: chrome.links)
        guard !renderer.watchesFolder else { return renderer.content(.room, page: page, chrome: bare) }
        var skeleton = page
        skeleton.messagesHtml = slot
        skeleton.messageTemplatesHtml = templatesSlot
        let kept = rooms.value(for: RoomKey(lang: chrome.lang, csrfToken: chrome.csrfToken, page: skeleton)) {
            let around = split(renderer.fragment(.room, page: skeleton, chrome: bare))
            // The templates come after the messages.
            guard let templates = around.after.range(of: templatesSlot) else { return RoomAround(around, between: nil) }
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

        func around(_ messages: String, templates: String) -> String {
            guard let between else { return outer.around(messages) }
            var whole = ""
            whole.reserveCapacity(outer.before.utf8.count + messages.utf8.count + between.utf8.count + templates.utf8.count
                + outer.after.utf8.count)
            whole += outer.before
            whole += messages
            whole += between
            whole += templates
            whole += outer.after
            return whole
        }
    }

    private func split(_ rendered: String) -> Around {
        guard let range = rendered.range(of: slot) else { return Around(before: rendered, after: "") }
        return Around(before: String(rendered[..<range.lowerBound]), after: String(rendered[range.upperBound...]))
    }
}
