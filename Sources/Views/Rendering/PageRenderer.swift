import Foundation
import Synchronization

/// Renders view models into HTML documents with the templates of `Templates/`.
///
/// Templates come either from the copy embedded in the binary (loaded once) or, for development,
/// from a folder that is re-read whenever one of its files changes, so edits show on reload.
public final class PageRenderer: Sendable {
    /// Where the templates come from.
    public enum Source: Sendable {
        /// Template texts keyed by file name (`layout.mustache`), e.g. the embedded copy.
        case files([String: Data])
        /// A folder of `*.mustache` files, watched for edits.
        case directory(String)
    }

    private struct Loaded: Sendable {
        var libraries: Libraries
        var stamp: [String: Date]
    }

    /// The templates as written (for viewer-neutral fragments) and translated into each language.
    private struct Libraries: Sendable {
        let neutral: TemplateLibrary
        let translated: [Lang: TemplateLibrary]
    }

    private let source: Source
    private let loaded: Mutex<Loaded>

    /// Templates are re-read from a folder as they are edited, so rendered parts must not be kept.
    public var watchesFolder: Bool {
        if case .directory = source { return true }
        return false
    }

    /// Loads and parses every template, failing with a message that names a missing folder, a
    /// missing template or a template that does not parse.
    public init(source: Source) throws {
        self.source = source
        let (files, stamp) = try Self.read(source)
        self.loaded = Mutex(Loaded(libraries: try Self.libraries(from: files), stamp: stamp))
    }

    /// A full page: `template` rendered with `page`, placed in the layout.
    public func document<Page>(_ template: TemplateName, title: String, page: Page, chrome: Chrome) -> String {
        let strings = chrome.lang.strings
        // The chrome becomes a template value once, for the page and the layout.
        let chromeValue = chrome.templateValue
        let content = render(template, PageContext(t: strings.table, chrome: chromeValue, page: page), in: chrome.lang,
                             capacity: Self.pageCapacity)
        let layout = LayoutContext(t: strings.table, chrome: chromeValue, title: title, contentHtml: content)
        return render(.layout, layout, in: chrome.lang, capacity: content.utf8.count + Self.pageCapacity)
    }

    /// A page's content, no layout (`document(title:contentHtml:chrome:)` puts it in one).
    public func content<Page>(_ template: TemplateName, page: Page, chrome: Chrome) -> String {
        render(template, PageContext(t: chrome.lang.strings.table, chrome: chrome.templateValue, page: page), in: chrome.lang,
               capacity: Self.pageCapacity)
    }

    /// The layout around content already rendered.
    public func document(title: String, contentHtml: String, chrome: Chrome) -> String {
        let layout = LayoutContext(t: chrome.lang.strings.table, chrome: chrome.templateValue, title: title, contentHtml: contentHtml)
        return render(.layout, layout, in: chrome.lang, capacity: contentHtml.utf8.count + Self.pageCapacity)
    }

    /// A fragment: `template` rendered with `page` and no layout (for live updates).
    public func fragment<Page>(_ template: TemplateName, page: Page, chrome: Chrome) -> String {
        render(template, PageContext(t: chrome.lang.strings.table, chrome: chrome.templateValue, page: page), in: chrome.lang)
    }

    /// A viewer-neutral fragment: `template` rendered with only `page` (no chrome, no
    /// translations, no per-session values), so the same bytes can go to every reader.
    public func neutralFragment<Page>(_ template: TemplateName, page: Page) -> String {
        render(template, NeutralContext(page: page), in: nil)
    }

    /// Reserved for a page's content and again for the layout around it, so a page is not copied
    /// as it grows (growing showed in the channel page's profile).
    private static let pageCapacity = 16 * 1024

    private func render(_ template: TemplateName, _ context: some TemplateContext, in lang: Lang?, capacity: Int = 0) -> String {
        let libraries = currentLibraries()
        let library = lang.flatMap { libraries.translated[$0] } ?? libraries.neutral
        // Every name was checked at load time, so a nil here is a programming error.
        guard let html = library.render(template.rawValue, context.templateValue, capacity: capacity) else {
            preconditionFailure("template \(template.rawValue) vanished after loading")
        }
        return html
    }

    private func currentLibraries() -> Libraries {
        guard case .directory = source else { return loaded.withLock { $0.libraries } }
        return loaded.withLock { state in
            // Development: reload when a file was added, removed or edited. A broken edit keeps the
            // previous templates and logs nothing here; the next good save is picked up.
            if let (files, stamp) = try? Self.read(source), stamp != state.stamp,
               let libraries = try? Self.libraries(from: files) {
                state = Loaded(libraries: libraries, stamp: stamp)
            }
            return state.libraries
        }
    }

    private static func read(_ source: Source) throws -> ([String: Data], [String: Date]) {
        switch source {
        case .files(let files):
            return (files, [:])
        case .directory(let path):
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw TemplateError.missingDirectory(path)
            }
            var files: [String: Data] = [:]
            var stamp: [String: Date] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasSuffix(".mustache") {
                let full = (path as NSString).appendingPathComponent(name)
                files[name] = try Data(contentsOf: URL(fileURLWithPath: full))
                stamp[name] = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate]) as? Date
            }
            return (files, stamp)
        }
    }

    private static func libraries(from files: [String: Data]) throws -> Libraries {
        let texts = files.filter { $0.key.hasSuffix(".mustache") }.mapValues { String(decoding: $0, as: UTF8.self) }
        var translated: [Lang: TemplateLibrary] = [:]
        for lang in Lang.allCases {
            translated[lang] = try library(from: texts.mapValues { TemplateTranslation.translate($0, with: lang.strings.table) })
        }
        return Libraries(neutral: try library(from: texts), translated: translated)
    }

    private static func library(from texts: [String: String]) throws -> TemplateLibrary {
        let library = try TemplateLibrary(texts: Dictionary(uniqueKeysWithValues: texts.map { (String($0.key.dropLast(".mustache".count)), $0.value) }))
        for name in TemplateName.allCases where !library.contains(name.rawValue) {
            throw TemplateError.missingTemplate(name.rawValue + ".mustache")
        }
        return library
    }
}

/// What a page template sees: translations `t`, the page chrome and the page's own model
/// (each turned into a template value once, not on every lookup).
struct PageContext: TemplateContext {
    let t: [String: String]
    let chrome: TemplateValue
    let page: TemplateValue

    init(t: [String: String], chrome: TemplateValue, page: Any) {
        self.t = t
        self.chrome = chrome
        self.page = TemplateValue(reflecting: page)
    }

    func value(forKey key: String) -> TemplateValue {
        switch key {
        case "t": .context(t)
        case "chrome": chrome
        case "page": page
        default: .missing
        }
    }
}

/// What a neutral fragment sees.
struct NeutralContext: TemplateContext {
    let page: TemplateValue

    init(page: Any) { self.page = TemplateValue(reflecting: page) }

    func value(forKey key: String) -> TemplateValue {
        key == "page" ? page : .missing
    }
}

/// What the layout sees.
struct LayoutContext: TemplateContext {
    let t: [String: String]
    let chrome: TemplateValue
    let title: String
    let contentHtml: String

    init(t: [String: String], chrome: TemplateValue, title: String, contentHtml: String) {
        self.t = t
        self.chrome = chrome
        self.title = title
        self.contentHtml = contentHtml
    }

    func value(forKey key: String) -> TemplateValue {
        switch key {
        case "t": .context(t)
        case "chrome": chrome
        case "title": .text(title)
        case "contentHtml": .text(contentHtml)
        default: .missing
        }
    }
}

/// Why the templates could not be loaded.
public enum TemplateError: Error, CustomStringConvertible {
    case missingDirectory(String)
    case missingTemplate(String)
    case unparsable(String, String)

    public var description: String {
        switch self {
        case .missingDirectory(let path): "templates folder \(path) does not exist"
        case .missingTemplate(let name): "template \(name) is missing"
        case .unparsable(let name, let reason): "template \(name) does not parse: \(reason)"
        }
    }
}
