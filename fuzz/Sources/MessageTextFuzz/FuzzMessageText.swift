import Foundation

/// libFuzzer entry for the message renderer: any text must render without crashing, in time
/// (`make fuzz` runs it with a per-input `-timeout`, which a quadratic pass over a long input
/// overruns), into HTML made only of the allowed tags and attributes, whose text (tags removed,
/// entities decoded, `<br>` as a line break) is the typed text with some Markdown markers
/// taken out: nothing added, no letter lost, no markup of the author's.
@main
struct FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzMessageText))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

let directory = MentionDirectory(["민아": 1, "Kim Lee": 2, "bob": 3, "bobby": 4, "a": 5, "김": 6])
let channels = ChannelDirectory(["개발": .init(roomId: 1, href: "/w/1/c/1"), "a": .init(roomId: 2, href: "/w/1/c/2"),
                                 "design team": .init(roomId: 3, href: "/w/1/c/3"), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": .init(roomId: 4, href: "/w/1/c/4")])

func fuzzMessageText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let rendered = MessageHTML.render(text, members: directory, channels: channels)
    let shown = textOf(rendered.html)
    if !keepsEveryLetter(typed: text, shown: shown) {
        fatalError("the HTML does not keep the text: \(text.debugDescription) -> \(rendered.html.debugDescription)")
    }
    return 0
}

/// Whether `shown` is `typed` with only Markdown's markers (and the spaces and line breaks
/// around them) left out: a subsequence of it (a code span's line break shows as a space), in
/// which every other character of `typed` appears.
func keepsEveryLetter(typed: String, shown: String) -> Bool {
    let markers: Set<Character> = ["*", "_", "~", "`", ">", "-", "+", ".", ")", "\\", "\n", " ", "\t",
                                    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
    var shownIndex = shown.startIndex
    for character in typed {
        if shownIndex < shown.endIndex,
           shown[shownIndex] == character || (character == "\n" && shown[shownIndex] == " ") {
            shownIndex = shown.index(after: shownIndex)
        } else if !markers.contains(character) && !typed.isEmpty {
            return false
        }
    }
    return shownIndex == shown.endIndex
}

/// The text of our HTML: allowed tags removed (`<br>` read as a line break), entities decoded.
/// A tag outside `MessageHTML.allowedTags`, an attribute a tag may not carry, or a bare `&` is a
/// failure. Works on UTF-8 bytes: `<` followed by a combining mark is one Character, which
/// String's own searching would step over.
func textOf(_ html: String) -> String {
    let bytes = Array(html.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    let entities: [(String, UInt8)] = [("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&quot;", UInt8(ascii: "\"")),
                                       ("&#39;", UInt8(ascii: "'")), ("&amp;", UInt8(ascii: "&"))]
    func starts(_ prefix: [UInt8], at index: Int) -> Bool {
        index + prefix.count <= bytes.count && Array(bytes[index..<index + prefix.count]) == prefix
    }
    var index = 0
    outer: while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "<") {
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { fatalError("an unclosed <") }
            let tag = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            let name = String(tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }))
            guard let allowed = MessageHTML.allowedTags[name] else { fatalError("markup that is not ours: <\(tag)>") }
            for attribute in tag.matches(of: /\s([a-z-]+)="[^"]*"/) where !allowed.contains(String(attribute.1)) {
                fatalError("an attribute <\(name)> may not carry: \(attribute.1)")
            }
            if name == "br" { output.append(UInt8(ascii: "\n")) }
            // A code block's label is the text after its fence, entities and all.
            if let label = tag.firstMatch(of: /data-lang="([^"]*)"/) {
                output.append(contentsOf: Array(textOf(String(label.1)).utf8))
            }
            index = close + 1
            continue
        }
        if byte == UInt8(ascii: "&") {
            for (entity, decoded) in entities where starts(Array(entity.utf8), at: index) {
                output.append(decoded)
                index += entity.utf8.count
                continue outer
            }
            fatalError("a bare & at byte \(index)")
        }
        output.append(byte)
        index += 1
    }
    return String(decoding: output, as: UTF8.self)
}
