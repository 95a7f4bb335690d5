import ArgumentParser

/// The account an operator command works on: `--email` in `--data-dir` (or `--database`).
struct AccountTarget: ParsableArguments {
    @OptionGroup var storage: StorageOptions
    @Option(help: "Email address of the account.") var email: String
}

/// One account chore by address, done through the same services as `/admin` and told to the
/// server running on the folder, so it takes effect there at once (a deactivated person's open
/// pages are signed out, their event streams closed). Each command says what it changes in
/// `change`, and answers the line it prints.
protocol AccountChangeCommand: AsyncParsableCommand {
    var target: AccountTarget { get }
    func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String
}

extension AccountChangeCommand {
    func run() async throws {
        try await target.storage.withDatabase { opened in
            let administration = AccountAdministration(database: opened.database, clock: .system)
            guard let user = try administration.account(email: target.email) else {
                throw ValidationError("no account has the email \(target.email)")
            }
            do {
                print(try await change(administration, TwoStepService(database: opened.database, clock: .system), user))
            } catch let error as AppError where error.messageKey == "error_last_admin" {
                throw ValidationError("\(user.email) is the only active administrator: make someone else one first (wsx-web user promote)")
            }
            if let told = opened.tellServers() { print("\(told) has it now") }
        }
    }
}

extension UserCommand {
    struct Promote: AccountChangeCommand {
        static let configuration = CommandConfiguration(abstract: "Make an account a server administrator (/admin).")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            guard user.isActive else { throw ValidationError("\(user.email) is deactivated: reactivate it first") }
            try await administration.setAdministrator(userId: user.id!, true, by: nil)
            return "\(user.email) is a server administrator"
        }
    }

    struct Demote: AccountChangeCommand {
        static let configuration = CommandConfiguration(abstract: "Make a server administrator an ordinary account again.")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            try await administration.setAdministrator(userId: user.id!, false, by: nil)
            return "\(user.email) is no longer a server administrator"
        }
    }

    struct Deactivate: AccountChangeCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deactivate an account: it is signed out everywhere at once and cannot sign in; what it wrote stays.")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            try await administration.deactivate(userId: user.id!, by: nil)
            return "\(user.email) is deactivated"
        }
    }

    struct Reactivate: AccountChangeCommand {
        static let configuration = CommandConfiguration(abstract: "Let a deactivated account sign in again.")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            try await administration.reactivate(userId: user.id!, by: nil)
            return "\(user.email) can sign in again"
        }
    }

    struct Confirm: AccountChangeCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count an account's address as confirmed (on a server without mail, the operator vouches for it).")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            try await administration.confirmAddress(userId: user.id!, by: nil)
            return "\(user.email) is confirmed: invitations to it show on its workspaces page"
        }
    }

    struct ResetTwoStep: AccountChangeCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-2fa", abstract: "Turn two-step sign-in off for an account whose phone is lost (it signs in with its password).")
        @OptionGroup var target: AccountTarget

        func change(_ administration: AccountAdministration, _ twoStep: TwoStepService, _ user: User) async throws -> String {
            try await twoStep.disable(userId: user.id!, actor: nil)
            return "two-step sign-in is off for \(user.email); it can be turned on again from the profile"
        }
    }
}
