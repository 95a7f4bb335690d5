import ArgumentParser
import Foundation

/// `wsx-web coins grant`: operators add coins to an account, recorded in the ledger.
struct CoinsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coins", abstract: "Manage coin balances.",
                                                    subcommands: [Grant.self])

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add coins to an account (recorded in its ledger).")

        @OptionGroup var storage: StorageOptions
        @Option(help: "Email address of the account.") var email: String
        // `.unconditional`: `--amount -1000` is a number, not an unknown option named `-1000`.
        @Option(parsing: .unconditional, help: "Coins to add (a negative number takes coins away, never below zero).") var amount: Int
        @Option(help: "Why, for the ledger.") var reason: String = "grant"

        func run() async throws {
            guard amount != 0 else { throw ValidationError("--amount must not be 0") }
            let key = User.key(forEmail: email.cleanedLine)
            let (amount, reason) = (self.amount, self.reason.cleanedLine)
            do {
                try await storage.withDatabase { opened in
                    let ledger = CoinLedger(outbox: opened.database.outbox)
                    let balance = try await opened.database.write { tx -> Int in
                        guard let user = try tx.accounts.user(emailKey: key) else {
                            throw ValidationError("no account has the email \(key)")
                        }
                        return try ledger.change(tx, userId: user.id!, by: amount, reason: reason, reference: "operator", at: Date())
                    }
                    print("\(email): balance \(balance) coins")
                    // A running server shows the balance on the account's open pages at once.
                    if let told = opened.tellServers() { print("\(told) shows it now") }
                }
            } catch CoinError.insufficient(let balance, _) {
                throw ValidationError("the balance is \(balance): it cannot go below zero")
            }
        }
    }
}
