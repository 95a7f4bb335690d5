import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Every workspace and channel route, tried by a stranger, a member, the channel's owner and
/// the workspace's owner: each gets the answer their standing allows, and a refusal changes
/// nothing in the database.
@Suite("Authorization matrix", .timeLimit(.minutes(5)))
struct AuthorizationMatrixTests {
    enum Role: String, CaseIterable, Sendable {
        case stranger, member, channelOwner, owner
    }

    struct Route: Sendable, CustomStringConvertible {
        let method: String
        let path: String
        var fields: [(String, String)] = []
        /// Expected status per role: stranger, member, channel owner, workspace owner.
        let expected: [Int]

        var description: String { "\(method) \(path)" }
    }

    /// W: a workspace owned by `owner`; C: a channel owned by `channelOwner` that `member` joined
    /// (the workspace owner is not in it); M: the member's id.
    static let routes: [Route] = [
        Route(method: "GET", path: "/w/W", expected: [404, 200, 200, 200]),
        Route(method: "GET", path: "/w/W/settings", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/settings", fields: [("name", "Renamed"), ("description", "")], expected: [404, 403, 403, 303]),
        Route(method: "POST", path: "/w/W/delete", fields: [("confirm", "yes")], expected: [404, 403, 403, 303]),
        Route(method: "POST", path: "/w/W/leave", fields: [("confirm", "yes")], expected: [404, 303, 409, 409]),
        Route(method: "POST", path: "/w/W/transfer", fields: [("owner_id", "M"), ("confirm", "yes")], expected: [404, 403, 403, 303]),
        Route(method: "GET", path: "/w/W/members", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/members", fields: [("email", "newcomer@example.com")], expected: [404, 403, 403, 200]),
        Route(method: "POST", path: "/w/W/members/M/remove", fields: [("confirm", "yes")], expected: [404, 403, 403, 303]),
        Route(method: "GET", path: "/w/W/audit", expected: [404, 403, 403, 200]),
        Route(method: "POST", path: "/w/W/join-link", fields: [("expires", "7d"), ("max_uses", "")], expected: [404, 403, 403, 200]),
        Route(method: "POST", path: "/w/W/join-link/disable", expected: [404, 403, 403, 200]),
        Route(method: "GET", path: "/w/W/channels", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/channels", fields: [("name", "fresh"), ("description", "")], expected: [404, 303, 303, 303]),
        Route(method: "GET", path: "/w/W/c/C", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/c/C/join", expected: [404, 303, 303, 303]),
        Route(method: "POST", path: "/w/W/c/C/leave", fields: [("confirm", "yes")], expected: [404, 303, 409, 404]),
        Route(method: "GET", path: "/w/W/c/C/settings", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/c/C/settings", fields: [("name", "renamed"), ("description", "")], expected: [404, 403, 303, 303]),
        Route(method: "POST", path: "/w/W/c/C/delete", fields: [("confirm", "yes")], expected: [404, 403, 303, 303]),
        Route(method: "POST", path: "/w/W/c/C/transfer", fields: [("owner_id", "M"), ("confirm", "yes")], expected: [404, 403, 303, 303]),
        // Members add people; only the channel's owner changes who can find it.
        Route(method: "POST", path: "/w/W/c/C/members", fields: [("member", "M")], expected: [404, 303, 303, 403]),
        Route(method: "POST", path: "/w/W/c/C/visibility", fields: [("visibility", "private")], expected: [404, 403, 303, 403]),
        Route(method: "POST", path: "/w/W/c/C/archive", fields: [("confirm", "yes")], expected: [404, 403, 303, 303]),
        Route(method: "POST", path: "/w/W/c/C/unarchive", expected: [404, 403, 303, 303]),
        // X: a message in C. Reacting is for the room's members (the workspace owner is not one).
        Route(method: "GET", path: "/w/W/m/X/reactions", expected: [404, 200, 200, 404]),
        Route(method: "POST", path: "/w/W/m/X/reactions", fields: [("emoji", "👍")], expected: [404, 303, 303, 404]),
        // Pinning and saving too; a public channel's pins are read like its messages.
        Route(method: "POST", path: "/w/W/m/X/pin", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/unpin", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/save", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/unsave", expected: [404, 303, 303, 404]),
        Route(method: "GET", path: "/w/W/c/C/pins", expected: [404, 200, 200, 200]),
        // Only the author (the channel's owner wrote X) takes a message's link preview off.
        Route(method: "POST", path: "/w/W/m/X/preview/remove", expected: [404, 403, 303, 404]),
        Route(method: "GET", path: "/w/W/m/X/delete", expected: [404, 403, 200, 404]),
        Route(method: "GET", path: "/w/W/saved", expected: [404, 200, 200, 200]),
        // A message's thread is for its room's members: reply, read up to, follow; a public
        // channel's threads are read like its messages.
        Route(method: "GET", path: "/w/W/m/X/thread", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/m/X/replies", fields: [("content", "reply")], expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/thread/read", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/thread/follow", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/m/X/thread/unfollow", expected: [404, 303, 303, 404]),
        Route(method: "GET", path: "/w/W/threads", expected: [404, 200, 200, 200]),
        // Saying one is typing is for the room's members.
        Route(method: "POST", path: "/w/W/c/C/typing", expected: [404, 204, 204, 404]),
        // Conversations: any workspace member starts one (T: a third member); G: a group of the
        // channel's owner, the member and T, which the workspace owner is not in.
        Route(method: "GET", path: "/w/W/dm", expected: [404, 200, 200, 200]),
        Route(method: "POST", path: "/w/W/dm", fields: [("member", "T")], expected: [404, 303, 303, 303]),
        Route(method: "GET", path: "/w/W/g/G", expected: [404, 200, 200, 404]),
        Route(method: "GET", path: "/w/W/g/G/pins", expected: [404, 200, 200, 404]),
        Route(method: "POST", path: "/w/W/g/G/messages", fields: [("content", "hi")], expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/g/G/read", expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/g/G/notify", fields: [("level", "mute")], expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/g/G/members", fields: [("member", "M")], expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/g/G/leave", fields: [("confirm", "yes")], expected: [404, 303, 303, 404]),
        Route(method: "POST", path: "/w/W/g/G/typing", expected: [404, 204, 204, 404]),
    ]

    @Test("each role gets its answer on every route; refusals leave the database as it was", arguments: routes)
    func matrix(route: Route) async throws {
        for (index, role) in Role.allCases.enumerated() {
            try await TestApp().run { app in
                let owner = try await app.signedInBrowser(email: "owner@example.com")
                let wid = try await owner.createWorkspace("Matrix")
                let channelOwner = try await app.signedInBrowser(email: "chowner@example.com")
                try await app.addMember(email: "chowner@example.com", to: wid, by: owner)
                let cid = try await channelOwner.createChannel(in: wid, "guarded")
                try await channelOwner.get("/w/\(wid)/c/\(cid)")
                try await channelOwner.post("/w/\(wid)/c/\(cid)/messages", [("content", "hello")])
                let mid = try await app.count("SELECT MAX(id) FROM messages")
                let member = try await app.signedInBrowser(email: "member@example.com")
                try await app.addMember(email: "member@example.com", to: wid, by: owner)
                try await member.get("/w/\(wid)/channels")
                try await member.post("/w/\(wid)/c/\(cid)/join")
                let stranger = try await app.signedInBrowser(email: "stranger@example.com")
                let memberId = try await app.userId("member@example.com")
                var (thirdId, gid): (Int64, Int64) = (0, 0)
                if route.path.contains("/g/G") || route.fields.contains(where: { $0.1 == "T" }) {
                    _ = try await app.signedInBrowser(email: "third@example.com")
                    try await app.addMember(email: "third@example.com", to: wid, by: owner)
                    thirdId = try await app.userId("third@example.com")
                    try await member.get("/w/\(wid)/dm")
                    let started = try await member.post("/w/\(wid)/dm", [("member", String(thirdId)),
                                                                         ("member", String(try await app.userId("chowner@example.com")))])
                    gid = try #require(Int64(started.location?.split(separator: "/").last ?? ""))
                }

                func fill(_ text: String) -> String {
                    text.replacingOccurrences(of: "/W", with: "/\(wid)").replacingOccurrences(of: "/g/G", with: "/g/\(gid)")
                        .replacingOccurrences(of: "/C", with: "/\(cid)")
                        .replacingOccurrences(of: "/M/", with: "/\(memberId)/").replacingOccurrences(of: "/X/", with: "/\(mid)/")
                }
                let browser = [stranger, member, channelOwner, owner][index]
                let path = fill(route.path)
                let fields = route.fields.map { ($0.0, $0.1 == "M" ? "\(memberId)" : $0.1 == "T" ? "\(thirdId)" : $0.1) }
                let before = try await app.workspaceSnapshot()
                try await browser.get("/workspaces")
                let response = route.method == "GET" ? try await browser.get(path) : try await browser.post(path, fields)
                #expect(Int(response.status.code) == route.expected[index], "\(role) \(route.method) \(path)")
                if [403, 404, 409].contains(Int(response.status.code)) {
                    #expect(try await app.workspaceSnapshot() == before, "\(role) \(route.method) \(path) changed data")
                }
            }
        }
    }

    @Test("ids that are not numbers, or of nothing, are a 404, never a 500",
          arguments: ["/w/abc", "/w/999999", "/w/1/c/abc", "/w/1/c/999999", "/w/1/members/abc/remove", "/w/-1/settings"])
    func badIds(path: String) async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser()
            _ = try await owner.createWorkspace("Only")
            let response = path.hasSuffix("remove") ? try await owner.post(path, [("confirm", "yes")]) : try await owner.get(path)
            #expect(response.status == .notFound)
        }
    }
}
