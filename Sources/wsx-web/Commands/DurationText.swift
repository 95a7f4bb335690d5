import Foundation

/// Durations as operators type them: `7d`, `36h`, `90m`, `600s` or plain seconds.
enum DurationText {
    static func seconds(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: TimeInterval] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        if let unit = trimmed.last, let scale = units[unit] {
            return Double(trimmed.dropLast()).map { $0 * scale }
        }
        return Double(trimmed)
    }
}
