import Foundation

/// libFuzzer entry for the message renderer: any text must render without crashing, in time
/// (`make fuzz` runs it with a per-input `-timeout`, which a quadratic pass over a long input
/// overruns), and into HTML that is the text itself once our own links and mentions are taken
/// out and entities decoded: nothing lost, nothing added, no markup of the author's.
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

func fuzzMessageText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let rendered = MessageHTML.render(text, members: directory)
    if plainText(of: rendered.html) != text {
        fatalError("the HTML does not give back the text: \(text.debugDescription) -> \(rendered.html.debugDescription)")
    }
    return 0
}

/// The text of our HTML: link and mention tags removed (each link's text kept once), entities
/// decoded. Any `<` left that is not one of ours is a failure (it would be the author's markup).
/// Works on UTF-8 bytes: `<` followed by a combining mark is one Character, which String's own
/// searching would step over.
func plainText(of html: String) -> String {
    let bytes = Array(html.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    let tags = ["<a href=\"", "<span class=\"mention\" data-user=\""].map { Array($0.utf8) }
    let closers = ["</a>", "</span>"].map { Array($0.utf8) }
    let entities: [(String, UInt8)] = [("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&quot;", UInt8(ascii: "\"")),
                                       ("&#39;", UInt8(ascii: "'")), ("&amp;", UInt8(ascii: "&"))]
    func starts(_ prefix: [UInt8], at index: Int) -> Bool {
        index + prefix.count <= bytes.count && Array(bytes[index..<index + prefix.count]) == prefix
    }
    var index = 0
    outer: while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "<") {
            if tags.contains(where: { starts($0, at: index) }), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) {
                index = close + 1
                continue
            }
            for closer in closers where starts(closer, at: index) {
                index += closer.count
                continue outer
            }
            fatalError("markup that is not ours at byte \(index): \(String(decoding: bytes[index..<min(bytes.count, index + 40)], as: UTF8.self).debugDescription)")
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
