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

    init(_ user: User, publicId: String) {
        (userId, email, nickname, profileImage) = (publicId, user.email, user.nickname, nil)
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

    init(_ user: User, publicId: String) {
        member = APIMember(user, publicId: publicId)
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
