import Assets
import Foundation
import Testing
@testable import wsx_web

/// The page script listens for events by name (EventSource needs one listener per type), so
/// its list must name every type the server sends.
@Suite("Page script", .timeLimit(.minutes(5)))
struct ScriptContractTests {
    let script = String(decoding: EmbeddedFiles.files(in: "Public")["app.js"] ?? Data(), as: UTF8.self)

    @Test("app.js listens for every event type the server publishes")
    func listensForEveryType() {
        #expect(!script.isEmpty)
        for type in EventType.allCases {
            #expect(script.contains("'\(type.rawValue)'"), "app.js does not listen for \(type.rawValue)")
        }
    }

    @Test("the scripts use no constructs the CSP blocks, and never assign HTML (user text goes in as textContent)")
    func noEvalOrInnerHTML() {
        let scripts = EmbeddedFiles.files(in: "Public").filter { $0.key.hasSuffix(".js") }
        #expect(scripts.count >= 4)
        for (name, data) in scripts {
            let source = String(decoding: data, as: UTF8.self)
            #expect(!source.isEmpty, "\(name) is empty")
            #expect(!source.contains("eval("))
            #expect(!source.contains("new Function"))
            #expect(!source.contains("innerHTML"))
            #expect(!source.contains("outerHTML"))
            #expect(!source.contains("insertAdjacentHTML"))
        }
    }
}
