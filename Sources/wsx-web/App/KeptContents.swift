import Views

/// Page contents kept by what they are a pure function of, so a page whose content did not
/// change has only its chrome put around it again (`SplicedPages.document`).
///
/// The caller's key holds everything the content shows (the kept reads it came from, which
/// compare by identity while unchanged); the content is rendered with a chrome of the language,
/// the site's links and the workspace alone, so nothing else of the chrome can slip into it (a
/// template naming more renders nothing, which tests see at once). A new input makes a new key:
/// a kept content is never stale.
final class KeptContents<Key: Hashable & Sendable>: Sendable {
    private let memo: BoundedMemo<Entry, String>

    private struct Entry: Hashable, Sendable {
        let lang: Lang
        let workspaceId: Int64?
        let key: Key
    }

    /// At most `capacity` contents (a workspace home's is about 8 KB).
    init(capacity: Int = 512) { memo = BoundedMemo(capacity: capacity) }

    /// The content for `key`, rendered from `page()` when not kept.
    func content<Page>(_ renderer: PageRenderer, _ template: TemplateName, key: Key, chrome: Chrome, page: () -> Page) -> String {
        // Built only when rendering: a kept content needs nothing of the chrome but its key.
        func render() -> String {
            var bare = Chrome(lang: chrome.lang, csrfToken: "", viewer: nil, currentWorkspaceId: chrome.currentWorkspaceId, path: "",
                              cssURL: "", scriptURLs: [], links: chrome.links)
            bare.workspace = chrome.workspace
            return renderer.content(template, page: page(), chrome: bare)
        }
        guard !renderer.watchesFolder else { return render() }
        return memo.value(for: Entry(lang: chrome.lang, workspaceId: chrome.currentWorkspaceId, key: key), compute: render)
    }
}
