import Hummingbird
import Views

/// Who is asking, as far as the session middleware could tell: the signed-in user (if any), the
/// UI language, the CSRF token their forms carry, a one-time notice, and the parsed form body.
struct Visitor: Sendable {
    var lang: Lang = .fallback
    var csrfToken = ""
    var session: Session?
    var user: User?
    var flash: String?
    /// The urlencoded body of a POST, parsed once by the CSRF check.
    var form: FormData?
    /// The client's address (the proxy's `X-Forwarded-For` when trusted).
    var address = "unknown"

    var strings: Strings { lang.strings }
}

/// A request context that knows its visitor; both the public and the signed-in contexts do.
protocol VisitorContext: RequestContext {
    var visitor: Visitor { get }
}

/// The context of every request.
struct AppRequestContext: RequestContext, VisitorContext {
    var coreContext: CoreRequestContextStorage
    var visitor = Visitor()
    /// The peer of the TCP connection.
    let peerAddress: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// The context of routes that need a signed-in user: `user` and `session` are not optional.
/// Building it fails with `AppError.signInRequired` for anonymous visitors, which becomes a
/// redirect to the login page (or a 401 for non-page requests).
struct SignedInContext: ChildRequestContext, VisitorContext {
    var coreContext: CoreRequestContextStorage
    let visitor: Visitor
    let user: User
    let session: Session

    init(context: AppRequestContext) throws {
        guard let user = context.visitor.user, let session = context.visitor.session else {
            throw AppError.signInRequired
        }
        coreContext = context.coreContext
        visitor = context.visitor
        self.user = user
        self.session = session
    }

    var userId: Int64 { user.id! }
}
