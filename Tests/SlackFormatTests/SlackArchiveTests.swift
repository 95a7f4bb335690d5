import Foundation
import Testing
@testable import SlackFormat

/// Reading an export's zip: the fixture's files and messages, a file put inside it, and the
/// refusals (not a zip, not an export, a damaged member, a member that inflates past its limit).
@Suite("Slack export archives")
struct SlackArchiveTests {
    static var fixture: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/slack-export")
    }

    static func temporary(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("slack-\(UUID().uuidString)-\(name)")
    }

    static func zippedFixture() throws -> URL {
        let url = temporary("export.zip")
        try SlackArchiveWriter.zip(folder: fixture, to: url, modified: Date(timeIntervalSince1970: 1_709_542_800))
        return url
    }

    @Test("the fixture reads: people, conversations, each conversation's messages in ts order, the file inside it")
    func readsFixture() throws {
        let url = try Self.zippedFixture()
        defer { try? FileManager.default.removeItem(at: url) }
        let archive = try SlackArchiveReader(url: url)
        let users = try archive.users()
        #expect(users.count == 7)
        #expect(users.first { $0.id == "U03JIHO" }?.shownName == "이지호")
        #expect(users.first { $0.id == "U04GONE" }?.isDeleted == true)
        #expect(users.first { $0.id == "U06DEPLOY" }?.isBotAccount == true)
        let channels = try #require(try archive.decode("channels.json", as: [SlackConversation].self))
        #expect(channels.map(\.folder).sorted() == ["general", "random", "개발"])
        let general = try archive.messages(of: "general")
        #expect(general.count == 11)
        #expect(general.map(\.ts) == general.map(\.ts).sorted())
        #expect(try archive.messages(of: "개발").first?.subtype == "channel_join")
        #expect(try archive.dayFiles(of: "D01MINABOB") == ["D01MINABOB/2024-03-04.json"])
        let photo = try #require(try archive.upload(fileId: "F02PHOTO"))
        #expect(photo.starts(with: [0xFF, 0xD8]))
        #expect(try archive.upload(fileId: "F01MISSING") == nil)
    }

    @Test("refusals say which file and why")
    func refusals() throws {
        let notZip = Self.temporary("notes.zip")
        try Data("just text".utf8).write(to: notZip)
        defer { try? FileManager.default.removeItem(at: notZip) }
        #expect(throws: SlackArchiveError.notAnArchive(notZip.lastPathComponent)) { try SlackArchiveReader(url: notZip) }

        let other = Self.temporary("other.zip")
        let writer = try SlackArchiveWriter(url: other, modified: Date())
        try writer.add("readme.txt", data: Data("hello".utf8), compressed: false)
        try writer.finish()
        defer { try? FileManager.default.removeItem(at: other) }
        #expect(throws: SlackArchiveError.missing("users.json")) { try SlackArchiveReader(url: other) }

        let broken = Self.temporary("broken.zip")
        let brokenWriter = try SlackArchiveWriter(url: broken, modified: Date())
        try brokenWriter.add("users.json", data: Data(#"[{"id": "U1", "profile": {"email": 5}}]"#.utf8), compressed: true)
        try brokenWriter.add("channels.json", data: Data(repeating: UInt8(ascii: " "), count: 4 << 20), compressed: true)
        try brokenWriter.finish()
        defer { try? FileManager.default.removeItem(at: broken) }
        let archive = try SlackArchiveReader(url: broken, limits: .init(jsonBytes: 1 << 20))
        #expect(throws: SlackArchiveError.badJSON("users.json", "[0].profile.email: expected text")) { try archive.users() }
        #expect(throws: SlackArchiveError.tooLarge("channels.json", 1 << 20)) {
            try archive.decode("channels.json", as: [SlackConversation].self)
        }
    }

    @Test("a member whose bytes were changed is refused as damaged")
    func damaged() throws {
        let url = Self.temporary("damaged.zip")
        let writer = try SlackArchiveWriter(url: url, modified: Date())
        let users = Data(#"[{"id": "U1", "name": "a", "profile": {"email": "a@example.com"}}]"#.utf8)
        try writer.add("users.json", data: users, compressed: false)
        try writer.finish()
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = try Data(contentsOf: url)
        let at = try #require(bytes.range(of: Data("a@example.com".utf8)))
        bytes[at.lowerBound] = UInt8(ascii: "b")
        try bytes.write(to: url)
        #expect(throws: SlackArchiveError.damaged("users.json")) { try SlackArchiveReader(url: url).users() }
    }

    @Test("an export of more than 65,535 files is one zip (zip64) that reads back whole, here and with Python's zipfile")
    func manyMembers() throws {
        let url = Self.temporary("big.zip")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try SlackArchiveWriter(url: url, modified: Date(timeIntervalSince1970: 1_709_542_800))
        try writer.add(json: "users.json", [SlackUser(id: "U1", name: "mina", profile: .init(email: "mina@example.com"))])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let first = Date(timeIntervalSince1970: 946_684_800)
        let (folders, daysEach) = (10, 7_000)
        for day in 0..<daysEach {
            let date = calendar.date(byAdding: .day, value: day, to: first)!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let name = String(format: "%04d-%02d-%02d.json", parts.year!, parts.month!, parts.day!)
            for folder in 0..<folders {
                let ts = "\(Int(date.timeIntervalSince1970) + folder).000100"
                try writer.add(json: "채널\(folder)/\(name)", [SlackMessage(ts: ts, user: "U1", text: "\(folder)번 채널 \(day)일째")])
            }
        }
        try writer.add(SlackArchiveWriter.uploadPath(fileId: "F1", name: "사진.png"), data: Data([0x89, 0x50, 0x4E, 0x47]), compressed: false)
        try writer.finish()
        #expect(((try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]) as? Int) == 0o600)

        let archive = try SlackArchiveReader(url: url)
        #expect(try archive.users().map(\.id) == ["U1"])
        #expect(archive.dayFiles(of: "채널7").count == daysEach)
        let messages = try archive.messages(of: "채널7")
        #expect(messages.count == daysEach)
        #expect(messages.last?.text == "7번 채널 \(daysEach - 1)일째")
        #expect(try archive.upload(fileId: "F1") == Data([0x89, 0x50, 0x4E, 0x47]))

        // Another reader: every member's CRC checked, the count past 65,535, names in UTF-8, the date.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            names = z.namelist()
            print(len(names), z.testzip(), names[-1], z.infolist()[0].date_time)
            """, url.path]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        python.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said == "\(folders * daysEach + 2) None __uploads/F1/사진.png (2024, 3, 4, 9, 0, 0)\n")
    }
}

/// Day files are read a message at a time, within a low cap of their own.
@Suite("Slack day files")
struct SlackDayFileTests {
    @Test("a JSON list is split into its elements: strings with brackets, escapes and nesting; broken lists are refused")
    func splitting() throws {
        let text = #" [ {"text": "a ] b, \" c", "x": [1, {"y": "}"}]}, 17 ,"s\\", [], {} ] "#
        let data = Data(text.utf8)
        let parts = try JSONArrayElements.ranges(in: data).map { String(decoding: data.subdata(in: $0), as: UTF8.self) }
        #expect(parts == [#"{"text": "a ] b, \" c", "x": [1, {"y": "}"}]}"#, "17", #""s\\""#, "[]", "{}"])
        #expect(try JSONArrayElements.ranges(in: Data("[]".utf8)).isEmpty)
        for broken in ["", "{}", "[", "[1,", "[1 2]", "[1] x", #"["open]"#, "[,1]", "[{]"] {
            #expect(throws: JSONArrayElements.Malformed.self, "\(broken)") { try JSONArrayElements.ranges(in: Data(broken.utf8)) }
        }
    }

    @Test("messages decode one by one the same as the whole file; a bad one is named by its place; a day over its cap is refused")
    func dayFiles() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("days-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try SlackArchiveWriter(url: url, modified: Date())
        try writer.add(json: "users.json", [SlackUser(id: "U1", name: "mina", profile: .init(email: "mina@example.com"))])
        let messages = (0..<300).map { SlackMessage(ts: "\(1_700_000_000 + $0).000100", user: "U1", text: "메시지 [\($0)], \"인용\"") }
        try writer.add(json: "일반/2024-03-04.json", messages)
        try writer.add("일반/2024-03-05.json", data: Data(#"[{"ts": "1700000400.000100", "text": "ok"}, {"ts": 5}]"#.utf8), compressed: true)
        try writer.add("큰방/2024-03-04.json", data: Data(("[" + String(repeating: " ", count: 2 << 20) + "]").utf8), compressed: true)
        try writer.finish()
        let archive = try SlackArchiveReader(url: url, limits: .init(dayBytes: 1 << 20))
        let whole = try #require(try archive.decode("일반/2024-03-04.json", as: [SlackMessage].self))
        #expect(try archive.dayMessages("일반/2024-03-04.json").map(\.text) == whole.map(\.text))
        #expect(throws: SlackArchiveError.badJSON("일반/2024-03-05.json", "[1].ts: expected text")) {
            try archive.dayMessages("일반/2024-03-05.json")
        }
        #expect(throws: SlackArchiveError.tooLarge("큰방/2024-03-04.json", 1 << 20)) { try archive.messages(of: "큰방") }
    }
}
