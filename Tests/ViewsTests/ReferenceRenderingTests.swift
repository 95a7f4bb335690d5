import Assets
import Foundation
import Mustache
import Testing
@testable import Views

/// Our renderer must give byte for byte the pages swift-mustache (the reference Mustache
/// implementation we started with) gives for the same templates and view models: every page
/// template, in both languages, signed in with a full sidebar and signed out.
@Suite("Templates render as swift-mustache renders them")
struct ReferenceRenderingTests {
    /// What the reference sees; it reads plain structs by reflection.
    struct ReferencePage { let t: [String: String]; let chrome: Chrome; let page: Any }
    struct ReferenceLayout { let t: [String: String]; let chrome: Chrome; let title: String; let contentHtml: String }
    struct ReferenceNeutral { let page: Any }

    let texts: [String: String] = EmbeddedFiles.files(in: "Templates").reduce(into: [:]) { texts, file in
        texts[String(file.key.dropLast(".mustache".count))] = String(decoding: file.value, as: UTF8.self)
    }

    func reference(_ lang: Lang?) throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in texts {
            try library.register(lang.map { TemplateTranslation.translate(text, with: $0.strings.table) } ?? text, named: name)
        }
        return library
    }

    /// The reference library of each language, made once per test (parsing every template for
    /// every page took minutes of the suite's two cores).
    var references: [Lang: MustacheLibrary] = [:]

    init() throws {
        for lang in Lang.allCases { references[lang] = try reference(lang) }
    }

    func referenceDocument(_ template: TemplateName, title: String, page: Any, chrome: Chrome) throws -> String {
        let library = try #require(references[chrome.lang])
        let table = chrome.lang.strings.table
        let content = try #require(library.render(ReferencePage(t: table, chrome: chrome, page: page), withTemplate: template.rawValue))
        return try #require(library.render(ReferenceLayout(t: table, chrome: chrome, title: title, contentHtml: content), withTemplate: "layout"))
    }

    static func chromes(_ lang: Lang) -> [Chrome] {
        let signedIn = Chrome(
            lang: lang, csrfToken: "csrf-<&>", viewer: Viewer(id: 7, nickname: "김민수 <Kim>"),
            workspaces: [SidebarWorkspace(id: 1, name: "디자인 & Co", url: "/w/1", isCurrent: true), SidebarWorkspace(id: 2, name: "Ops", url: "/w/2", isCurrent: false)],
            rooms: [SidebarRoom(id: 3, name: "general", url: "/w/1/c/3", isCurrent: true, unread: 0),
                    SidebarRoom(id: 4, name: "회의", url: "/w/1/c/4", isCurrent: false, unread: 12),
                    SidebarRoom(id: 5, name: "Lee \"J\"", url: "/w/1/d/5", isCurrent: false, unread: 2, isDM: true)],
            currentWorkspaceId: 1, flash: "저장했습니다 <ok>", path: "/w/1/c/3?x=1&y=2", lastEventId: 99,
            cssURL: "/static/app.css?v=1", scriptURLs: ["/static/app.js?v=1", "/static/live.js?v=1"], links: .sample)
        var inWorkspace = signedIn
        inWorkspace.workspace = .sample
        var group = SidebarRoom(id: 6, name: "Bob, 지수", url: "/w/1/g/6", isCurrent: false, unread: 1, isDM: true)
        (group.isGroup, group.initial) = (true, "3")
        var withGroup = Chrome(
            lang: lang, csrfToken: "t", viewer: Viewer(id: 7, nickname: "김민수"), workspaces: [], rooms: [group],
            currentWorkspaceId: 1, path: "/w/1/g/6", lastEventId: 1, cssURL: "/static/app.css?v=1", scriptURLs: [], links: .sample)
        withGroup.workspace = .sample
        let signedOut = Chrome(lang: lang, csrfToken: "t", viewer: nil, path: "/login", cssURL: "/static/app.css?v=1", scriptURLs: [],
                               links: .sample)
        return [signedIn, inWorkspace, withGroup, signedOut]
    }

    static let attachments = [
        AttachmentView(url: "/files/a", thumbnailURL: "/files/a/thumb", name: "사진 <1>.jpg", sizeText: "2.0 MB", isImage: true,
                       kindLabel: "FILE", width: 360, height: 240),
        AttachmentView(url: "/files/b", thumbnailURL: "", name: "보고서.pdf", sizeText: "12 KB", isImage: false, kindLabel: "PDF",
                       width: 360, height: 240),
    ]

    static var errors: FieldErrors {
        var errors = FieldErrors()
        errors.email = "이메일 <형식>"
        errors.password = "too short"
        errors.name = "taken"
        errors.content = "empty"
        return errors
    }

    /// One or more models for every page template.
    static var pages: [(TemplateName, Any)] {
        let links = [RoomLink(id: 3, name: "general", url: "/w/1/c/3", description: "모두 <all>", memberCount: 4, joined: true,
                              isDefault: true, unread: 3, lastSnippet: "안녕 & bye", lastTimestamp: "2026-11-22T10:00:00Z",
                              lastTimeText: "10:00"),
                     RoomLink(id: 4, name: "random", url: "/w/1/c/4", joined: false)]
        var home = WorkspaceHomePage(id: 1, name: "디자인", description: "팀 <공간>", isOwner: true, channels: links, dms: links)
        home.coverURL = "/files/c/thumb"
        var room = RoomPage(workspaceId: 1, roomId: 3, isChannel: true, title: "general", description: "설명 <b>", memberCountText: "4명",
                            settingsURL: "/w/1/c/3/settings", isMember: true, joinURL: nil, messagesHtml: "<li>hi</li>", isEmpty: false,
                            olderURL: "/w/1/c/3?before=5", newerURL: "/w/1/c/3?after=9", isLatest: false, composerAction: "/w/1/c/3/messages",
                            readURL: "/w/1/c/3/read", content: "초안 <draft>", contentError: "too long")
        room.coverURL = "/files/c/thumb"
        room.markReadUpTo = 9
        let dm = RoomPage(workspaceId: 1, roomId: 5, isChannel: false, title: "Lee", description: "", memberCountText: "2",
                          settingsURL: nil, isMember: false, joinURL: "/w/1/c/5/join", messagesHtml: "", isEmpty: true, olderURL: nil,
                          newerURL: nil, isLatest: true, composerAction: "/w/1/d/5/messages", readURL: nil)
        let people = [PersonOption(id: 8, nickname: "박 <P>", url: "/users/8"), PersonOption(id: 9, nickname: "Choi", url: "/users/9")]
        let form = CreateWorkspaceForm(name: "새 <ws>", description: "d", errors: errors, price: 100, balance: 40,
                                       coinsMessage: "not enough", priceNote: "100 coins")
        var pages: [(TemplateName, Any)] = [
            (.login, LoginPage(email: "a@b.c\"", error: "wrong <password>", next: "/w/1?x=1&y=2")),
            (.login, LoginPage()),
            (.signup, SignupPage(email: "e", nickname: "n", phone: "010", errors: errors, inviteToken: "inv")),
            (.signup, SignupPage()),
            (.resetPassword, ResetPasswordPage(token: "tok", email: "e@x", errors: errors, actionURL: "/reset/tok")),
            (.resetRequest, ResetRequestPage(email: "e@x\"", actionURL: "/reset", mailEnabled: true, error: "bad <address>")),
            (.resetRequest, ResetRequestPage(actionURL: "/reset", notice: "sent <n>", mailEnabled: true)),
            (.resetRequest, ResetRequestPage(actionURL: "/reset", mailEnabled: false)),
            (.join, JoinPage(workspaceName: "팀 <t>", fromText: "민아 shared", signedIn: true, isMember: false, actionURL: "/join/t",
                             signupURL: "/signup?next=%2Fjoin%2Ft", loginURL: "/login?next=%2Fjoin%2Ft", workspaceURL: "/w/1")),
            (.join, JoinPage(workspaceName: "팀", fromText: "f", signedIn: false, isMember: false, actionURL: "/join/t",
                             signupURL: "/signup?next=x", loginURL: "/login?next=x", workspaceURL: "/w/1")),
            (.join, JoinPage(workspaceName: "팀", fromText: "f", signedIn: true, isMember: true, actionURL: "/join/t",
                             signupURL: "/signup", loginURL: "/login", workspaceURL: "/w/1")),
            (.profile, ProfilePage(email: "e", nickname: "닉 <n>", phone: "010", errors: errors)),
            (.user, UserPage(id: 3, nickname: "Lee <L>", isViewer: false, email: "lee@x", phone: "010 <1>", photoURL: "/files/3/thumb",
                             workspaces: [SharedWorkspace(name: "디자인 <d>", url: "/w/1", messageURL: "/w/1/dm/3", messageLabel: "DM <Lee>")])),
            (.user, UserPage(id: 7, nickname: "me", isViewer: true)),
            (.error, ErrorPage(status: 404, heading: "없음", message: "찾을 수 없습니다 <x>", requestId: "req-1")),
            (.error, ErrorPage(status: 500, heading: "Oops", message: "m")),
            (.workspaces, WorkspacesPage(workspaces: [SidebarWorkspace(id: 1, name: "w <1>", url: "/w/1?a=<b>", isCurrent: false)], form: form,
                                         invitations: [InvitationRow(id: 3, workspaceName: "팀 <t>", fromText: "민 invited you",
                                                                     url: "/invite/abc")])),
            (.workspaces, WorkspacesPage(workspaces: [], form: CreateWorkspaceForm(price: 0, balance: 0, priceNote: "free"))),
            (.workspaceHome, home),
            (.workspaceHome, WorkspaceHomePage(id: 2, name: "empty", description: "", isOwner: false, channels: [])),
            (.workspaceSettings, WorkspaceSettingsPage(id: 1, name: "n", description: "d", errors: errors, isOwner: true,
                                                       transferCandidates: people)),
            (.confirm, ConfirmPage(heading: "삭제?", consequences: ["all <gone>", "forever"], action: "/w/1/delete", button: "Delete",
                                   fields: [HiddenField(name: "next", value: "/a?b=1&c=2")], cancelURL: "/w/1", isDanger: true)),
            (.confirm, ConfirmPage(heading: "Leave?", consequences: [], action: "/w/1/leave", button: "Leave", cancelURL: "/w/1", isDanger: false)),
            (.members, MembersPage(workspaceId: 1, workspaceName: "디자인", members: [
                MemberRow(id: 7, nickname: "me", email: "me@x", roleLabel: "owner", canRemove: false, url: "/users/7", removeURL: "/w/1/members/7/remove"),
                MemberRow(id: 8, nickname: "박 <P>", email: "p@x", roleLabel: "member", canRemove: true, dmURL: "/w/1/d/8", url: "/users/8", removeURL: "/w/1/members/8/remove")],
                isOwner: true, email: "new@x", errors: errors, inviteLink: "http://h/invite/abc", notice: "sent <ok>")),
            (.members, { () -> MembersPage in
                var page = MembersPage(workspaceId: 1, workspaceName: "디자인", members: [], isOwner: true)
                page.invitations = [PendingInviteRow(id: 4, email: "g <g>@x", link: "http://h/invite/t&u", expiresAt: "2026-01-01T00:00:00Z",
                                                     expiresText: "2026-01-01 00:00 UTC", resendURL: "/w/1/invitations/4/resend",
                                                     revokeURL: "/w/1/invitations/4/revoke")]
                page.hasInvitations = true
                page.mailFailures = [MailFailureRow(recipient: "b@x", error: "550 <no>", timestamp: "t", timeText: "tt")]
                page.hasMailFailures = true
                page.joinLink = JoinLinkView(url: "http://h/join/t", expiresAt: nil, expiresText: nil, usesText: "Used 2 <times>")
                page.joinLinkAction = "/w/1/join-link"
                page.disableJoinLinkAction = "/w/1/join-link/disable"
                page.expiryChoices = [NotifyChoice(value: "1d", label: "1 day", isSelected: false),
                                      NotifyChoice(value: "never", label: "Never", isSelected: true)]
                page.maxUses = "5\""
                return page
            }()),
            (.invite, InvitePage(token: "abc", workspaceName: "디자인 <d>", inviterNickname: "민 <a>", email: "x@y", expiresAt: "2026-01-01T00:00:00Z",
                                 expiresText: "2026-01-01 00:00 UTC", signedIn: true, wrongAccount: true, signup: nil, acceptURL: "/invite/abc", declineURL: "/invite/abc/decline", loginURL: "/login?next=%2Finvite%2Fabc")),
            (.invite, InvitePage(token: "abc", workspaceName: "디자인", inviterNickname: "민", email: "x@y", expiresAt: "t", expiresText: "t",
                                 signedIn: true, wrongAccount: false, signup: nil, acceptURL: "/invite/abc", declineURL: "/invite/abc/decline", loginURL: "/login?next=%2Finvite%2Fabc")),
            (.invite, InvitePage(token: "abc", workspaceName: "디자인", inviterNickname: "민", email: "x@y", expiresAt: "t", expiresText: "t",
                                 signedIn: false, wrongAccount: false,
                                 signup: SignupPage(email: "x@y", nickname: "<n>", errors: errors, inviteToken: "abc"), acceptURL: "/invite/abc", declineURL: "/invite/abc/decline", loginURL: "/login?next=%2Finvite%2Fabc&x=<y>")),
            (.channels, ChannelsPage(workspaceId: 1, channels: links, name: "new", description: "d", errors: errors)),
            (.room, room),
            (.room, dm),
            (.channelSettings, ChannelSettingsPage(workspaceId: 1, id: 3, name: "general", description: "d <x>", errors: errors,
                                                   canManage: true, isDefault: false, isMember: true, isOwner: true, members: people,
                                                   transferCandidates: people, settingsURL: "/w/1/c/3/settings", deleteURL: "/w/1/c/3/delete",
                                                   leaveURL: "/w/1/c/3/leave", transferURL: "/w/1/c/3/transfer")),
            (.audit, AuditPage(workspaceId: 1, entries: [AuditRow(timestamp: "t", timeText: "10:00", actor: "me <m>", action: "removed",
                                                                  target: "Lee", detail: "from <general>")])),
            (.store, StorePage(balance: 120, packs: [PackView(item: "coins_100", coins: 100, priceText: "₩1,000")],
                               history: [PurchaseRow(timestamp: "t", timeText: "x", pack: "100", amountText: "₩1,000", statusText: "대기",
                                                     status: "pending", checkURL: "/store/check/1")], isSandbox: true,
                               isSelling: true)),
            (.store, StorePage(balance: 5, packs: [], history: [], isSandbox: false, isSelling: false)),
            (.storeResult, StoreResultPage(succeeded: false, isPending: true, heading: "h", message: "m <x>", balance: 3, checkURL: "/c")),
            (.sandboxCheckout, SandboxCheckoutPage(merchantUid: "uid", amount: 1000, currency: "KRW", name: "coins <100>", amountText: "₩1,000")),
            (.portoneCheckout, PortOneCheckoutPage(merchantCode: "imp1", pg: "html5_inicis", merchantUid: "uid", amount: 1000, name: "n",
                                                   buyerEmail: "b@x", completeURL: "/c", sdkURL: "https://cdn/x.js", scriptURL: "/s.js")),
            (.search, SearchPage(workspaceId: 1, query: "회의 <q>", channels: [SearchChannelRow(name: "회의실", description: "d", url: "/u")],
                                 members: [SearchMemberRow(nickname: "n", email: "e", url: "/m")],
                                 messages: [SearchMessageRow(roomName: "general", author: "a", timestamp: "t", timeText: "x",
                                                             snippetHtml: "<mark>회의</mark>", url: "/x")],
                                 moreChannelsURL: "/more?c", moreMembersURL: nil, moreMessagesURL: "/more?m")),
            (.search, SearchPage(workspaceId: 1, query: "", channels: [], members: [], messages: [], moreChannelsURL: nil,
                                 moreMembersURL: nil, moreMessagesURL: nil)),
        ]
        pages.append((.messageActions, MessageActions(canEdit: true, canDelete: true, editing: true,
                                                      body: "  편집 <중>\n둘째 줄", cancelURL: "/c", editURL: "",
                                                      saveURL: "/w/1/m/12/edit", deleteURL: "/w/1/m/12/delete")))
        pages.append((.messageActions, MessageActions(canEdit: false, canDelete: true,
                                                      editing: false, body: "", cancelURL: "", editURL: "/e?around=1&edit=1",
                                                      saveURL: "/w/1/m/-1/edit", deleteURL: "/w/1/m/-1/delete",
                                                      reactURL: "/w/1/m/-1/reactions")))
        var withReply = MessageActions(canEdit: true, canDelete: true, editing: false, body: "", cancelURL: "", editURL: "/e",
                                       saveURL: "/w/1/m/-1/edit", deleteURL: "/w/1/m/-1/delete", reactURL: "/w/1/m/-1/reactions")
        withReply.threadURL = "/w/1/m/-1/thread"
        pages.append((.messageActions, withReply))
        let chips = [ReactionChip(emoji: "👍", userIds: [7, 8], names: ["김민수 <Kim>", "Lee \"J\""], viewer: 7),
                     ReactionChip(emoji: "🎉", userIds: [8], names: ["Lee"], viewer: 7)]
        pages.append((.reactions, ReactionBar(action: "/w/1/m/12/reactions", chips: chips)))
        pages.append((.reactionsPage, ReactionsPage(author: "민아 <M>", snippet: "회의 & 일정", chips: chips,
                                                    choices: [ReactionChoice(emoji: "👍", name: "올린 엄지", pressed: true),
                                                              ReactionChoice(emoji: "❤️", name: "빨간색 하트", pressed: false)],
                                                    action: "/w/1/m/12/reactions", backURL: "/w/1/c/3?around=12#m-12",
                                                    error: "이모지 하나를 골라 주세요.")))
        pages.append((.reactionsPage, ReactionsPage(author: "a", snippet: "b", chips: [], choices: [], action: "/r", backURL: "/c")))
        var item = CollectedMessageItem(roomLabel: "#회의 <1>", roomURL: "/w/1/c/3", author: "민아 & Bob", timestamp: "2026-11-24T01:02:03Z",
                                        timeText: "01:02", bodyHtml: #"<span class="mention" data-user="7">@김민수</span>님 <strong>확인</strong>"#,
                                        fileNames: ["회의록 <최종>.pdf"], url: "/w/1/c/3?around=9#m-9")
        pages.append((.messageCollection, MessageCollectionPage(heading: "멘션", listId: "mention-list", emptyText: "없음", items: [item])))
        item.removeURL = "/w/1/m/9/unsave"
        var saved = MessageCollectionPage(heading: "저장 <됨>", listId: "saved-list", emptyText: "없음", items: [item])
        (saved.removeLabel, saved.backURL, saved.backLabel) = ("저장 취소", "/w/1/c/3", "돌아가기 & 끝")
        pages.append((.messageCollection, saved))
        pages.append((.messageCollection, MessageCollectionPage(heading: "멘션", listId: "mention-list", emptyText: "없음 <0>", items: [])))
        var withToggles = ReactionsPage(author: "a", snippet: "b", chips: [], choices: [], action: "/r", backURL: "/c")
        withToggles.toggles = [MessageToggle(action: "/w/1/m/2/unpin", label: "고정 해제", kind: "message-pin", isOn: true),
                               MessageToggle(action: "/w/1/m/2/save", label: "저장", kind: "message-save", isOn: false)]
        pages.append((.reactionsPage, withToggles))
        pages.append((.messageFlags, MessageFlags(pinned: true, saved: false)))
        pages.append((.messageFlags, MessageFlags(pinned: true, saved: true)))
        var group = RoomPage(workspaceId: 1, roomId: 6, isChannel: false, title: "Bob, 지수 <g>", description: "", memberCountText: "멤버 3명",
                             settingsURL: nil, isMember: true, joinURL: nil, messagesHtml: "<li>hi</li>", isEmpty: false, olderURL: nil,
                             newerURL: nil, isLatest: true, composerAction: "/w/1/g/6/messages", readURL: "/w/1/g/6/read")
        (group.isGroup, group.groupMembers, group.leaveURL) = (true, people, "/w/1/g/6/leave")
        (group.addMemberURL, group.addCandidates) = ("/w/1/g/6/members", [PersonOption(id: 10, nickname: "Dave & co", url: "/users/10")])
        pages.append((.room, group))
        group.addCandidates = []
        pages.append((.room, group))
        let candidates = [ConversationCandidate(id: 8, nickname: "박 <P>", avatarURL: nil, isChosen: true),
                          ConversationCandidate(id: 9, nickname: "Choi", avatarURL: "/files/9/thumb", isChosen: false)]
        pages.append((.newConversation, NewConversationPage(action: "/w/1/dm", people: candidates, hint: "한 명 <1>",
                                                            error: "고르세요 & 다시")))
        pages.append((.newConversation, NewConversationPage(action: "/w/1/dm", people: [], hint: "")))
        pages.append((.linkPreview, LinkPreviewCard(messageId: 9, url: "https://news.example.kr/a?x=1&y=<2>", host: "news.example.kr",
                                                    title: "워크숍 <안내> & \"일정\"", description: "설명 <b>", siteName: "",
                                                    imageURL: "/files/3/thumb")))
        pages.append((.linkPreview, LinkPreviewCard(messageId: 9, url: "https://a.example", host: "a.example", title: "T",
                                                    description: "", siteName: "사내 위키", imageURL: nil)))
        pages.append((.linkPreviewRemoval, LinkPreviewRemoval(action: "/w/1/m/9/preview/remove")))
        let repliers = [ThreadReplierView(id: 3, nickname: "김 <K>", avatarURL: nil), ThreadReplierView(id: 4, nickname: "Lee", avatarURL: "/files/2/thumb")]
        pages.append((.threadSummary, ThreadSummaryView(rootId: 5, url: "/w/1/m/5/thread", countTexts: LocalText.every("thread_reply_count", 3),
                                                        lastTexts: LocalText.every("thread_last_reply"),
                                                        lastTimestamp: "2026-11-22T10:00:00Z", lastTimeText: "10:00", repliers: repliers)))
        var channel = group
        (channel.isGroup, channel.isChannel, channel.threadURL) = (false, true, "/w/1/m/-7/thread")
        pages.append((.room, channel))
        for (isPanel, isFollowing, isMember) in [(true, true, true), (false, false, true), (false, false, false)] {
            var thread = channel
            thread.threadURL = nil
            thread.isMember = isMember
            thread.thread = ThreadHeader(rootId: 5, backURL: "/w/1/c/2?around=5#m-5", roomLabel: "#일반 <g>", alsoLabel: "채널에도 보내기",
                                         replyCountText: "답글 3개", followURL: "/w/1/m/5/thread/follow", isFollowing: isFollowing,
                                         isPanel: isPanel)
            pages.append((.room, thread))
        }
        pages += accountPages
        return pages
    }

    /// Two-step sign-in and the administrators' pages, in each of their states.
    static var accountPages: [(TemplateName, Any)] {
        let blank = TwoStepPage(isOn: false, startURL: "/profile/2fa/start", enableURL: "/profile/2fa", disableURL: "/profile/2fa/disable",
                                recoveryURL: "/profile/2fa/recovery")
        var settingUp = blank
        settingUp.qrSvgHtml = #"<svg viewBox="0 0 1 1"><path d="M0 0h1v1H0z"/></svg>"#
        settingUp.secretText = "ABCD EFGH <I>"
        settingUp.isRequired = true
        var on = blank
        on.isOn = true
        on.codesLeftText = "남은 복구 코드: 9개"
        var errors = FieldErrors()
        (errors.code, errors.currentPassword) = ("틀린 코드 <x>", "wrong")
        on.errors = errors
        var codes = on
        codes.recoveryCodes = ["abcde-fghjk", "<mn>-pqrst"]
        let tabs = AdminTabs(accountsURL: "/admin", workspacesURL: "/admin/workspaces", mailURL: "/admin/mail", logURL: "/admin/log",
                             current: "accounts")
        var active = AdminAccountRow(id: 3, email: "a@example.com", nickname: "민아 <M>", profileURL: "/users/3", state: "active",
                                     stateText: "활성", isAdmin: true, twoStep: true, workspaces: 2, createdAt: "t", createdText: "x")
        (active.lastSeen, active.lastSeenText, active.deactivateURL, active.demoteURL) = ("t", "x", "/admin/users/3/deactivate", "/d")
        var gone = AdminAccountRow(id: 4, email: "b@example.com", nickname: "Bob", profileURL: "/users/4", state: "deactivated",
                                   stateText: "비활성", isAdmin: false, twoStep: false, workspaces: 0, createdAt: "t", createdText: "x")
        gone.reactivateURL = "/admin/users/4/reactivate"
        let successors = [PersonOption(id: 5, nickname: "지수 & co", url: "/users/5")]
        return [
            (.twoStep, blank), (.twoStep, settingUp), (.twoStep, on), (.twoStep, codes),
            (.twoStepLogin, TwoStepLoginPage(action: "/login/2fa")),
            (.twoStepLogin, TwoStepLoginPage(action: "/login/2fa", error: "코드 <틀림>", remember: true)),
            (.adminAccounts, AdminAccountsPage(tabs: tabs, query: "민 <q>", searchURL: "/admin", accounts: [active, gone], notice: "n",
                                               error: "e <x>")),
            (.adminAccounts, AdminAccountsPage(tabs: tabs, query: "", searchURL: "/admin", accounts: [])),
            (.adminWorkspaces, AdminWorkspacesPage(tabs: AdminTabs(accountsURL: "/a", workspacesURL: "/w", mailURL: "/m", logURL: "/l",
                                                                   current: "workspaces"),
                                                   workspaces: [AdminWorkspaceRow(id: 1, name: "디자인 <팀>", owner: "Bob <b@x>", ownerDeactivated: true,
                                                                                  sizeText: "멤버 3명", handOverURL: "/admin/workspaces/1/owner",
                                                                                  successors: successors),
                                                                AdminWorkspaceRow(id: 2, name: "Ops", owner: "A", ownerDeactivated: true, sizeText: "s",
                                                                                  handOverURL: "/h", successors: []),
                                                                AdminWorkspaceRow(id: 3, name: "X", owner: "A", ownerDeactivated: false, sizeText: "s",
                                                                                  handOverURL: nil, successors: [])],
                                                   error: "e")),
            (.adminLines, AdminLinesPage(tabs: AdminTabs(accountsURL: "/a", workspacesURL: "/w", mailURL: "/m", logURL: "/l", current: "log"),
                                         heading: "보안 <기록>", intro: "i", lines: [AdminLine(timestamp: "t", timeText: "x", text: "a <b>", detail: "127.0.0.1"),
                                                                                 AdminLine(timestamp: "t", timeText: "x", text: "c", detail: "")],
                                         emptyText: "없음", olderURL: "/admin/log?before=5")),
            (.adminLines, AdminLinesPage(tabs: AdminTabs(accountsURL: "/a", workspacesURL: "/w", mailURL: "/m", logURL: "/l", current: "mail"),
                                         heading: "h", intro: "i", lines: [], emptyText: "없음 <0>")),
        ]
    }

    @Test("every page template, in Korean and English, signed in and out")
    func pagesMatch() throws {
        let renderer = try PageRenderer(source: .files(EmbeddedFiles.files(in: "Templates")))
        var rendered = Set<TemplateName>()
        for lang in Lang.allCases {
            for chrome in Self.chromes(lang) {
                for (template, page) in Self.pages {
                    let ours = renderer.document(template, title: "제목 <t>", page: page, chrome: chrome)
                    let theirs = try referenceDocument(template, title: "제목 <t>", page: page, chrome: chrome)
                    #expect(ours == theirs, "\(template) in \(lang), signed \(chrome.viewer == nil ? "out" : "in")")
                    rendered.insert(template)
                }
            }
        }
        // Every template but the layout's own partial, the sign-up form partial (rendered inside
        // the sign-up and invitation pages) and the message fragment is a page here.
        #expect(Set(TemplateName.allCases).subtracting(rendered) == [.layout, .sidebar, .message, .signupForm, .adminTabs])
        // The embedded layout (a thread's side panel) too.
        for chrome in Self.chromes(.ko) where chrome.viewer != nil {
            var embedded = chrome
            embedded.isEmbedded = true
            let page = Self.pages.first { $0.0 == .room }!.1
            #expect(renderer.document(.room, title: "t", page: page, chrome: embedded)
                    == (try referenceDocument(.room, title: "t", page: page, chrome: embedded)))
        }
    }

    @Test("message fragments, with and without files, photo, edits and controls")
    func messageFragmentsMatch() throws {
        let renderer = try PageRenderer(source: .files(EmbeddedFiles.files(in: "Templates")))
        let reference = try reference(nil)
        var messages = [
            MessageView(id: 12, authorId: 7, author: "김 <K>", timestamp: "2026-11-22T10:00:00Z", timeText: "10:00", isEdited: true,
                        bodyHtml: "<p>안녕 <b>there</b></p>", actionsHtml: "<!--actions-->", attachments: Self.attachments,
                        avatarURL: "/files/p/thumb"),
            MessageView(id: 13, authorId: 8, author: "Lee", timestamp: "t", timeText: "x", isEdited: false, bodyHtml: "", authorURL: "/users/8"),
        ]
        var placeholder = MessageView(id: 14, authorId: 0, author: "Lee", timestamp: "t", timeText: "x", isEdited: true, bodyHtml: "",
                                      actionsHtml: "<!--actions-->")
        (placeholder.isDeleted, placeholder.deletedTexts) = (true, LocalText.every("message_deleted_placeholder"))
        var reply = MessageView(id: 15, authorId: 8, author: "Lee", timestamp: "t", timeText: "x", isEdited: false, bodyHtml: "<p>답</p>")
        (reply.threadURL, reply.replyTexts) = ("/w/1/m/5/thread#m-15", LocalText.every("thread_reply_context"))
        messages += [placeholder, reply]
        for message in messages {
            let ours = renderer.neutralFragment(.message, page: message)
            let theirs = try #require(reference.render(ReferenceNeutral(page: message), withTemplate: "message"))
            #expect(ours == theirs, "message \(message.id)")
        }
    }
}
