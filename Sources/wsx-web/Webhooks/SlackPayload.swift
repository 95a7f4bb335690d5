import Foundation
import SlackFormat

/// What a Slack-compatible incoming webhook is sent (Slack's `chat.postMessage` payload as
/// webhooks take it), turned into the nearest wsx Markdown.
///
/// `text` is Slack's mrkdwn: `*bold*`, `_italic_`, `~strike~`, `` `code` ``, code blocks,
/// `<url|label>` links, `<@U…>` and `<#C…>` references, `<!here>`, `<!channel>`, and `&amp;`,
/// `&lt;`, `&gt;` escapes. `attachments` (pretext, author, title and link, text, fields, footer,
/// image) become a quoted section each; `blocks` (section, header, divider, context, image,
/// rich_text) their Markdown (wsx's has no headings or rules: a header is a line in bold, a
/// divider a line of dashes). With `blocks`, `text` is only the notification fallback, as in
/// Slack. Unknown fields and block types are ignored. `username`, `icon_emoji` and `icon_url`
/// are accepted and not shown, as in Slack's app webhooks: the hook's own name is its messages' author
/// (`docs/api.md` says why).
struct SlackPayload: Sendable, Equatable {
    /// The message as wsx Markdown: the blocks (else the text), then the attachments; empty
    /// when there is nothing to show.
    let markdown: String

    /// Not a payload: JSON that is no object, or neither JSON nor `payload=`.
    struct Invalid: Error {}

    /// Reads a body: a JSON object, or a form whose `payload` field is one (Slack takes both).
    /// `mrkdwn` is Slack's markup as wsx reads it (the Slack import's `SlackToMarkdown`).
    init(body: Data, contentType: String?, mrkdwn: SlackToMarkdown) throws {
        var json = body
        if contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            guard let payload = FormData(urlEncoded: String(decoding: body, as: UTF8.self))["payload"] else { throw Invalid() }
            json = Data(payload.utf8)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { throw Invalid() }
        let render = Render(mrkdwn: mrkdwn)
        var parts: [String] = []
        let blocks = (object["blocks"] as? [[String: Any]] ?? []).compactMap(render.block).filter { !$0.isEmpty }
        if !blocks.isEmpty {
            parts.append(blocks.joined(separator: "\n\n"))
        } else if let text = object["text"] as? String, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            parts.append(mrkdwn.convert(text))
        }
        parts += (object["attachments"] as? [[String: Any]] ?? []).map(render.attachment).filter { !$0.isEmpty }
        markdown = parts.joined(separator: "\n\n")
    }

    /// Attachments and blocks as wsx Markdown.
    private struct Render {
        let mrkdwn: SlackToMarkdown

        func attachment(_ object: [String: Any]) -> String {
            func string(_ key: String) -> String? { (object[key] as? String).flatMap { $0.isEmpty ? nil : $0 } }
            var lines: [String] = []
            if let author = string("author_name") { lines.append("_\(plain(author))_") }
            if let title = string("title") {
                lines.append(string("title_link").map { "**[\(plain(title))](\($0))**" } ?? "**\(plain(title))**")
            }
            if let text = string("text") { lines += mrkdwn.convert(text).components(separatedBy: "\n") }
            for field in object["fields"] as? [[String: Any]] ?? [] {
                let title = (field["title"] as? String) ?? "", value = mrkdwn.convert((field["value"] as? String) ?? "")
                lines.append(title.isEmpty ? value : "**\(plain(title))**: \(value)")
            }
            if let image = string("image_url") { lines.append(image) }
            if let footer = string("footer") { lines.append("_\(plain(footer))_") }
            if lines.isEmpty, let fallback = string("fallback") { lines.append(mrkdwn.convert(fallback)) }
            let quoted = lines.map { "> " + $0 }.joined(separator: "\n")
            guard let pretext = string("pretext") else { return quoted }
            return mrkdwn.convert(pretext) + (quoted.isEmpty ? "" : "\n\n" + quoted)
        }

        /// A block as Markdown; nil for a type not shown (actions, inputs, …).
        func block(_ block: [String: Any]) -> String? {
            switch block["type"] as? String {
            case "section":
                let parts = [text(block["text"])].compactMap { $0 } + (block["fields"] as? [Any] ?? []).compactMap(text)
                return parts.joined(separator: "\n")
            case "header":
                // No headings in a chat message: the nearest is a line of its own in bold.
                return text(block["text"]).map { "**\($0)**" }
            case "divider":
                return "———"
            case "context":
                let parts = (block["elements"] as? [[String: Any]] ?? []).filter { $0["type"] as? String != "image" }.compactMap(text)
                return parts.isEmpty ? nil : "_" + parts.joined(separator: " · ") + "_"
            case "image":
                guard let url = block["image_url"] as? String else { return nil }
                return "[\(plain((block["alt_text"] as? String) ?? text(block["title"]) ?? url))](\(url))"
            case "rich_text":
                return richText(block["elements"] as? [[String: Any]] ?? [])
            default:
                return nil
            }
        }

        /// A text object: `mrkdwn` converted, `plain_text` as written.
        private func text(_ value: Any?) -> String? {
            guard let object = value as? [String: Any], let body = object["text"] as? String else { return nil }
            return object["type"] as? String == "plain_text" ? plain(body) : mrkdwn.convert(body)
        }

        private func richText(_ elements: [[String: Any]]) -> String {
            elements.map { element -> String in
                switch element["type"] as? String {
                case "text": return plain(element["text"] as? String ?? "")
                case "link":
                    let url = element["url"] as? String ?? ""
                    return (element["text"] as? String).map { "[\(plain($0))](\(url))" } ?? url
                case "user": return "@" + (element["user_id"] as? String ?? "")
                case "channel": return "#" + (element["channel_id"] as? String ?? "")
                case "emoji": return mrkdwn.convert(":\(element["name"] as? String ?? ""):")
                case "broadcast": return "@" + (element["range"] as? String ?? "here")
                case "rich_text_preformatted": return "```\n\(richText(element["elements"] as? [[String: Any]] ?? []))\n```"
                case "rich_text_quote":
                    return richText(element["elements"] as? [[String: Any]] ?? []).components(separatedBy: "\n")
                        .map { "> " + $0 }.joined(separator: "\n")
                default: return richText(element["elements"] as? [[String: Any]] ?? [])
                }
            }.joined()
        }

        /// Plain text (titles, names, `plain_text`) with Slack's escapes undone.
        private func plain(_ text: String) -> String {
            SlackToMarkdown.unescape(text)
        }
    }
}
