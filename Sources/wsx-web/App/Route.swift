import Foundation
import Hummingbird

/// A value that fills one of a route's parameters in a link, and is read back from a request's.
protocol PathValue {
    /// The value as one path segment, percent-encoded where it needs to be.
    var pathSegment: String { get }
    /// The value a request's parameter (already percent-decoded by the router) holds, if it
    /// is one.
    init?(parameter: String)
}

extension Int64: PathValue {
    var pathSegment: String { String(self) }

    init?(parameter: String) {
        self.init(parameter)
    }
}

extension String: PathValue {
    init?(parameter: String) {
        self = parameter
    }

    /// Encoded so that it stays one segment: `/`, `?`, `#` and `%` are escaped, and so is
    /// everything outside ASCII (a Korean file name reaches the browser as UTF-8 escapes).
    var pathSegment: String {
        addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? ""
    }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#%;"))
}

/// One route of the site: the pattern its controller registers with the router, and every link
/// to it, built from that same pattern. Its parameters are typed and in the pattern's order
/// (`Route<Int64, Int64>` for `/w/{wid}/c/{cid}`), so a link to a route that does not exist, or
/// one missing a value, does not compile. `Paths` lists them all.
struct Route<each Value: PathValue>: Sendable {
    /// What the router matches, e.g. `/w/{wid}/c/{cid}`.
    let pattern: String
    private let segments: [RouteSegment]
    /// The names of its parameters, in order (`wid`, `cid`).
    private let parameterNames: [String]

    /// Traps when the pattern's parameters and the value types differ in number: `Paths` is
    /// built once, and a test reads every route in it.
    init(_ pattern: String) {
        self.pattern = pattern
        segments = pattern.split(separator: "/").map { $0.hasPrefix("{") ? .parameter : .literal(String($0)) }
        parameterNames = pattern.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        var types = 0
        for _ in repeat (each Value).self { types += 1 }
        precondition(types == segments.count(where: { $0 == .parameter }),
                     "\(pattern) needs as many value types as it has parameters")
    }

    /// The pattern as the router takes it.
    var routerPath: RouterPath { RouterPath(pattern) }

    /// The values of a request this route matched, in the pattern's order; a 404 when one is
    /// not of its type (`/w/abc/c/1`).
    func values(in parameters: Parameters) throws -> (repeat each Value) {
        var names = parameterNames.makeIterator()
        func value<V: PathValue>(_ type: V.Type) throws -> V {
            guard let name = names.next(), let text = parameters.get(name), let value = V(parameter: text) else {
                throw AppError.notFound
            }
            return value
        }
        return (repeat try value((each Value).self))
    }

    /// Whether `path` (no query) is a link to this route: its literal segments equal, a
    /// non-empty segment for each parameter.
    func matches(_ path: String) -> Bool {
        let parts = path == "/" ? [] : path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), parts.count == segments.count else { return false }
        return zip(parts, segments).allSatisfy { part, segment in
            switch segment {
            case .literal(let text): part == text
            case .parameter: !part.isEmpty
            }
        }
    }

    /// A link to this route: its parameters filled with `value`, then the query (already
    /// encoded, without `?`; see `Paths.query`) and the fragment (without `#`), when given.
    func callAsFunction(_ value: repeat each Value, query: String? = nil, fragment: String? = nil) -> String {
        var values: [String] = []
        for value in repeat each value { values.append(value.pathSegment) }
        var next = values.makeIterator()
        var link = ""
        for segment in segments {
            switch segment {
            case .literal(let text): link += "/" + text
            case .parameter: link += "/" + (next.next() ?? "")
            }
        }
        if link.isEmpty { link = "/" }
        if let query { link += "?" + query }
        if let fragment { link += "#" + fragment }
        return link
    }
}

/// A route without parameters.
typealias PlainRoute = Route< >

/// One piece of a route's pattern.
enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter
}

/// A route whatever its parameters: what the router-agreement test reads.
protocol AnyRoute: Sendable {
    var pattern: String { get }
    func matches(_ path: String) -> Bool
}

extension Route: AnyRoute {}

/// Every route of the site. Controllers register these patterns, and every link the server
/// writes (pages, redirects, JSON) comes from here: a route can be renamed in one place, and a
/// test checks that this list and the router's agree.
enum Paths {
    // Open to everyone.
    static let root = PlainRoute("/")
    static let health = PlainRoute("/healthz")
    static let metrics = PlainRoute("/metrics")
    static let resetRequest = PlainRoute("/reset")
    static let unsubscribe = Route<String>("/unsubscribe/{token}")
    static let join = Route<String>("/join/{token}")
    static let signup = PlainRoute("/signup")
    static let login = PlainRoute("/login")
    static let logout = PlainRoute("/logout")
    static let language = PlainRoute("/lang")
    static let events = PlainRoute("/events")
    static let presence = PlainRoute("/presence")
    static let invite = Route<String>("/invite/{token}")
    static let declineInvite = Route<String>("/invite/{token}/decline")
    static let passwordReset = Route<String>("/reset/{token}")
    static let paymentWebhook = PlainRoute("/store/webhook")
    static let favicon = PlainRoute("/favicon.ico")
    static let confirmEmail = Route<String>("/confirm/{token}")
    static let twoStepLogin = PlainRoute("/login/2fa")
    static let pushKey = PlainRoute("/push/key")
    static let pushSubscriptions = PlainRoute("/push/subscriptions")
    static let pushSubscriptionRemoval = PlainRoute("/push/subscriptions/remove")
    /// The service worker, at the root so its scope is the whole site, and the web app manifest.
    static let serviceWorker = PlainRoute("/sw.js")
    static let manifest = PlainRoute("/manifest.webmanifest")

    // The signed-in person.
    static let profile = PlainRoute("/profile")
    static let password = PlainRoute("/profile/password")
    static let profileNotify = PlainRoute("/profile/notify")
    static let profileStatus = PlainRoute("/profile/status")
    static let profileMail = PlainRoute("/profile/mail")
    static let profileConfirm = PlainRoute("/profile/confirm")
    static let twoStep = PlainRoute("/profile/2fa")
    static let twoStepStart = PlainRoute("/profile/2fa/start")
    static let twoStepDisable = PlainRoute("/profile/2fa/disable")
    static let recoveryCodes = PlainRoute("/profile/2fa/recovery")
    /// Ends one of the person's apps' sign-ins (`/v1`).
    static let endAppSignIn = Route<Int64>("/profile/apps/{id}/end")
    /// Two-step accounts' app passwords: make one, revoke one.
    static let appPasswords = PlainRoute("/profile/app-passwords")
    static let revokeAppPassword = Route<Int64>("/profile/app-passwords/{id}/revoke")

    // Server administrators.
    static let admin = PlainRoute("/admin")
    static let adminWorkspaces = PlainRoute("/admin/workspaces")
    static let adminLog = PlainRoute("/admin/log")
    static let adminMail = PlainRoute("/admin/mail")
    static let deactivateUser = Route<Int64>("/admin/users/{uid}/deactivate")
    static let reactivateUser = Route<Int64>("/admin/users/{uid}/reactivate")
    static let promoteUser = Route<Int64>("/admin/users/{uid}/promote")
    static let demoteUser = Route<Int64>("/admin/users/{uid}/demote")
    static let handOverWorkspace = Route<Int64>("/admin/workspaces/{wid}/owner")
    static let user = Route<Int64>("/users/{uid}")
    static let store = PlainRoute("/store")
    static let checkout = PlainRoute("/store/checkout")
    static let checkoutComplete = PlainRoute("/store/complete")
    static let sandboxPay = PlainRoute("/sandbox-pay")
    static let thumbnail = Route<Int64>("/files/{fid}/thumb")
    static let file = Route<Int64, String>("/files/{fid}/{name}")

    // Workspaces.
    static let workspaces = PlainRoute("/workspaces")
    static let workspace = Route<Int64>("/w/{wid}")
    static let workspaceSettings = Route<Int64>("/w/{wid}/settings")
    static let deleteWorkspace = Route<Int64>("/w/{wid}/delete")
    static let leaveWorkspace = Route<Int64>("/w/{wid}/leave")
    static let transferWorkspace = Route<Int64>("/w/{wid}/transfer")
    static let members = Route<Int64>("/w/{wid}/members")
    static let removeMember = Route<Int64, Int64>("/w/{wid}/members/{uid}/remove")
    static let resendInvite = Route<Int64, Int64>("/w/{wid}/invitations/{iid}/resend")
    static let revokeInvite = Route<Int64, Int64>("/w/{wid}/invitations/{iid}/revoke")
    static let joinLink = Route<Int64>("/w/{wid}/join-link")
    static let disableJoinLink = Route<Int64>("/w/{wid}/join-link/disable")
    static let unread = Route<Int64>("/w/{wid}/unread")
    static let people = Route<Int64>("/w/{wid}/people")
    static let search = Route<Int64>("/w/{wid}/search")
    static let mentions = Route<Int64>("/w/{wid}/mentions")
    static let saved = Route<Int64>("/w/{wid}/saved")
    static let threads = Route<Int64>("/w/{wid}/threads")
    static let audit = Route<Int64>("/w/{wid}/audit")

    // Channels and direct messages.
    static let channels = Route<Int64>("/w/{wid}/channels")
    static let channel = Route<Int64, Int64>("/w/{wid}/c/{cid}")
    static let channelMessages = Route<Int64, Int64>("/w/{wid}/c/{cid}/messages")
    static let channelRead = Route<Int64, Int64>("/w/{wid}/c/{cid}/read")
    static let channelNotify = Route<Int64, Int64>("/w/{wid}/c/{cid}/notify")
    static let joinChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/join")
    static let leaveChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/leave")
    static let channelSettings = Route<Int64, Int64>("/w/{wid}/c/{cid}/settings")
    static let deleteChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/delete")
    static let transferChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/transfer")
    /// A channel's incoming webhooks: make one, give one a new URL, revoke one.
    static let channelWebhooks = Route<Int64, Int64>("/w/{wid}/c/{cid}/webhooks")
    static let renewWebhook = Route<Int64, Int64, Int64>("/w/{wid}/c/{cid}/webhooks/{hid}/renew")
    static let revokeWebhook = Route<Int64, Int64, Int64>("/w/{wid}/c/{cid}/webhooks/{hid}/revoke")
    /// An incoming webhook's secret URL (Slack-compatible; no session, no CSRF token).
    static let incomingWebhook = Route<String>("/hooks/{token}")
    static let channelMembers = Route<Int64, Int64>("/w/{wid}/c/{cid}/members")
    static let channelVisibility = Route<Int64, Int64>("/w/{wid}/c/{cid}/visibility")
    static let archiveChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/archive")
    static let unarchiveChannel = Route<Int64, Int64>("/w/{wid}/c/{cid}/unarchive")
    static let directMessages = Route<Int64, Int64>("/w/{wid}/dm/{uid}")
    static let directMessagePost = Route<Int64, Int64>("/w/{wid}/dm/{uid}/messages")
    static let directMessagesRead = Route<Int64, Int64>("/w/{wid}/dm/{uid}/read")
    static let directMessagesNotify = Route<Int64, Int64>("/w/{wid}/dm/{uid}/notify")
    static let startConversation = Route<Int64>("/w/{wid}/dm")
    static let group = Route<Int64, Int64>("/w/{wid}/g/{rid}")
    static let groupMessages = Route<Int64, Int64>("/w/{wid}/g/{rid}/messages")
    static let groupRead = Route<Int64, Int64>("/w/{wid}/g/{rid}/read")
    static let groupNotify = Route<Int64, Int64>("/w/{wid}/g/{rid}/notify")
    static let groupMembers = Route<Int64, Int64>("/w/{wid}/g/{rid}/members")
    static let leaveGroup = Route<Int64, Int64>("/w/{wid}/g/{rid}/leave")
    static let groupPins = Route<Int64, Int64>("/w/{wid}/g/{rid}/pins")
    static let groupTyping = Route<Int64, Int64>("/w/{wid}/g/{rid}/typing")
    static let editMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/edit")
    static let deleteMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/delete")
    static let messageReactions = Route<Int64, Int64>("/w/{wid}/m/{mid}/reactions")
    static let pinMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/pin")
    static let unpinMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/unpin")
    static let saveMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/save")
    static let unsaveMessage = Route<Int64, Int64>("/w/{wid}/m/{mid}/unsave")
    static let removePreview = Route<Int64, Int64>("/w/{wid}/m/{mid}/preview/remove")
    static let thread = Route<Int64, Int64>("/w/{wid}/m/{mid}/thread")
    static let threadReplies = Route<Int64, Int64>("/w/{wid}/m/{mid}/replies")
    static let threadRead = Route<Int64, Int64>("/w/{wid}/m/{mid}/thread/read")
    static let followThread = Route<Int64, Int64>("/w/{wid}/m/{mid}/thread/follow")
    static let unfollowThread = Route<Int64, Int64>("/w/{wid}/m/{mid}/thread/unfollow")
    static let channelPins = Route<Int64, Int64>("/w/{wid}/c/{cid}/pins")
    static let directMessagePins = Route<Int64, Int64>("/w/{wid}/dm/{uid}/pins")
    static let channelTyping = Route<Int64, Int64>("/w/{wid}/c/{cid}/typing")
    static let directMessageTyping = Route<Int64, Int64>("/w/{wid}/dm/{uid}/typing")

    /// A message on a room's (or thread's) page: the page around it, scrolled to it, with its
    /// edit form open when `editing`. `page` is the room's path; left empty, the link is
    /// relative to the page it is on (a message's time: the same bytes in a room and its thread).
    static func message(_ id: Int64, on page: String = "", editing: Bool = false) -> String {
        let around = String(id)
        return page + "?" + (editing ? query(["around": around, "edit": around]) : query(["around": around])) + "#m-" + around
    }

    /// A query string from names and values, each value percent-encoded (all but RFC 3986's
    /// unreserved characters and `/`, so a path passed along stays readable).
    static func query(_ items: KeyValuePairs<String, String>) -> String {
        items.map { name, value in name + "=" + percentEncoded(value) }.joined(separator: "&")
    }

    /// `value` with each UTF-8 byte outside `A–Z a–z 0–9 - . _ ~ /` written `%XX` (what
    /// Foundation's `addingPercentEncoding` wrote, at a tenth of its cost in a post's profile).
    static func percentEncoded(_ value: String) -> String {
        guard !value.utf8.allSatisfy(isQueryValueByte) else { return value }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count * 3)
        for byte in value.utf8 {
            if isQueryValueByte(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isQueryValueByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "0") ... UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"): true
        default: false
        }
    }

    /// The routes whose forms post files (`multipart/form-data`); others take only plain forms.
    static let multipart: [any AnyRoute] = [channelMessages, directMessagePost, groupMessages, threadReplies, profile, workspaceSettings,
                                            channelSettings]

    /// Every route above, for the test that holds the router to this list.
    static let all: [any AnyRoute] = [
        root, health, metrics, resetRequest, unsubscribe, join, signup, login, logout, language, events, invite, declineInvite, passwordReset, paymentWebhook, favicon,
        confirmEmail, twoStepLogin, pushKey, pushSubscriptions, pushSubscriptionRemoval, serviceWorker, manifest,
        profile, password, profileNotify, profileStatus, profileMail, user, store, checkout, checkoutComplete, sandboxPay, thumbnail, file,
        profileConfirm, twoStep, twoStepStart, twoStepDisable, recoveryCodes, endAppSignIn, appPasswords, revokeAppPassword,
        admin, adminWorkspaces, adminLog, adminMail, deactivateUser, reactivateUser, promoteUser, demoteUser, handOverWorkspace,
        workspaces, workspace, workspaceSettings, deleteWorkspace, leaveWorkspace, transferWorkspace, members, removeMember, resendInvite, revokeInvite, joinLink, disableJoinLink,
        unread, people, search, audit,
        channels, channel, channelMessages, channelRead, channelNotify, joinChannel, leaveChannel, channelSettings, deleteChannel,
        transferChannel, channelWebhooks, renewWebhook, revokeWebhook, incomingWebhook, directMessages, directMessagePost, directMessagesRead, directMessagesNotify, editMessage, deleteMessage,
        messageReactions, mentions, saved, pinMessage, unpinMessage, saveMessage, unsaveMessage, channelPins, directMessagePins,
        presence, channelTyping, directMessageTyping, channelMembers, channelVisibility, archiveChannel, unarchiveChannel,
        removePreview, startConversation, group, groupMessages, groupRead, groupNotify, groupMembers, leaveGroup, groupPins, groupTyping,
        threads, thread, threadReplies, threadRead, followThread, unfollowThread,
    ]
}
