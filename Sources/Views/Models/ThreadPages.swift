/// The line under a thread's root: the latest repliers, how many replies, when the last came,
/// all of it a link to the thread. The same for every reader (texts in every language; the
/// script shows the time in the reader's zone), so events carry it as it is.
public struct ThreadSummaryView: Sendable {
    public var rootId: Int64
    public var url: String
    public var countTexts: [LocalText]
    public var lastTexts: [LocalText]
    public var lastTimestamp: String
    public var lastTimeText: String
    public var repliers: [ThreadReplierView]

    public init(rootId: Int64, url: String, countTexts: [LocalText], lastTexts: [LocalText], lastTimestamp: String,
                lastTimeText: String, repliers: [ThreadReplierView]) {
        (self.rootId, self.url, self.countTexts, self.lastTexts) = (rootId, url, countTexts, lastTexts)
        (self.lastTimestamp, self.lastTimeText, self.repliers) = (lastTimestamp, lastTimeText, repliers)
    }
}

/// One of a thread's latest repliers, as a small avatar.
public struct ThreadReplierView: Sendable {
    public var nickname: String
    public var initial: String
    public var tone: Int
    public var avatarURL: String?

    public init(id: Int64, nickname: String, avatarURL: String?) {
        self.nickname = nickname
        self.initial = AvatarFace.initial(nickname)
        self.tone = AvatarFace.tone(id)
        self.avatarURL = avatarURL
    }
}

/// What a room's page becomes when it shows a thread: the way back to the room, the choice to
/// send a reply to the room too, and following.
public struct ThreadHeader: Sendable, Hashable {
    public var rootId: Int64
    /// The room, at the root.
    public var backURL: String
    public var roomLabel: String
    /// "Also send to #general" / "Also send to the conversation".
    public var alsoLabel: String
    public var replyCountText: String
    /// Following: the form that changes it, and which way.
    public var followURL: String
    public var isFollowing: Bool
    /// Shown inside the room page's side panel: no layout around it.
    public var isPanel: Bool

    public init(rootId: Int64, backURL: String, roomLabel: String, alsoLabel: String, replyCountText: String,
                followURL: String, isFollowing: Bool, isPanel: Bool) {
        (self.rootId, self.backURL, self.roomLabel, self.alsoLabel) = (rootId, backURL, roomLabel, alsoLabel)
        (self.replyCountText, self.followURL, self.isFollowing, self.isPanel) = (replyCountText, followURL, isFollowing, isPanel)
    }
}
