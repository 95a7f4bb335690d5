import Foundation

/// Dates as `/v1` writes and reads them (`../shared/APP-API.md` §1).
///
/// Out: ISO 8601 in UTC with milliseconds and `Z` (`2024-02-07T09:55:13.303Z`), the only form
/// every app decodes. In (`cursor_date`, `after`): every form the apps send: absent or `""`
/// (from the beginning), `…SSSZ`, `…SSS+0000` (or any offset), with or without the fraction,
/// and `yyyy-MM-dd HH:mm:ss` without a zone, which one app writes in Korean time.
enum APIDates {
    /// `date` as the apps read it.
    static func string(_ date: Date) -> String {
        // To the microsecond first: a time read back as 13.303 may be 13.302999… in binary.
        let milliseconds = ((date.timeIntervalSince1970 * 1_000_000).rounded() / 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: (milliseconds / 1000).rounded(.down))
        let fraction = Int(milliseconds.truncatingRemainder(dividingBy: 1000) + 1000) % 1000
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year!, parts.month!, parts.day!,
                      parts.hour!, parts.minute!, parts.second!, fraction)
    }

    /// What a date parameter says: nil for "from the beginning" (absent or empty).
    /// Throws `APIError.badRequest` for text that is no date.
    static func parameter(_ text: String?) throws -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let date = date(text) else { throw APIError.badRequest }
        return date
    }

    /// The zone of dates written without one: Korean time, as the app that writes them keeps.
    static let zoneOfLocalDates = TimeZone(identifier: "Asia/Seoul")!

    private static func date(_ text: String) -> Date? {
        let scanner = DateText(text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip("T") || scanner.skip(" "),
              let hour = scanner.number(2), scanner.skip(":"), let minute = scanner.number(2), scanner.skip(":"),
              let second = scanner.number(2) else { return nil }
        var milliseconds = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.digits(), !digits.isEmpty else { return nil }
            milliseconds = Double("0." + digits)! * 1000
        }
        var zone = zoneOfLocalDates
        if scanner.skip("Z") || scanner.skip("z") {
            zone = TimeZone(identifier: "UTC")!
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(2) else { return nil }
            _ = scanner.skip(":")
            let minutes = scanner.number(2) ?? 0
            guard let offset = TimeZone(secondsFromGMT: sign * (hours * 3600 + minutes * 60)) else { return nil }
            zone = offset
        }
        guard scanner.atEnd else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard parts.isValidDate(in: calendar), let whole = calendar.date(from: parts) else { return nil }
        return whole.addingTimeInterval(milliseconds / 1000)
    }

    /// A cursor over a date's characters.
    private final class DateText {
        private let characters: [Character]
        private var index = 0

        init(_ text: String) {
            characters = Array(text)
        }

        var atEnd: Bool { index == characters.count }

        func skip(_ character: Character) -> Bool {
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
            return true
        }

        func number(_ count: Int) -> Int? {
            guard index + count <= characters.count else { return nil }
            let slice = characters[index..<index + count]
            guard slice.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(String(slice)) else { return nil }
            index += count
            return value
        }

        func digits() -> String? {
            let start = index
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            return String(characters[start..<index])
        }

        func sign() -> Int? {
            // A `+` a proxy or client decoded as a space in the query.
            if skip("+") || skip(" ") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
