import Foundation

/// Reads `WSX_*` environment variables, the fallback of every command-line option.
struct EnvironmentDefaults {
    var values: [String: String] = ProcessInfo.processInfo.environment

    func string(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let number = Int(text) else { throw EnvironmentError(name: name, value: text, expected: "a whole number") }
        return number
    }

    /// `1`, `true`, `yes`, `on` are true; `0`, `false`, `no`, `off` false.
    func bool(_ name: String) throws -> Bool? {
        guard let text = string(name)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw EnvironmentError(name: name, value: text, expected: "true or false")
        }
    }
}

struct EnvironmentError: Error, CustomStringConvertible {
    let name: String
    let value: String
    let expected: String

    var description: String { "\(name)=\(value) is not \(expected)" }
}
