import Testing
@testable import Views

/// The switch-based lookups must answer for every stored property with that property's value
/// (a property added to a view model but not to its lookup would silently render as empty).
@Suite("Template lookups")
struct ViewModelLookupTests {
    /// The properties whose lookup answers something other than the property's value.
    static func unanswered(_ value: some TemplateContext) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label else { return nil }
            return summary(value.value(forKey: label)) == summary(TemplateValue(reflecting: child.value)) ? nil : label
        }
    }

    /// What a value shows, deep enough to tell two properties apart.
    static func summary(_ value: TemplateValue) -> String {
        switch value {
        case .text(let text): "text(\(text))"
        case .number(let number): "number(\(number))"
        case .flag(let flag): "flag(\(flag))"
        case .list(let items): "list(" + items.map(summary).joined(separator: ",") + ")"
        case .context(let context): "context(\(context))"
        case .missing: "missing"
        }
    }

    @Test("a name a view model does not have is missing, so lookups climb to the enclosing context")
    func unknownNamesAreMissing() {
        #expect(Self.summary(Viewer(id: 1, nickname: "n").value(forKey: "title")) == "missing")
    }

    @Test("every stored property of the looked-up view models is answered")
    func everyPropertyAnswers() {
        let chrome0 = Chrome(lang: .ko, csrfToken: "t", viewer: Viewer(id: 1, nickname: "n"),
                            workspaces: [SidebarWorkspace(id: 1, name: "w", url: "/w/1", isCurrent: true)],
                            rooms: [SidebarRoom(id: 2, name: "r", url: "/r", isCurrent: false, unread: 3, isDM: true, avatarURL: "a",
                                                notify: .mute, hasOwnNotify: true)],
                            currentWorkspaceId: 1, flash: "f", path: "/", lastEventId: 5, cssURL: "c", scriptURLs: ["s"], links: .sample)
        var chrome = chrome0
        chrome.workspace = .sample
        #expect(Self.unanswered(chrome).isEmpty)
        #expect(Self.unanswered(chrome.links).isEmpty)
        #expect(Self.unanswered(chrome.workspace!).isEmpty)
        #expect(Self.unanswered(chrome.viewer!).isEmpty)
        #expect(Self.unanswered(chrome.rooms[0]).isEmpty)
        #expect(Self.unanswered(chrome.workspaces[0]).isEmpty)
        let attachment = AttachmentView(url: "u", thumbnailURL: "t", name: "n", sizeText: "1 KB", isImage: true, kindLabel: "PDF",
                                        width: 1, height: 1)
        #expect(Self.unanswered(attachment).isEmpty)
        let message = MessageView(id: 1, authorId: 2, author: "a", timestamp: "t", timeText: "x", isEdited: true, bodyHtml: "b",
                                  actionsHtml: "h", attachments: [attachment], avatarURL: "v", authorURL: "u")
        #expect(Self.unanswered(message).isEmpty)
        var room = RoomPage(workspaceId: 1, roomId: 2, isChannel: true, title: "t", description: "d", memberCountText: "m",
                            settingsURL: "s", isMember: true, joinURL: "j", messagesHtml: "h", isEmpty: false, olderURL: "o",
                            newerURL: "n", isLatest: true, composerAction: "c", readURL: "r", content: "x", contentError: "e")
        room.coverURL = "c"
        (room.editMessageURL, room.deleteMessageURL, room.messageIdSlot) = ("e", "d", "s")
        room.notifyURL = "n"
        room.notifyChoices = NotifyChoice.forRoom(own: .all, standard: .mentions, strings: Strings(lang: .ko))
        #expect(Self.unanswered(room.notifyChoices[0]).isEmpty)
        #expect(Self.unanswered(room).isEmpty)
        #expect(Self.unanswered(MessageActions(canEdit: true, canDelete: true, editing: false,
                                               body: "b", cancelURL: "c", editURL: "e", saveURL: "s", deleteURL: "d")).isEmpty)
        let link = RoomLink(id: 1, name: "n", url: "u", description: "d", memberCount: 1, joined: true, isDefault: true, unread: 1,
                            lastSnippet: "s", lastTimestamp: "t", lastTimeText: "x")
        #expect(Self.unanswered(link).isEmpty)
        var home = WorkspaceHomePage(id: 1, name: "n", description: "d", isOwner: true, channels: [link], dms: [link])
        home.coverURL = "c"
        #expect(Self.unanswered(home).isEmpty)
        let header = ThreadHeader(rootId: 1, backURL: "b", roomLabel: "r", alsoLabel: "a", replyCountText: "c", followURL: "f",
                                  isFollowing: true, isPanel: true)
        #expect(Self.unanswered(header).isEmpty)
        let replier = ThreadReplierView(id: 1, nickname: "n", avatarURL: "a")
        #expect(Self.unanswered(replier).isEmpty)
        let line = ThreadSummaryView(rootId: 1, url: "u", countTexts: LocalText.every("thread_reply_count", 2),
                                     lastTexts: LocalText.every("thread_last_reply"), lastTimestamp: "t", lastTimeText: "x",
                                     repliers: [replier])
        #expect(Self.unanswered(line).isEmpty)
    }
}
