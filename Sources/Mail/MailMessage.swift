import Foundation

/// A mailbox: an address and, optionally, the name shown with it.
public struct MailAddress: Sendable, Equatable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }

    /// Reads `Name <address>` or a bare `address`.
    public static func parse(_ text: String) -> MailAddress? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let name = trimmed[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return isAddress(address) ? MailAddress(name: name.isEmpty ? nil : name, address: address) : nil
        }
        return isAddress(trimmed) ? MailAddress(address: trimmed) : nil
    }

    /// An address SMTP can carry: one `@`, no spaces, brackets or line breaks.
    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
            && text.unicodeScalars.allSatisfy { $0.value > 32 && !"<>()\",;\\".unicodeScalars.contains($0) }
    }

    /// The header form: the name as an RFC 2047 encoded word when it is not plain ASCII.
    var header: String {
        guard let name, !name.isEmpty else { return "<\(address)>" }
        return "\(MailMessage.encodedWords(name)) <\(address)>"
    }
}

/// One e-mail: plain text and HTML alternatives of the same words, in UTF-8, with RFC 2047
/// encoded words wherever a header holds more than ASCII (Korean subjects and names).
public struct MailMessage: Sendable, Equatable {
    public var from: MailAddress
    public var to: MailAddress
    public var subject: String
    public var text: String
    public var html: String?
    /// More headers, e.g. `List-Unsubscribe` and `List-Unsubscribe-Post` on digests.
    public var headers: [(name: String, value: String)]

    public init(from: MailAddress, to: MailAddress, subject: String, text: String, html: String? = nil,
                headers: [(name: String, value: String)] = []) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.headers = headers
    }

    public static func == (left: MailMessage, right: MailMessage) -> Bool {
        left.from == right.from && left.to == right.to && left.subject == right.subject && left.text == right.text
            && left.html == right.html && left.headers.elementsEqual(right.headers) { $0 == $1 }
    }

    /// The whole message as it goes after `DATA` (CRLF line ends, lines under 78 characters).
    public func rendered(date: Date, messageId: String) -> String {
        var lines = [
            "From: \(from.header)",
            "To: \(to.header)",
            "Subject: \(Self.encodedWords(subject))",
            "Date: \(Self.dateHeader(date))",
            "Message-ID: <\(messageId)>",
            "MIME-Version: 1.0",
        ]
        for header in headers { lines.append("\(header.name): \(header.value)") }
        let textPart = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", "", Self.base64Lines(text)]
        if let html {
            let boundary = "wsx-\(messageId.prefix { $0 != "@" })"
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--\(boundary)")
            lines += textPart
            lines.append("--\(boundary)")
            lines += ["Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: base64", "", Self.base64Lines(html)]
            lines.append("--\(boundary)--")
        } else {
            lines += textPart
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `text` as it may stand in a header: unchanged when it is printable ASCII, else UTF-8
    /// B-encoded words of at most 75 characters each, never splitting a character.
    public static func encodedWords(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }) { return text }
        var words: [String] = []
        var chunk = Data()
        // 36 bytes of UTF-8 make 48 characters of base64: with "=?UTF-8?B?" and "?=", 60, so
        // even the first word, after "Subject: ", keeps its line under 78 characters.
        for character in text {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > 36 {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// RFC 5322's date, in UTC: `Wed, 25 Nov 2026 14:00:00 +0000`.
    static func dateHeader(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(days[(parts.weekday ?? 1) - 1]), \(parts.day ?? 1) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }

    /// Base64 of the UTF-8 of `text` with CRLF line ends, in lines of 76 characters.
    static func base64Lines(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        return Data(normalized.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
    }
}
