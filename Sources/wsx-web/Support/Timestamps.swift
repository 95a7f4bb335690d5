import Foundation

/// Times as pages carry them: ISO 8601 UTC in `<time datetime>`, a UTC text the page's script
/// replaces with the reader's local time, and the UTC day of day separators.
///
/// Computed with civil-from-days arithmetic: a `DateFormatter` or `Calendar` per message showed
/// in profiles of posting and of the channel page.
enum Timestamps {
    /// `2026-11-22T07:05:09Z`, as `Date.formatted(.iso8601)` writes it.
    static func iso(_ date: Date) -> String {
        let parts = UTCParts(date)
        return "\(parts.day)T\(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2))Z"
    }

    /// `2026-11-22 07:05 UTC`.
    static func utcText(_ date: Date) -> String {
        let parts = UTCParts(date)
        return "\(parts.day) \(padded(parts.hour, 2)):\(padded(parts.minute, 2)) UTC"
    }

    /// `2026-11-22 07:05:09.123`: how GRDB stores a `Date` (UTC, to the nearest millisecond), for
    /// inserts on the writer's turn, where GRDB's own `DateFormatter` showed in profiles of posting.
    static func database(_ date: Date) -> String {
        // Whole milliseconds first, rounded as GRDB's formatter rounds them: halves up, also before 1970.
        let milliseconds = Int((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        let fraction = milliseconds - Int((Double(milliseconds) / 1000).rounded(.down)) * 1000
        let parts = UTCParts(Date(timeIntervalSince1970: Double(milliseconds - fraction) / 1000))
        return "\(parts.day) \(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2)).\(padded(fraction, 3))"
    }

    /// `date` as it reads back once stored (`database`): to the nearest millisecond.
    static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down) / 1000)
    }

    /// `2026-11-22`.
    static func utcDay(_ date: Date) -> String {
        UTCParts(date).day
    }

    /// Which UTC day `date` falls on, as days since 1970-01-01: the same number for the same
    /// `utcDay`, found without writing the day out (a list writes it only where it changes).
    static func dayNumber(_ date: Date) -> Int {
        UTCParts.split(date).days
    }

    private struct UTCParts {
        let day: String
        let hour: Int, minute: Int, second: Int

        /// Whole days since the epoch and the seconds into the last of them.
        static func split(_ date: Date) -> (days: Int, inDay: Int) {
            let seconds = Int(date.timeIntervalSince1970.rounded(.down))
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            return (days, seconds - days * 86_400)
        }

        init(_ date: Date) {
            let (days, inDay) = Self.split(date)
            (hour, minute, second) = (inDay / 3600, inDay % 3600 / 60, inDay % 60)
            // civil_from_days, from Howard Hinnant's date algorithms.
            let shifted = days + 719_468
            let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            day = "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))"
        }
    }
}

private func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
