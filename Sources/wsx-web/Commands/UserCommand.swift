import ArgumentParser
import Foundation
import Views

/// `wsx-web user …`: account chores for operators.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage accounts.",
        subcommands: [Create.self, ResetPassword.self, Promote.self, Demote.self, Deactivate.self, Reactivate.self, ResetTwoStep.self,
                      Confirm.self])

    /// `wsx-web user create`: makes an account, with the same rules as the sign-up form.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account.")

        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "Nickname shown to others (1-30 characters).") var nickname: String
        @Option(help: "Phone number (optional).") var phone: String = ""
        @Option(help: "Password (at least 8 characters); read from WSX_USER_PASSWORD when omitted.")
        var password: String?

        func run() async throws {
            guard let password = password ?? EnvironmentDefaults().string("WSX_USER_PASSWORD") else {
                throw ValidationError("give --password or set WSX_USER_PASSWORD")
            }
            let accounts = try OperatorAccounts(dataDirectory: data.resolved).accounts
            let form = FormData(fields: [("email", email), ("nickname", nickname), ("phone", phone),
                                         ("password", password), ("password_confirm", password)])
            do {
                // The operator vouches for the address: it counts as confirmed.
                let user = try await accounts.signUp(SignupInput(form: form), confirmed: true)
                print("created user \(user.id!) <\(user.email)>\(user.isAdmin ? ", the server's administrator" : "")")
                // A server running on the folder forgets what it kept of accounts.
                _ = OutsideWrites.tell(dataDirectory: data.resolved)
            } catch let problems as FormProblems {
                let english = problems.messages.map { "\($0.key.rawValue): \(Views.Lang.en.strings[$0.value])" }
                throw ValidationError(english.sorted().joined(separator: "\n"))
            }
        }
    }

    /// `wsx-web user reset-password`: prints a one-time link, valid for an hour, that lets the
    /// account's owner choose a new password.
    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Print a one-time password reset link (valid 1 hour).")

        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String
        @Option(name: .customLong("base-url"), help: "Public address of the site (env WSX_BASE_URL, default http://localhost:8080).")
        var baseURL: String?

        func run() async throws {
            let accounts = try OperatorAccounts(dataDirectory: data.resolved).accounts
            let token: String
            do {
                token = try await accounts.createPasswordReset(email: email)
            } catch AccountError.noSuchUser {
                throw ValidationError("no account has the email \(email)")
            } catch AccountError.deactivated {
                throw ValidationError("\(email) is deactivated: reactivate it first (wsx-web user reactivate --email \(email))")
            }
            var base = baseURL ?? EnvironmentDefaults().string("WSX_BASE_URL") ?? "http://localhost:8080"
            while base.hasSuffix("/") { base.removeLast() }
            print("\(base)/reset/\(token)")
            print("This link works once, for 1 hour.")
        }
    }
}

/// One account chore by address, done through the same service as `/admin` and told to the
/// server running on the folder, so it takes effect there at once (a deactivated person's open
/// pages are signed out, their event streams closed).
struct AccountChange {
    let data: DataDirectoryOption
    let email: String

    func run(_ change: (AccountAdministration, TwoStepService, User) async throws -> String) async throws {
        let database = try AppDatabase.open(dataDirectory: data.resolved, events: .runningServer)
        let administration = AccountAdministration(database: database, clock: .system)
        guard let user = try administration.account(email: email) else { throw ValidationError("no account has the email \(email)") }
        do {
            print(try await change(administration, TwoStepService(database: database, clock: .system), user))
        } catch let error as AppError where error.messageKey == "error_last_admin" {
            throw ValidationError("\(user.email) is the only active administrator: make someone else one first (wsx-web user promote)")
        }
        if OutsideWrites.tell(dataDirectory: data.resolved) { print("the server running on \(data.resolved) has it now") }
    }
}

extension UserCommand {
    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an account a server administrator (/admin).")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { administration, _, user in
                guard user.isActive else { throw ValidationError("\(user.email) is deactivated: reactivate it first") }
                try await administration.setAdministrator(userId: user.id!, true, by: nil)
                return "\(user.email) is a server administrator"
            }
        }
    }

    struct Demote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a server administrator an ordinary account again.")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { administration, _, user in
                try await administration.setAdministrator(userId: user.id!, false, by: nil)
                return "\(user.email) is no longer a server administrator"
            }
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deactivate an account: it is signed out everywhere at once and cannot sign in; what it wrote stays.")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { administration, _, user in
                try await administration.deactivate(userId: user.id!, by: nil)
                return "\(user.email) is deactivated"
            }
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a deactivated account sign in again.")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { administration, _, user in
                try await administration.reactivate(userId: user.id!, by: nil)
                return "\(user.email) can sign in again"
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count an account's address as confirmed (on a server without mail, the operator vouches for it).")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { administration, _, user in
                try await administration.confirmAddress(userId: user.id!, by: nil)
                return "\(user.email) is confirmed: invitations to it show on its workspaces page"
            }
        }
    }

    struct ResetTwoStep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-2fa", abstract: "Turn two-step sign-in off for an account whose phone is lost (it signs in with its password).")
        @OptionGroup var data: DataDirectoryOption
        @Option(help: "Email address of the account.") var email: String

        func run() async throws {
            try await AccountChange(data: data, email: email).run { _, twoStep, user in
                try await twoStep.disable(userId: user.id!, actor: nil)
                return "two-step sign-in is off for \(user.email); it can be turned on again from the profile"
            }
        }
    }
}

/// The account service as operator commands use it (default bcrypt cost, system clock).
struct OperatorAccounts {
    let accounts: AccountService

    init(dataDirectory: String) throws {
        let database = try AppDatabase.open(dataDirectory: dataDirectory, events: .runningServer)
        accounts = AccountService(database: database, hasher: PasswordHasher(cost: AppConfig().bcryptCost), clock: .system,
                                  signupCoins: AppConfig().signupCoins)
    }
}
