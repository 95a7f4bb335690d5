import Foundation

/// What a preview card shows of a page: its Open Graph title, description, site name and image,
/// else its `<title>` and `<meta name="description">`. Read from the page's first bytes in one
/// pass over the tags (no backtracking), without running or trusting anything in it: every value
/// is plain text (entities decoded, whitespace collapsed, cut to a length), the image an
/// absolute `http(s)` URL or nothing.
public struct PageMetadata: Sendable, Equatable {
    public var title: String
    public var description: String
    public var siteName: String
    public var imageURL: URL?

    public init(title: String = "", description: String = "", siteName: String = "", imageURL: URL? = nil) {
        self.title = title
        self.description = description
        self.siteName = siteName
        self.imageURL = imageURL
    }

    /// Whether there is anything to show (a card needs at least a title).
    public var isEmpty: Bool { title.isEmpty }

    /// Limits on what is kept, in characters.
    static let titleLength = 200, descriptionLength = 400, siteNameLength = 100

    /// Reads the metadata of an HTML page fetched from `url` (relative image URLs resolve
    /// against it). Decodes the bytes as UTF-8 (invalid bytes replaced), since Korean pages
    /// are UTF-8 nearly always.
    public static func read(html bytes: [UInt8], from url: URL) -> PageMetadata {
        let text = String(decoding: bytes, as: UTF8.self)
        var open: [String: String] = [:]
        var named: [String: String] = [:]
        var titleText = ""
        var index = text.startIndex
        while let tagStart = text[index...].firstIndex(of: "<") {
            let afterOpen = text.index(after: tagStart)
            guard let tagEnd = text[afterOpen...].firstIndex(of: ">") else { break }
            let tag = text[afterOpen..<tagEnd]
            index = text.index(after: tagEnd)
            let name = tag.prefix { !$0.isWhitespace && $0 != "/" }.lowercased()
            switch name {
            case "meta":
                let attributes = Self.attributes(of: tag.dropFirst(4))
                guard let content = attributes["content"] else { continue }
                if let property = attributes["property"]?.lowercased(), open[property] == nil { open[property] = content }
                if let key = attributes["name"]?.lowercased(), named[key] == nil { named[key] = content }
            case "title" where titleText.isEmpty:
                if let close = text[index...].range(of: "</title", options: .caseInsensitive) {
                    titleText = String(text[index..<close.lowerBound])
                    index = close.upperBound
                }
            case "body":
                // The head is over: what follows is the page's content, not its description.
                index = text.endIndex
            case "script", "style":
                // Skipped whole: a `<meta` inside a script is not the page's.
                if let close = text[index...].range(of: "</" + name, options: .caseInsensitive) { index = close.upperBound }
            default:
                continue
            }
        }
        var metadata = PageMetadata()
        metadata.title = clean(open["og:title"] ?? named["twitter:title"] ?? titleText, limit: titleLength)
        metadata.description = clean(open["og:description"] ?? named["description"] ?? named["twitter:description"] ?? "",
                                     limit: descriptionLength)
        metadata.siteName = clean(open["og:site_name"] ?? "", limit: siteNameLength)
        if let image = open["og:image:secure_url"] ?? open["og:image"] ?? open["og:image:url"] ?? named["twitter:image"],
           let resolved = URL(string: decodeEntities(image).trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: url)?
            .absoluteURL,
           ["http", "https"].contains(resolved.scheme?.lowercased() ?? "") {
            metadata.imageURL = resolved
        }
        return metadata
    }

    /// A tag's attributes (`name="value"`, `name='value'`, `name=value`), names lowercased,
    /// values with entities decoded; the first of a repeated name wins.
    static func attributes(of text: Substring) -> [String: String] {
        var found: [String: String] = [:]
        var index = text.startIndex
        func skipSpaces() { while index < text.endIndex, text[index].isWhitespace || text[index] == "/" { index = text.index(after: index) } }
        while true {
            skipSpaces()
            guard index < text.endIndex else { break }
            let nameStart = index
            while index < text.endIndex, !text[index].isWhitespace, text[index] != "=", text[index] != "/" {
                index = text.index(after: index)
            }
            let name = text[nameStart..<index].lowercased()
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            guard index < text.endIndex, text[index] == "=" else {
                if !name.isEmpty, found[name] == nil { found[name] = "" }
                continue
            }
            index = text.index(after: index)
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            var value: Substring = ""
            if index < text.endIndex, text[index] == "\"" || text[index] == "'" {
                let quote = text[index]
                let valueStart = text.index(after: index)
                let valueEnd = text[valueStart...].firstIndex(of: quote) ?? text.endIndex
                value = text[valueStart..<valueEnd]
                index = valueEnd < text.endIndex ? text.index(after: valueEnd) : valueEnd
            } else {
                let valueStart = index
                while index < text.endIndex, !text[index].isWhitespace { index = text.index(after: index) }
                value = text[valueStart..<index]
            }
            if !name.isEmpty, found[name] == nil { found[name] = decodeEntities(String(value)) }
        }
        return found
    }

    /// Plain text for the card: entities decoded, control characters dropped, runs of
    /// whitespace made one space, cut to `limit` characters (with "…").
    static func clean(_ text: String, limit: Int) -> String {
        let decoded = decodeEntities(text)
        var words: [Substring] = []
        for word in decoded.split(whereSeparator: { $0.isWhitespace }) { words.append(word) }
        let joined = String(String.UnicodeScalarView(words.joined(separator: " ").unicodeScalars
            .filter { !($0.properties.generalCategory == .control || $0.properties.generalCategory == .format && $0 != "\u{200D}") }))
        guard joined.count > limit else { return joined }
        return String(joined.prefix(limit - 1)) + "…"
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#39;` `&#x27;` `&nbsp;` and other numeric
    /// references; an unknown or broken one stays as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var index = text.startIndex
        while let amp = text[index...].firstIndex(of: "&") {
            result += text[index..<amp]
            let rest = text[text.index(after: amp)...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                result.append("&")
                index = text.index(after: amp)
                continue
            }
            let entity = rest[rest.startIndex..<semicolon]
            if let decoded = Self.entity(entity) {
                result += decoded
                index = text.index(after: semicolon)
            } else {
                result.append("&")
                index = text.index(after: amp)
            }
        }
        result += text[index...]
        return result
    }

    private static func entity(_ name: Substring) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return " "
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }
}
