import Foundation

/// `/v1`'s objects, with the apps' keys exactly (`../shared/APP-API.md` §4). Optional fields are
/// written as `null`, never left out; ids are opaque strings; dates are `APIDates`.

/// **Member**: a person as others see them.
struct APIMember: Encodable, Sendable, Equatable {
    let userId: String
    let email: String
    let nickname: String
    let profileImage: String?

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nickname, profileImage
    }

    init(_ user: User, book: APIIdBook) throws {
        (userId, email, nickname) = (try book.id(.users, user.id!), user.email, user.nickname)
        profileImage = book.path(of: user.avatarFileId, in: .profiles)
    }

    private init(userId: String, email: String, nickname: String) {
        (self.userId, self.email, self.nickname, profileImage) = (userId, email, nickname, nil)
    }

    /// The author of a message whose account was deleted: the apps decode every chat's `user`.
    static let gone = APIMember(userId: "", email: "", nickname: "(알 수 없음)")

    init(_ member: MembershipService.Member, book: APIIdBook) throws {
        (userId, email, nickname) = (try book.id(.users, member.id), member.email, member.nickname)
        profileImage = book.path(of: member.avatarFileId, in: .profiles)
    }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(userId, forKey: .userId)
        try keys.encode(email, forKey: .email)
        try keys.encode(nickname, forKey: .nickname)
        try keys.encode(profileImage, forKey: .profileImage)
    }
}

/// **UserPublic**, and with `sesacCoin` **MyProfile**, with `token` **UserWithToken**: the
/// account itself.
struct APIAccount: Encodable, Sendable {
    let member: APIMember
    let phone: String?
    /// How the account signs in besides its password: `kakao`, `apple`, or null.
    var provider: String?
    let createdAt: Date
    /// Set for MyProfile.
    var coins: Int?
    /// Set for UserWithToken.
    var tokens: AppSessions.Tokens?

    init(_ user: User, book: APIIdBook) throws {
        member = try APIMember(user, book: book)
        (phone, provider, createdAt) = (user.phone, nil, user.createdAt)
    }

    private enum CodingKeys: String, CodingKey {
        case phone, provider, createdAt, sesacCoin, token
    }

    private enum TokenKeys: String, CodingKey {
        case accessToken, refreshToken
    }

    func encode(to encoder: any Encoder) throws {
        try member.encode(to: encoder)
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(phone, forKey: .phone)
        try keys.encode(provider, forKey: .provider)
        try keys.encode(APIDates.string(createdAt), forKey: .createdAt)
        if let coins { try keys.encode(coins, forKey: .sesacCoin) }
        if let tokens {
            var token = keys.nestedContainer(keyedBy: TokenKeys.self, forKey: .token)
            try token.encode(tokens.accessToken, forKey: .accessToken)
            try token.encode(tokens.refreshToken, forKey: .refreshToken)
        }
    }
}

/// **Workspace**, and with its channels and members **WorkspaceDetail** (also the search
/// result's shape).
struct APIWorkspace: Encodable, Sendable {
    let workspaceId: String
    let name: String
    let description: String?
    /// Never null: the apps' list decodes it as a string (`APIStaticPaths.defaultCover`).
    let coverImage: String
    let ownerId: String
    let createdAt: Date
    var channels: [APIChannel]?
    var members: [APIMember]?

    init(_ workspace: Workspace, book: APIIdBook) throws {
        workspaceId = try book.id(.workspaces, workspace.id!)
        (name, description) = (workspace.name, workspace.description.isEmpty ? nil : workspace.description)
        coverImage = book.path(of: workspace.coverFileId, in: .workspaces) ?? APIStaticPaths.defaultCover
        ownerId = try book.id(.users, workspace.ownerId)
        createdAt = workspace.createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case workspaceId = "workspace_id", name, description, coverImage, ownerId = "owner_id", createdAt, channels, workspaceMembers
    }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(workspaceId, forKey: .workspaceId)
        try keys.encode(name, forKey: .name)
        try keys.encode(description, forKey: .description)
        try keys.encode(coverImage, forKey: .coverImage)
        try keys.encode(ownerId, forKey: .ownerId)
        try keys.encode(APIDates.string(createdAt), forKey: .createdAt)
        if let channels { try keys.encode(channels, forKey: .channels) }
        if let members { try keys.encode(members, forKey: .workspaceMembers) }
    }
}

/// **Channel**, and with its members **ChannelDetail**.
struct APIChannel: Encodable, Sendable {
    let channelId: String
    let name: String
    let description: String?
    let coverImage: String?
    let ownerId: String
    let createdAt: Date
    var members: [APIMember]?

    /// `owner` stands in for a channel whose owner's account is gone: the workspace's owner.
    init(_ room: Room, owner: Int64, book: APIIdBook) throws {
        channelId = try book.id(.rooms, room.id!)
        (name, description) = (room.name, room.description.isEmpty ? nil : room.description)
        coverImage = book.path(of: room.coverFileId, in: .channels)
        ownerId = try book.id(.users, room.ownerId ?? owner)
        createdAt = room.createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case channelId = "channel_id", name, description, coverImage, ownerId = "owner_id", createdAt, channelMembers
    }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(channelId, forKey: .channelId)
        try keys.encode(name, forKey: .name)
        try keys.encode(description, forKey: .description)
        try keys.encode(coverImage, forKey: .coverImage)
        try keys.encode(ownerId, forKey: .ownerId)
        try keys.encode(APIDates.string(createdAt), forKey: .createdAt)
        if let members { try keys.encode(members, forKey: .channelMembers) }
    }
}

/// **ChannelChat** (`channel`) or **DMChat** (`dm`): one message of a room's timeline.
struct APIChat: Encodable, Sendable {
    /// Where it was said: a channel (its opaque id and name) or a DM room (its opaque id).
    enum Place: Sendable {
        case channel(id: String, name: String)
        case dm(roomId: String)
    }

    let place: Place
    let chatId: String
    /// The text as written (never null: two apps decode it as a string).
    let content: String
    let createdAt: Date
    let files: [String]
    let user: APIMember

    /// `row` with its author (nil when their account is gone: `APIMember.gone`) as `book` names them.
    init(_ row: MessageRow, author: User?, place: Place, book: APIIdBook) throws {
        self.place = place
        chatId = try book.id(.messages, row.id)
        content = row.body
        createdAt = row.createdAt
        let bucket: APIStaticPaths.Bucket = if case .channel = place { .channelChats } else { .dmChats }
        files = row.attachments.compactMap { book.path(of: $0.id, in: bucket) }
        user = try author.map { try APIMember($0, book: book) } ?? .gone
    }

    private enum CodingKeys: String, CodingKey {
        case channelId = "channel_id", channelName, chatId = "chat_id", dmId = "dm_id", roomId = "room_id"
        case content, createdAt, files, user
    }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        switch place {
        case .channel(let id, let name):
            try keys.encode(id, forKey: .channelId)
            try keys.encode(name, forKey: .channelName)
            try keys.encode(chatId, forKey: .chatId)
        case .dm(let roomId):
            try keys.encode(chatId, forKey: .dmId)
            try keys.encode(roomId, forKey: .roomId)
        }
        try keys.encode(content, forKey: .content)
        try keys.encode(APIDates.string(createdAt), forKey: .createdAt)
        try keys.encode(files, forKey: .files)
        try keys.encode(user, forKey: .user)
    }
}

/// **DMRoom**: a direct conversation with one other person (`user`).
struct APIDMRoom: Encodable, Sendable {
    let roomId: String
    let createdAt: Date
    let user: APIMember

    init(_ room: Room, partner: User, book: APIIdBook) throws {
        (roomId, createdAt, user) = (try book.id(.rooms, room.id!), room.createdAt, try APIMember(partner, book: book))
    }

    private enum CodingKeys: String, CodingKey {
        case roomId = "room_id", createdAt, user
    }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(roomId, forKey: .roomId)
        try keys.encode(APIDates.string(createdAt), forKey: .createdAt)
        try keys.encode(user, forKey: .user)
    }
}
