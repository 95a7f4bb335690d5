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

        @OptionGroup var storage: StorageOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(help: "Nickname shown to others (1-30 characters).") var nickname: String
        @Option(help: "Phone number (optional).") var phone: String = ""
        @Option(help: "Password (at least 8 characters); read from WSX_USER_PASSWORD when omitted.")
        var password: String?

        func run() async throws {
            guard let password = password ?? EnvironmentDefaults().string("WSX_USER_PASSWORD") else {
                throw ValidationError("give --password or set WSX_USER_PASSWORD")
            }
            let form = FormData(fields: [("email", email), ("nickname", nickname), ("phone", phone),
                                         ("password", password), ("password_confirm", password)])
            try await storage.withDatabase { opened in
                do {
                    // The operator vouches for the address: it counts as confirmed.
                    let user = try await OperatorAccounts(database: opened.database).accounts.signUp(SignupInput(form: form), confirmed: true)
                    print("created user \(user.id!) <\(user.email)>\(user.isAdmin ? ", the server's administrator" : "")")
                    // A running server forgets what it kept of accounts.
                    _ = opened.tellServers()
                } catch let problems as FormProblems {
                    let english = problems.messages.map { "\($0.key.rawValue): \(Views.Lang.en.strings[$0.value])" }
                    throw ValidationError(english.sorted().joined(separator: "\n"))
                }
            }
        }
    }

    /// `wsx-web user reset-password`: prints a one-time link, valid for an hour, that lets the
    /// account's owner choose a new password.
    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Print a one-time password reset link (valid 1 hour).")

        @OptionGroup var storage: StorageOptions
        @Option(help: "Email address of the account.") var email: String
        @Option(name: .customLong("base-url"), help: "Public address of the site (env WSX_BASE_URL, default http://localhost:8080).")
        var baseURL: String?

        func run() async throws {
            let token: String
            do {
                token = try await storage.withDatabase { opened in
                    try await OperatorAccounts(database: opened.database).accounts.createPasswordReset(email: email)
                }
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

/// The account service as operator commands use it (default bcrypt cost, system clock).
struct OperatorAccounts {
    let accounts: AccountService

    init(database: AppDatabase) {
        accounts = AccountService(database: database, hasher: PasswordHasher(cost: AppConfig().bcryptCost), clock: .system,
                                  signupCoins: AppConfig().signupCoins)
    }
}
