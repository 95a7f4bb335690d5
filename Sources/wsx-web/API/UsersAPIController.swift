import Foundation
import HTTPTypes
import Hummingbird
import Views

/// `/v1`'s accounts (`../shared/APP-API.md` §3.1): sign-up, the email check, sign-in, refresh,
/// the caller's own profile, and another person's.
struct UsersAPIController: Sendable {
    let accounts: AccountService
    let files: FileService
    let appSessions: AppSessions
    let throttle: LoginThrottle
    let signups: SignupLimiter
    let policy: SignupPolicy
    let confirmations: EmailConfirmations
    let social: SocialSignIns
    let appPasswords: AppPasswords
    let apple: AppleIdentity
    let kakao: KakaoIdentity
    let trustProxy: Bool

    func addRoutes(to v1: APIRoutes) {
        v1.post("users/validation/email", use: checkEmail)
        v1.post("users/join", use: join)
        v1.post("users/login", use: login)
        v1.post("users/login/kakao", use: kakaoLogin)
        v1.post("users/login/apple", use: appleLogin)
        v1.get("auth/refresh", use: refresh)
        v1.get("users/me", use: me)
        v1.put("users/me", use: updateMe)
        v1.put("users/me/image", use: updateImage)
        v1.get("users/:user", use: member)
    }

    static var refreshHeader: HTTPField.Name { HTTPField.Name("RefreshToken")! }

    @Sendable func checkEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let email = try await APIFields.read(request).required("email").cleanedLine
        guard AccountRules.isPlausibleEmail(email) else { throw APIError.badRequest }
        guard try await !accounts.isEmailTaken(email) else { throw APIError.duplicate }
        return APIResponse.empty
    }

    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await APIFields.read(request)
        let address = ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy)
        var input = SignupInput(form: FormData(fields: []))
        input.email = (fields["email"] ?? "").cleanedLine
        input.nickname = (fields["nickname"] ?? "").cleanedLine
        input.phone = (fields["phone"] ?? "").cleanedLine
        input.password = (fields["password"] ?? "").nfc
        input.passwordConfirm = input.password
        guard policy.refusal(email: input.email, firstAccount: try !accounts.hasAccounts(), invited: false) == nil else {
            throw APIError.noAccess
        }
        let ticket: AttemptLimiter.Ticket
        switch await signups.begin(address: address) {
        case .wait: throw APIError.tooManyCalls
        case .proceed(let reserved): ticket = reserved
        }
        let user: User
        do {
            user = try await accounts.signUp(input, address: address)
        } catch {
            await signups.end(ticket, created: false)
            throw error
        }
        await signups.end(ticket, created: true)
        try await confirmations.send(to: user, lang: Lang.preferred(byAcceptLanguage: request.headers[.acceptLanguage]) ?? .ko)
        return try await signedIn(user, fields: fields, request: request)
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await APIFields.read(request)
        let email = (fields["email"] ?? "").cleanedLine, account = User.key(forEmail: email)
        let address = ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy)
        let ticket: AttemptLimiter.Ticket
        switch await throttle.begin(account: account, address: address, trustedDevice: false) {
        case .wait: throw APIError.tooManyCalls
        case .proceed(let reserved): ticket = reserved
        }
        // An account with two-step sign-in signs in to the apps (which ask for no code) with one of
        // its app passwords only; any other with its password.
        let found: User?, appPassword: AppPassword?
        do {
            let typed = fields["password"] ?? ""
            let account = try await accounts.user(email: email)
            if let twoStep = account, twoStep.twoStepEnabledAt != nil {
                // As slow as a password's check, so the answer's time says nothing of two-step.
                try await accounts.hasher.verifyAgainstNothing(typed.nfc)
                appPassword = try await appPasswords.match(userId: twoStep.id!, typed: typed)
                found = appPassword == nil ? nil : twoStep
            } else {
                (found, appPassword) = (try await accounts.authenticate(account, password: typed), nil)
            }
        } catch {
            await throttle.end(ticket, account: account, address: address, succeeded: false)
            throw error
        }
        await throttle.end(ticket, account: account, address: address, succeeded: found != nil)
        guard let user = found else {
            try await SecurityLog.record(accounts.database, .signInFailed, address: address, email: email, at: accounts.clock.now())
            throw APIError.unknownAccount
        }
        guard user.isActive else {
            try await SecurityLog.record(accounts.database, .signInRefused, target: user.id, address: address, email: user.email,
                                         detail: "deactivated", at: accounts.clock.now())
            throw APIError.unknownAccount
        }
        return try await signedIn(user, fields: fields, request: request, appPassword: appPassword?.id)
    }

    /// `{oauthToken, deviceToken}`: the person Kakao says the token is theirs (`KakaoIdentity`);
    /// `E03` for a token Kakao does not know, or while Kakao sign-in is off.
    @Sendable func kakaoLogin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await APIFields.read(request)
        guard let person = await kakao.person(oauthToken: try fields.required("oauthToken")) else { throw APIError.unknownAccount }
        let user = try await social.account(.kakao, subject: person.subject, email: person.email, nickname: person.nickname,
                                            address: ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy))
        return try await signedIn(user, fields: fields, request: request)
    }

    /// `{idToken, nickname?, deviceToken?}`: the person Apple's signed token names
    /// (`AppleIdentity`); `E03` for a token that is not one, or while Apple sign-in is off.
    /// `nickname` is the name Apple gives the app at the first sign-in only.
    @Sendable func appleLogin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await APIFields.read(request)
        guard let person = await apple.person(idToken: try fields.required("idToken")) else { throw APIError.unknownAccount }
        let user = try await social.account(.apple, subject: person.subject, email: person.email, nickname: fields["nickname"],
                                            address: ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy))
        return try await signedIn(user, fields: fields, request: request)
    }

    @Sendable func refresh(_ request: Request, context: AppRequestContext) async throws -> Response {
        let access = try await appSessions.refresh(refreshToken: request.headers[Self.refreshHeader])
        return APIResponse.json(["accessToken": access] as [String: String])
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, _) = try await appSessions.account(authorization: request.headers[.authorization])
        var account = try await self.account(caller)
        account.coins = caller.coinBalance
        return APIResponse.json(account)
    }

    @Sendable func updateMe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, _) = try await appSessions.account(authorization: request.headers[.authorization])
        let fields = try await APIFields.read(request)
        let updated = try await accounts.updateProfile(userId: caller.id!, nickname: fields["nickname"] ?? caller.nickname,
                                                       phone: fields["phone"] ?? caller.phone ?? "")
        return APIResponse.json(try await account(updated))
    }

    /// The caller's profile photo (multipart `image`, one picture, as the web's profile form
    /// takes it); answers the account. None, more than one, or a file that is no picture is `E11`.
    @Sendable func updateImage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, _) = try await appSessions.account(authorization: request.headers[.authorization])
        let form = try await APIForm.read(request, files: files, uploader: caller.id!, fileFields: ["image"])
        guard let picture = try await form.picture(files) else { throw APIError.badRequest }
        let updated = try await accounts.updateProfile(userId: caller.id!, nickname: caller.nickname, phone: caller.phone ?? "",
                                                       picture: picture)
        // The photo it replaced goes unless something else holds it.
        _ = try await files.collectGarbage()
        return APIResponse.json(try await account(updated))
    }

    /// Another person, as a Member: only one the caller shares a workspace with (or
    /// themselves); anyone else is as unknown as an id that names no one (`E03`).
    @Sendable func member(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, _) = try await appSessions.account(authorization: request.headers[.authorization])
        let publicId = try context.parameters.require("user")
        let found = try await accounts.database.queryOffLoop { tx -> APIMember? in
            guard let id = try tx.publicIds.id(of: publicId, in: .users), let user = try tx.accounts.user(id: id) else { return nil }
            guard try id == caller.id || !tx.workspaces.sharedWorkspaces(of: caller.id!, with: id).isEmpty else { return nil }
            var wanted = APIIdBook.Wanted()
            wanted.add(user)
            return try APIMember(user, book: APIIdBook.load(tx, wanted))
        }
        guard let found else { throw APIError.unknownAccount }
        return APIResponse.json(found)
    }

    /// Signs `user` in from an app and answers UserWithToken.
    private func signedIn(_ user: User, fields: APIFields, request: Request, appPassword: Int64? = nil) async throws -> Response {
        let tokens = try await appSessions.signIn(userId: user.id!, deviceToken: fields["deviceToken"],
                                                  client: request.headers[.userAgent], appPassword: appPassword)
        var account = try await self.account(user)
        account.tokens = tokens
        return APIResponse.json(account)
    }

    /// `user` as the apps see their own account.
    private func account(_ user: User) async throws -> APIAccount {
        try await accounts.database.queryOffLoop { tx in
            var wanted = APIIdBook.Wanted()
            wanted.add(user)
            var account = try APIAccount(user, book: APIIdBook.load(tx, wanted))
            account.provider = try tx.socialLogins.providers(userIds: [user.id!])[user.id!]
            return account
        }
    }
}
