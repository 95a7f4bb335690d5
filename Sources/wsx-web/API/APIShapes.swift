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
    let provider: String?
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
