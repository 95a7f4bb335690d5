import NIOCore
import Testing
@testable import wsx_web

/// What a browser's EventSource reads: the frame the hub writes for an event.
@Suite("SSE frames") struct SSEFrameTests {
    private func text(_ frame: ByteBuffer) -> String { String(buffer: frame) }

    @Test("a one-line payload is one data line after id and event, ended by a blank line")
    func oneLine() {
        #expect(text(SSEFrame.event(id: 42, type: "message.created", data: #"{"html":"<p>회의 🙂</p>"}"#))
                == "id: 42\nevent: message.created\ndata: {\"html\":\"<p>회의 🙂</p>\"}\n\n")
        #expect(text(SSEFrame.event(id: nil, type: "ping", data: "")) == "event: ping\ndata: \n\n")
    }

    @Test("every line ending the standard knows (LF, CR LF, lone CR) starts a new data line, so no payload can end the frame early")
    func lineEndings() {
        #expect(text(SSEFrame.event(id: 7, type: "t", data: "가\n나\r\n다\r라\n\n"))
                == "id: 7\nevent: t\ndata: 가\ndata: 나\ndata: 다\ndata: 라\ndata: \ndata: \n\n")
        #expect(text(SSEFrame.event(id: nil, type: "t", data: "\r\r\n끝\r")) == "event: t\ndata: \ndata: \ndata: 끝\ndata: \n\n")
        // A CR early and LFs long after it, then the other way round: each line keeps its text.
        let lines = (0..<200).map { "줄 \($0) " + String(repeating: "x", count: $0 % 7) }
        for separators in [["\r"] + Array(repeating: "\n", count: 198), Array(repeating: "\n", count: 198) + ["\r\n"]] {
            let payload = zip(lines, separators + [""]).map { $0 + $1 }.joined()
            #expect(text(SSEFrame.event(id: nil, type: "t", data: payload))
                    == "event: t\n" + lines.map { "data: \($0)\n" }.joined() + "\n")
        }
    }
}

/// Where a kept message fragment takes each viewer's controls.
@Suite("Rendered message marker") struct RenderedMessageMarkerTests {
    @Test("the marker is found after Korean, emoji and combining text, and the text before it is intact")
    func markerAfterWideText() throws {
        let before = "<li><p>한글 é 👩‍👩‍👧 <b>x</b></p>", after = "</li>"
        let fragment = RenderedMessage(before + "<!--actions-->" + after, marker: "<!--actions-->")
        let marker = try #require(fragment.marker)
        #expect(String(fragment.whole[..<marker.lowerBound]) == before)
        #expect(String(fragment.whole[marker.upperBound...]) == after)
        #expect(RenderedMessage("<li>no controls here <!--other--></li>", marker: "<!--actions-->").marker == nil)
    }
}
