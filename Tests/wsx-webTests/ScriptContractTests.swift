import Assets
import Foundation
import Testing
@testable import wsx_web

/// The page script listens for events by name (EventSource needs one listener per type), so
/// its list must name every type the server sends.
@Suite("Page script")
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
        for name in ["app.js", "chat.js"] {
            let source = String(decoding: EmbeddedFiles.files(in: "Public")[name] ?? Data(), as: UTF8.self)
            #expect(!source.isEmpty, "\(name) missing")
            #expect(!source.contains("eval("))
            #expect(!source.contains("new Function"))
            #expect(!source.contains("innerHTML"))
            #expect(!source.contains("outerHTML"))
            #expect(!source.contains("insertAdjacentHTML"))
        }
    }
}
