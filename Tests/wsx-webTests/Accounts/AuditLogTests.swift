import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// The security log: sign-ins that worked and failed (with the address and at most 254 bytes of
/// the address typed), and its export with the workspaces' activity logs as JSON lines.
@Suite("Audit log", .timeLimit(.minutes(5)))
struct AuditLogTests {
    @Test("sign-ins are logged with the client's address; a failed one keeps at most 254 bytes of what was typed")
    func signIns() async throws {
        try await TestApp { $0.trustProxy = true }.run { app in
            _ = try await app.signedInBrowser(email: "a@example.com", password: "right password")
            let browser = app.browser()
            browser.extraHeaders[ClientAddress.forwardedFor] = "198.51.100.20"
            #expect(try await browser.logIn(email: "a@example.com", password: "right password").status == .seeOther)
            let typed = String(repeating: "가", count: 1_000) + "@example.com"
            let guesser = app.browser()
            guesser.extraHeaders[ClientAddress.forwardedFor] = "198.51.100.20"
            #expect(try await guesser.logIn(email: typed, password: "wrong").status == .unauthorized)
            let lines = try app.database.query { tx in try tx.securityLog.lines(limit: 10, beforeId: nil) }
            let failed = try #require(lines.first { $0.action == "sign_in_failed" })
            #expect(failed.address == "198.51.100.20" && failed.email.utf8.count <= 254 && failed.email.hasPrefix("가가"))
            let signedIn = try #require(lines.first { $0.action == "sign_in" && $0.address == "198.51.100.20" })
            #expect(signedIn.actor == "a@example.com" && signedIn.detail == "password")
            #expect(lines.contains { $0.action == "sign_up" && $0.detail == "administrator" })
        }
    }

    @Test("audit export --since … --format jsonl: the security log and the workspaces' logs, one JSON object per line, in time order")
    func export() async throws {
        let work = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", password: "owner password")
            let wid = try await owner.createWorkspace("감사")
            _ = try await owner.invite("guest@example.com", to: wid)
            _ = try await app.browser().logIn(email: "owner@example.com", password: "wrong password")
            let result = try await WSXBinary.runBeside(["audit", "export", "--since", "2000-01-01", "--format", "jsonl"] + app.storageFlags,
                                                       in: work)
            #expect(result.status == 0, "\(result.output)")
            let objects = result.output.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.count == result.output.split(separator: "\n").count && objects.count >= 4)
            #expect(objects.contains { $0["scope"] as? String == "server" && $0["action"] as? String == "sign_in_failed" })
            #expect(objects.contains { $0["scope"] as? String == "workspace" && $0["action"] as? String == "member.invite"
                && $0["workspace"] as? String == "감사" })
            let times = objects.compactMap { $0["time"] as? String }
            #expect(times == times.sorted())
            let bad = try await WSXBinary.runBeside(["audit", "export", "--since", "yesterday"] + app.storageFlags, in: work)
            #expect(bad.status != 0 && bad.output.contains("--since: yesterday is not a date"))
            let later = try await WSXBinary.runBeside(["audit", "export", "--since", "1h"] + app.storageFlags, in: work)
            #expect(later.status == 0)
        }
    }
}
