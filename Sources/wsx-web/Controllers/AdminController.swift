import Foundation
import Hummingbird
import Mail
import Views

/// `/admin`: the server administrators' pages. Accounts (search, state, last seen; deactivate,
/// reactivate, make or unmake an administrator), workspaces (owner and size; a deactivated
/// owner's handed to a member), mail that could not be delivered, and the security log. For
/// anyone else every one of them is a 404, as a page that does not exist.
struct AdminController: Sendable {
    let administration: AccountAdministration
    let mail: MailOutbox
    let database: AppDatabase
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.admin.routerPath, use: accounts)
        group.get(Paths.adminWorkspaces.routerPath, use: workspaces)
        group.get(Paths.adminMail.routerPath, use: failedMail)
        group.get(Paths.adminLog.routerPath, use: log)
        group.post(Paths.deactivateUser.routerPath, use: deactivate)
        group.post(Paths.reactivateUser.routerPath, use: reactivate)
        group.post(Paths.promoteUser.routerPath, use: promote)
        group.post(Paths.demoteUser.routerPath, use: demote)
        group.post(Paths.handOverWorkspace.routerPath, use: handOver)
    }

    // MARK: Accounts

    @Sendable func accounts(_ request: Request, context: SignedInContext) async throws -> Response {
        try requireAdmin(context)
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        return try await showAccounts(query: query, request, context)
    }

    @Sendable func deactivate(_ request: Request, context: SignedInContext) async throws -> Response {
        try await act(request, context, done: "admin_deactivated") { uid in
            guard uid != context.userId else { throw AppError.conflict("error_deactivate_self") }
            try await administration.deactivate(userId: uid, by: context.userId, address: context.visitor.address)
        }
    }

    @Sendable func reactivate(_ request: Request, context: SignedInContext) async throws -> Response {
        try await act(request, context, done: "admin_reactivated") { uid in
            try await administration.reactivate(userId: uid, by: context.userId, address: context.visitor.address)
        }
    }

    @Sendable func promote(_ request: Request, context: SignedInContext) async throws -> Response {
        try await act(request, context, done: "admin_promoted") { uid in
            try await administration.setAdministrator(userId: uid, true, by: context.userId, address: context.visitor.address)
        }
    }

    @Sendable func demote(_ request: Request, context: SignedInContext) async throws -> Response {
        try await act(request, context, done: "admin_demoted") { uid in
            try await administration.setAdministrator(userId: uid, false, by: context.userId, address: context.visitor.address)
        }
    }

    /// Runs one action on `{uid}`, then back to the list with a notice, or the list with why not.
    private func act(_ request: Request, _ context: SignedInContext, done: String,
                     _ action: (Int64) async throws -> Void) async throws -> Response {
        try requireAdmin(context)
        let uid = try context.id("uid")
        do {
            try await action(uid)
        } catch let error as AppError where error.status == .conflict {
            return try await showAccounts(query: "", request, context, error: context.strings[error.messageKey ?? "error_409_body"],
                                          status: .conflict)
        } catch AccountError.noSuchUser {
            throw AppError.notFound
        }
        let back = context.form["q"].map { Paths.admin(query: Paths.query(["q": $0])) } ?? Paths.admin()
        return cookies.redirect(to: back, flash: done, for: request)
    }

    private func showAccounts(query: String, _ request: Request, _ context: SignedInContext, error: String? = nil,
                              status: HTTPResponse.Status = .ok) async throws -> Response {
        let strings = context.strings
        let found = try administration.accounts(search: query)
        let activeAdmins = found.filter { $0.isAdmin && $0.deactivatedAt == nil }.count
        let rows = found.map { account in
            let state = account.deactivatedAt != nil ? "deactivated" : account.hasPassword ? "active" : "invited"
            var row = AdminAccountRow(id: account.id, email: account.email, nickname: account.nickname, profileURL: Paths.user(account.id),
                                      state: state, stateText: strings["admin_state_\(state)"], isAdmin: account.isAdmin,
                                      twoStep: account.twoStep, workspaces: account.workspaces,
                                      createdAt: Timestamps.iso(account.createdAt), createdText: Timestamps.utcText(account.createdAt))
            (row.lastSeen, row.lastSeenText) = (account.lastSeenAt.map(Timestamps.iso), account.lastSeenAt.map(Timestamps.utcText))
            let isSelf = account.id == context.userId
            let lastAdmin = account.isAdmin && account.deactivatedAt == nil && activeAdmins <= 1
            if account.deactivatedAt == nil {
                if !isSelf && !lastAdmin { row.deactivateURL = Paths.deactivateUser(account.id) }
                if account.isAdmin, !lastAdmin { row.demoteURL = Paths.demoteUser(account.id) }
                if !account.isAdmin, account.hasPassword { row.promoteURL = Paths.promoteUser(account.id) }
            } else {
                row.reactivateURL = Paths.reactivateUser(account.id)
            }
            return row
        }
        let page = AdminAccountsPage(tabs: tabs("accounts"), query: query, searchURL: Paths.admin(), accounts: rows, error: error)
        return try await pages.render(.adminAccounts, title: strings["admin_title"], page: page, request: request, context: context,
                                      status: status)
    }

    // MARK: Workspaces

    @Sendable func workspaces(_ request: Request, context: SignedInContext) async throws -> Response {
        try requireAdmin(context)
        return try await showWorkspaces(request, context)
    }

    @Sendable func handOver(_ request: Request, context: SignedInContext) async throws -> Response {
        try requireAdmin(context)
        let wid = try context.id("wid")
        guard let owner = context.form["owner_id"].flatMap(Int64.init) else { throw AppError.badRequest }
        do {
            try await administration.handOver(workspaceId: wid, to: owner, by: context.userId, address: context.visitor.address)
        } catch let error as AppError where error.status == .conflict {
            return try await showWorkspaces(request, context, error: context.strings[error.messageKey ?? "error_409_body"], status: .conflict)
        }
        return cookies.redirect(to: Paths.adminWorkspaces(), flash: "admin_handed_over", for: request)
    }

    private func showWorkspaces(_ request: Request, _ context: SignedInContext, error: String? = nil,
                                status: HTTPResponse.Status = .ok) async throws -> Response {
        let strings = context.strings
        let rows = try administration.workspaces().map { workspace in
            AdminWorkspaceRow(id: workspace.id, name: workspace.name, owner: "\(workspace.ownerNickname) <\(workspace.ownerEmail)>",
                              ownerDeactivated: workspace.ownerDeactivated,
                              sizeText: strings.format("admin_size_text", workspace.members, workspace.messages,
                                                       DiskSpace.describe(Int(workspace.fileBytes))),
                              handOverURL: workspace.ownerDeactivated ? Paths.handOverWorkspace(workspace.id) : nil,
                              successors: workspace.successors.map { PersonOption(id: $0.id, nickname: $0.nickname, url: Paths.user($0.id)) })
        }
        let page = AdminWorkspacesPage(tabs: tabs("workspaces"), workspaces: rows, error: error)
        return try await pages.render(.adminWorkspaces, title: strings["admin_title"], page: page, request: request, context: context,
                                      status: status)
    }

    // MARK: Mail and the log

    @Sendable func failedMail(_ request: Request, context: SignedInContext) async throws -> Response {
        try requireAdmin(context)
        let strings = context.strings
        let lines = try mail.failures(limit: 200).map { failure in
            AdminLine(timestamp: Timestamps.iso(failure.failedAt), timeText: Timestamps.utcText(failure.failedAt),
                      text: strings.format("mail_failure_\(failure.reason.rawValue)", failure.recipient),
                      detail: strings["admin_mail_kind_\(failure.kind.rawValue)"])
        }
        let page = AdminLinesPage(tabs: tabs("mail"), heading: strings["admin_mail_heading"], intro: strings["admin_mail_intro"],
                                  lines: lines, emptyText: strings["admin_mail_empty"])
        return try await pages.render(.adminLines, title: strings["admin_title"], page: page, request: request, context: context)
    }

    @Sendable func log(_ request: Request, context: SignedInContext) async throws -> Response {
        try requireAdmin(context)
        let strings = context.strings
        let before = request.uri.queryParameters["before"].flatMap { Int64($0) }
        let found = try await database.queryOffLoop { tx in try tx.securityLog.lines(limit: 101, beforeId: before) }
        let lines = found.prefix(100).map { line in
            // Who did it: an account, the address typed at a failed sign-in, or the operator's command.
            let actor = line.actor ?? (line.email.isEmpty ? strings["admin_log_operator"] : line.email)
            let detail = strings.table["admin_log_detail_" + line.detail.replacingOccurrences(of: " ", with: "_")
                .replacingOccurrences(of: "-", with: "_")] ?? line.detail
            return AdminLine(timestamp: Timestamps.iso(line.at), timeText: Timestamps.utcText(line.at),
                             text: strings.format("admin_log_\(line.action)", actor, line.target ?? line.email),
                             detail: [line.address, detail].filter { !$0.isEmpty }.joined(separator: " · "))
        }
        let older = found.count > 100 ? found.prefix(100).last.map { Paths.adminLog(query: Paths.query(["before": String($0.id)])) } : nil
        let page = AdminLinesPage(tabs: tabs("log"), heading: strings["admin_log_heading"], intro: strings["admin_log_intro"],
                                  lines: Array(lines), emptyText: strings["admin_log_empty"], olderURL: older ?? nil)
        return try await pages.render(.adminLines, title: strings["admin_title"], page: page, request: request, context: context)
    }

    private func tabs(_ current: String) -> AdminTabs {
        AdminTabs(accountsURL: Paths.admin(), workspacesURL: Paths.adminWorkspaces(), mailURL: Paths.adminMail(), logURL: Paths.adminLog(),
                  current: current)
    }

    /// Administrators only; anyone else finds nothing here.
    private func requireAdmin(_ context: SignedInContext) throws {
        guard context.user.isAdmin else { throw AppError.notFound }
    }
}
