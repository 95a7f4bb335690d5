import Foundation
import Hummingbird
import Views

/// `GET /w/{wid}/search?q=`: channels, members and messages of the workspace the person may see.
struct SearchController: Sendable {
    let workspaces: WorkspaceService
    let search: SearchService
    /// Each account's searches per minute (`--searches-per-minute`).
    let rateLimiter: AccountRateLimiter
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.search.routerPath, use: results)
    }

    @Sendable func results(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let parameters = request.uri.queryParameters
        let query = (parameters["q"].map(String.init) ?? "").cleanedLine
        switch SearchService.queryLimit.check(query) {
        case .fits: break
        case .tooLong: throw AppError(status: .unprocessableContent, messageKey: "error_search_long")
        case .tooManyMarks: throw AppError(status: .unprocessableContent, messageKey: "error_text_marks")
        }
        func cursor(_ name: String) throws -> Int64? {
            guard let text = parameters[Substring(name)] else { return nil }
            guard let value = Int64(text), value > 0 else { throw AppError.badRequest }
            return value
        }
        let cursors = SearchService.Cursors(channelsAfter: try cursor("channels_after"), membersAfter: try cursor("members_after"),
                                            messagesBefore: try cursor("messages_before"))
        if !query.isEmpty { try rateLimiter.charge(.search, userId: context.userId) }
        let found = query.isEmpty ? SearchService.Results() : try await search.search(access, query: query, from: cursors)
        let base = Paths.search(access.workspaceId, query: Paths.query(["q": query]))
        let strings = context.strings
        func row(_ hit: SearchService.MessageHit) -> SearchMessageRow {
            // A direct conversation is named by the other person(s), said as such; its author is
            // left out when it is that person, so a result never reads "박서준 · 박서준".
            let room = hit.isChannel ? "#" + hit.roomName : strings.format("search_conversation_with", hit.roomName)
            return SearchMessageRow(roomName: room, author: !hit.isChannel && hit.author == hit.roomName ? nil : hit.author,
                                    timestamp: Timestamps.iso(hit.createdAt), timeText: Timestamps.utcText(hit.createdAt),
                                    snippetHtml: SearchService.highlighted(hit.body, query: query),
                                    url: hit.threadRootId.map { Paths.thread(access.workspaceId, $0, fragment: "m-\(hit.id)") }
                                        ?? Paths.message(hit.id, on: hit.roomPath))
        }
        let page = SearchPage(
            workspaceId: access.workspaceId, query: query,
            channels: found.channels.map { SearchChannelRow(name: $0.name, description: $0.description,
                                                            url: Paths.channel(access.workspaceId, $0.id)) },
            members: found.members.map { SearchMemberRow(nickname: $0.nickname, email: $0.email, url: Paths.user($0.id)) },
            messages: found.messages.map(row),
            files: found.files.map { SearchFileRow(name: $0.name, sizeText: MessageListRenderer.byteText($0.size), message: row($0.message)) },
            moreChannelsURL: found.next.channelsAfter.map { "\(base)&channels_after=\($0)#search-channels" },
            moreMembersURL: found.next.membersAfter.map { "\(base)&members_after=\($0)#search-members" },
            moreMessagesURL: found.next.messagesBefore.map { "\(base)&messages_before=\($0)#search-messages" })
        return try await pages.render(.search, title: context.strings["search_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId))
    }
}
