import Foundation
import HummingbirdTesting
import Testing
@testable import wsx_web

extension TestSession {
    /// The id of the account with `email`.
    func userId(_ email: String) async throws -> Int64 {
        try #require(try database.query { tx in try tx.accounts.user(emailKey: email.lowercased())?.id })
    }

    /// The id of the newest committed event, once the hub has taken it (the hub takes commits
    /// asynchronously, so its latest id can lag the database for a moment).
    func settledEventId() async throws -> Int64 {
        let newest = Int64(try await count("SELECT COALESCE(MAX(id), 0) FROM events"))
        let deadline = ContinuousClock.now + .seconds(5)
        while services.hub.latestEventId < newest, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        return newest
    }

    /// A number from a portable `SELECT` (`InspectionStore`), for assertions on what the
    /// database holds.
    func count(_ sql: String, _ arguments: [any Sendable] = []) async throws -> Int {
        Int(try database.query { tx in try tx.inspection.integer(sql, arguments) })
    }

    /// Everything workspace-related as one comparable snapshot: refusals must leave it unchanged.
    func workspaceSnapshot() async throws -> [String] {
        try database.query { tx in
            var lines: [String] = []
            for (table, order) in [("workspaces", "id"), ("workspace_members", "workspace_id, user_id"), ("rooms", "id"),
                                   ("room_members", "room_id, user_id"), ("invites", "id"), ("audit_log", "id"),
                                   ("coin_ledger", "id"), ("reactions", "message_id, emoji, user_id"),
                                   ("pins", "message_id"), ("saved_messages", "user_id, message_id")] {
                for row in try tx.inspection.rows("SELECT * FROM \(table) ORDER BY \(order)", []) {
                    lines.append("\(table): \(row)")
                }
            }
            return lines
        }
    }
}

extension TestBrowser {
    /// Creates a workspace through the form; returns its id.
    func createWorkspace(_ name: String, description: String = "") async throws -> Int64 {
        try await get("/workspaces")
        let response = try await post("/workspaces", [("name", name), ("description", description)])
        let location = try #require(response.location, "create failed: \(response.status) \(response.text)")
        return try #require(Int64(location.split(separator: "/").last ?? ""))
    }

    /// Creates a channel through the form; returns its id.
    func createChannel(in workspace: Int64, _ name: String, description: String = "") async throws -> Int64 {
        try await get("/w/\(workspace)/channels")
        let response = try await post("/w/\(workspace)/channels", [("name", name), ("description", description)])
        let location = try #require(response.location, "channel create failed: \(response.status)")
        return try #require(Int64(location.split(separator: "/").last ?? ""))
    }

    /// Invites an email from the members page; returns the page.
    @discardableResult
    func invite(_ email: String, to workspace: Int64) async throws -> TestResponse {
        try await get("/w/\(workspace)/members")
        return try await post("/w/\(workspace)/members", [("email", email)])
    }

    /// Posts `path` with `confirm=yes`, as the confirm page's button does.
    @discardableResult
    func confirm(_ path: String, _ fields: [(String, String)] = []) async throws -> TestResponse {
        try await get("/workspaces")
        return try await post(path, fields + [("confirm", "yes")])
    }
}

extension TestSession {
    /// Makes the account with `email` a member of `workspace`: its owner invites through the
    /// members page, and the account accepts. The way tests add people (the invitation flow
    /// itself is tested through its pages in `InvitationTests`).
    func addMember(email: String, to workspace: Int64, by owner: TestBrowser) async throws {
        let page = try await owner.invite(email, to: workspace)
        // Shown to the inviter, or (with mail) in the mail it queued.
        let mailed = try services.database.query { tx in
            try tx.inspection.rows("SELECT message FROM mail_outbox WHERE kind = 'invitation' ORDER BY id DESC LIMIT 1", []).first?.first
        }
        let text = page.text.contains("/invite/") ? page.text : mailed.flatMap { MailTests.part($0, "text/plain") } ?? ""
        let token = try #require(text.firstMatch(of: /\/invite\/([A-Za-z0-9_-]{43})/)?.1, "no invitation link: \(page.status)")
        _ = try await services.invitations.accept(token: String(token), userId: try await userId(email))
    }
}
