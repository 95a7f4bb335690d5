import HTTPTypes
import Hummingbird

extension Request {
    /// A person opening the page: a GET that is not a prefetch. Only such a view may keep the
    /// bookkeeping no one else sees (the last room viewed); no GET, HEAD or prefetch moves read
    /// marks or publishes events (reading is recorded by a POST, `…/read`).
    ///
    /// A prefetch says so in `Sec-Purpose: prefetch` (speculation rules, `<link rel=prefetch>`),
    /// the older `Purpose: prefetch` or Firefox's `X-Moz: prefetch`.
    var isPersonViewing: Bool {
        guard method == .get else { return false }
        return !Self.purposeFields.contains { headers[$0]?.lowercased().contains("prefetch") == true }
    }

    /// Made once: every room page asks.
    private static let purposeFields = ["Sec-Purpose", "Purpose", "X-Moz"].compactMap { HTTPField.Name($0) }
}
