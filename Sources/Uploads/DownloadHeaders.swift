import Foundation

/// The headers a stored file is served with.
public enum DownloadHeaders {
    /// `attachment` (or `inline`) with an ASCII fallback name and the real name per RFC 6266 /
    /// RFC 5987 (`filename*=UTF-8''…`), so `회의록.pdf` downloads as `회의록.pdf`.
    public static func contentDisposition(_ name: String, inline: Bool) -> String {
        let fallback = String(name.unicodeScalars.map { scalar -> Character in
            let value = scalar.value
            if value < 0x20 || value >= 0x7F || scalar == "\"" || scalar == "\\" || scalar == "%" { return "_" }
            return Character(scalar)
        })
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "\(inline ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }

    /// What a `Range` header asks for.
    public enum RangeRequest: Equatable, Sendable {
        /// No range, or one we serve whole (several ranges).
        case whole
        case partial(ClosedRange<Int>)
        /// A range outside the file: 416.
        case unsatisfiable
    }

    /// Reads a single `bytes=` range within `size`.
    public static func range(_ header: String?, size: Int) -> RangeRequest {
        guard let header, header.hasPrefix("bytes="), size > 0 else { return .whole }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int(parts[0]), start < size else { return .unsatisfiable }
        let end = parts[1].isEmpty ? size - 1 : min(Int(parts[1]) ?? -1, size - 1)
        guard end >= start else { return .unsatisfiable }
        return .partial(start...end)
    }
}
