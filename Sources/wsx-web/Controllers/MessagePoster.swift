import Hummingbird
import Prometheus
import Uploads
import Views

/// Posting from a composer, to a room or to a thread alike: the checks before anything is
/// stored (text, a mention of everyone in a large room), the files, the post, and the answer:
/// JSON for scripts, else a redirect to the message, or the composer's page again with the text
/// kept and the reason beside it.
struct MessagePoster: Sendable {
    let messages: MessageService
    let files: FileService
    let linkPreviews: LinkPreviewService
    let typing: TypingThrottle
    /// Each account's posting allowance (`--post-burst`, `--posts-per-second`).
    let rateLimiter: AccountRateLimiter
    let metrics: ServerMetrics

    /// Rooms larger than this ask before `@here`, `@channel` or `@all` notifies them.
    static let largeRoom = 50

    /// Whether a refusal is best shown beside the composer, the text kept (a page without
    /// JavaScript): a file too large or of the wrong type, a bad form, posting too fast.
    static func showsBesideComposer(_ error: AppError, _ request: Request) -> Bool {
        [413, 415, 422, 429].contains(error.status.code) && !RoomsController.wantsJSON(request)
    }

    /// Where a post goes and how its answers are made.
    struct Destination: Sendable {
        /// The room, made only once the post is known to be acceptable (a DM's first message).
        let room: @Sendable () async throws -> Room
        /// How many people a mention of everyone would reach.
        let memberCount: Int
        let thread: ThreadPlacement?
        /// The page that lists the message (the redirect adds `#m-id`).
        let path: String
        /// The composer's page again, with the text, the reason, whether the form now confirms a
        /// mention of everyone, and the status.
        let refusal: @Sendable (_ content: String, _ reason: String, _ confirmMentions: Bool,
                                _ status: HTTPResponse.Status) async throws -> Response
    }

    func post(_ submission: MessageSubmission, to destination: Destination, request: Request,
              context: SignedInContext) async throws -> Response {
        let content = submission.content
        do {
            try rateLimiter.charge(.post, userId: context.userId)
        } catch let refusal as AppError {
            submission.upload?.discardTemporaries()
            // Scripts get the 429 in JSON; a page comes back with the text still in the composer.
            if RoomsController.wantsJSON(request) { throw refusal }
            let reason = context.strings.format(refusal.messageKey ?? "error_429_body", arguments: refusal.arguments)
            var response = try await destination.refusal(content, reason, false, refusal.status)
            for field in refusal.headers { response.headers.append(field) }
            return response
        }
        do {
            _ = try MessageService.checked(content, allowEmpty: submission.hasFiles)
        } catch let problems as FormProblems {
            submission.upload?.discardTemporaries()
            return try await refuse(problems, content: content, destination, request, context)
        }
        // Telling everyone in a large room takes a second look: the script asks; without it,
        // the page asks, the text kept in the composer and sending again confirms.
        let count = destination.memberCount
        if !submission.confirmsMentions, count > Self.largeRoom, content.contains("@"),
           !MessageHTML.render(content, members: .none).groups.isEmpty {
            submission.upload?.discardTemporaries()
            if RoomsController.wantsJSON(request) {
                return RoomsController.json(["confirm": .string(context.strings.format("confirm_group_mention", count))],
                                            status: .conflict)
            }
            let question = context.strings.format(submission.hasFiles ? "confirm_group_mention_files" : "confirm_group_mention", count)
            return try await destination.refusal(content, question, true, .conflict)
        }
        var prepared: [PreparedFile] = []
        if let upload = submission.upload { prepared = try await files.prepare(upload) }
        do {
            let into = try await destination.room()
            var thread = destination.thread
            if let placement = thread { thread = ThreadPlacement(rootId: placement.rootId, alsoInRoom: submission.alsoInRoom) }
            let posted = try await deliver(content, files: prepared, in: into, author: context.user, clientId: submission.clientId,
                                           thread: thread)
            if RoomsController.wantsJSON(request) {
                return RoomsController.json(["html": .string(posted.html), "id": .int(posted.id)],
                                            status: posted.isRepeat ? .ok : .created)
            }
            return Pages.redirect(to: destination.path + "#m-\(posted.id)")
        } catch let problems as FormProblems {
            return try await refuse(problems, content: content, destination, request, context)
        }
    }

    /// Stores a post (`MessageService.post`) and does what follows every post, from a page or an
    /// app: it is counted, its link's card is fetched later, and it ends the author's "typing…".
    /// `drawEarly`: the fragment may be drawn before the writer's turn from `author` as the
    /// request read them (`PostDraft`); else from the stored row (a bot's, which says it is one).
    func deliver(_ text: String, files prepared: [PreparedFile], in room: Room, author: User, clientId: String? = nil,
                 thread: ThreadPlacement? = nil, drawEarly: Bool = true) async throws -> WrittenMessage {
        let posted = try await messages.post(in: room, authorId: author.id!, author: drawEarly ? author : nil, text: text, files: prepared,
                                             clientId: clientId, thread: thread)
        if !posted.isRepeat { metrics.posts.increment() }
        linkPreviews.schedule(posted, in: room)
        // The next words may say "typing…" at once.
        typing.forget(userId: author.id!, roomId: room.id!)
        return posted
    }

    private func refuse(_ problems: FormProblems, content: String, _ destination: Destination, _ request: Request,
                        _ context: SignedInContext) async throws -> Response {
        let message = FieldErrors(problems, context.strings).content ?? ""
        if RoomsController.wantsJSON(request) {
            return RoomsController.json(["error": .string(message)], status: .unprocessableContent)
        }
        return try await destination.refusal(content, message, false, .unprocessableContent)
    }
}
