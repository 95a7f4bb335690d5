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

/// Sizes as operators type them: `5MB`, `500KB`, `1GB` (binary units) or plain bytes.
enum ByteSizeText {
    static func bytes(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        for (suffix, scale) in [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)] where trimmed.hasSuffix(suffix) {
            return Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)).map { Int($0 * Double(scale)) }
        }
        return Int(trimmed)
    }
}
