import Foundation

/// What libmagic cannot tell from a file's first bytes, read from the file's own structure:
///
/// - a zip's `mimetype` member (HWPX's `application/hwp+zip`, ODF's types) or, failing that,
///   its `[Content_Types].xml` and folders (OOXML: `word/` DOCX, `xl/` XLSX, `ppt/` PPTX), whose
///   other members may come first, where libmagic answers `application/zip` or
///   `application/octet-stream`;
/// - a QuickTime movie whose video is H.264 (what iPhones record): browsers play it as
///   `video/mp4`, so it is kept as that and plays inline; anything else (HEVC) stays
///   `video/quicktime` and downloads.
///
/// Reads at most the zip's central directory (the end of the file) and one small member, or a
/// movie's `moov` box: bounded, whatever the file's size.
public enum ContainerTypes {
    /// The type `sniffed` really is, for the file at `url`.
    public static func refine(_ sniffed: String, fileAt url: URL) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return sniffed }
        defer { try? handle.close() }
        switch sniffed {
        case "application/zip", "application/octet-stream":
            guard let magic = try? handle.read(upToCount: 4), magic == Data([0x50, 0x4B, 0x03, 0x04]) else { return sniffed }
            return ZipDirectory(handle).flatMap(officeType) ?? sniffed
        case "video/quicktime":
            return QuickTime.videoCodecs(handle).contains("avc1") ? "video/mp4" : sniffed
        default:
            return sniffed
        }
    }

    /// An office document's type from its zip's members.
    static func officeType(_ zip: ZipDirectory) -> String? {
        if let declared = zip.storedText("mimetype", limit: 200)?.trimmingCharacters(in: .whitespacesAndNewlines),
           declared == "application/hwp+zip" || declared.hasPrefix("application/vnd.oasis.opendocument.") {
            return declared
        }
        guard zip.names.contains("[Content_Types].xml") else { return nil }
        let folders = [("word/", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
                       ("xl/", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
                       ("ppt/", "application/vnd.openxmlformats-officedocument.presentationml.presentation")]
        return folders.first { folder in zip.names.contains { $0.hasPrefix(folder.0) } }?.1
    }
}

/// The member names of a zip, from its central directory, and the bytes of stored (not
/// compressed) members.
struct ZipDirectory {
    let names: Set<String>
    private let entries: [String: (offset: UInt64, size: UInt64, method: UInt16)]
    private let handle: FileHandle

    /// Nil when the file has no readable end-of-central-directory record.
    init?(_ handle: FileHandle) {
        self.handle = handle
        guard let end = try? handle.seekToEnd(), end >= 22 else { return nil }
        let tailLength = min(end, 65_557)
        try? handle.seek(toOffset: end - tailLength)
        guard let tail = try? handle.read(upToCount: Int(tailLength)), tail.count >= 22 else { return nil }
        let bytes = [UInt8](tail)
        guard let record = stride(from: bytes.count - 22, through: 0, by: -1).first(where: {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x05 && bytes[$0 + 3] == 0x06
        }) else { return nil }
        let count = Int(Self.u16(bytes, record + 10))
        let directorySize = UInt64(Self.u32(bytes, record + 12))
        let directoryOffset = UInt64(Self.u32(bytes, record + 16))
        guard count <= 100_000, directorySize <= 16 << 20, directoryOffset + directorySize <= end else { return nil }
        try? handle.seek(toOffset: directoryOffset)
        guard let directory = try? handle.read(upToCount: Int(directorySize)).map([UInt8].init) else { return nil }
        var entries: [String: (UInt64, UInt64, UInt16)] = [:]
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, Self.u32(directory, at) == 0x0201_4B50 else { break }
            let method = Self.u16(directory, at + 10)
            let size = UInt64(Self.u32(directory, at + 20))
            let nameLength = Int(Self.u16(directory, at + 28))
            let extraLength = Int(Self.u16(directory, at + 30)), commentLength = Int(Self.u16(directory, at + 32))
            let offset = UInt64(Self.u32(directory, at + 42))
            guard at + 46 + nameLength <= directory.count else { break }
            let name = String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            entries[name] = (offset, size, method)
            at += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
        names = Set(entries.keys)
    }

    /// The text of a stored member of at most `limit` bytes.
    func storedText(_ name: String, limit: Int) -> String? {
        guard let entry = entries[name], entry.method == 0, entry.size <= UInt64(limit) else { return nil }
        try? handle.seek(toOffset: entry.offset)
        guard let header = try? handle.read(upToCount: 30).map([UInt8].init), header.count == 30,
              Self.u32(header, 0) == 0x0403_4B50 else { return nil }
        let skip = UInt64(Self.u16(header, 26)) + UInt64(Self.u16(header, 28))
        try? handle.seek(toOffset: entry.offset + 30 + skip)
        guard let data = try? handle.read(upToCount: Int(entry.size)) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}

/// The boxes (atoms) of a QuickTime or MP4 file, as far as the video codecs of its tracks.
enum QuickTime {
    /// The sample entry formats (`avc1`, `hvc1`, …) of the `moov` box's tracks.
    static func videoCodecs(_ handle: FileHandle) -> Set<String> {
        guard let end = try? handle.seekToEnd() else { return [] }
        var offset: UInt64 = 0
        // The top-level boxes, to the `moov` (at the start or, as phones write it, the end).
        while offset + 8 <= end {
            try? handle.seek(toOffset: offset)
            guard let header = try? handle.read(upToCount: 16).map([UInt8].init), header.count >= 8 else { return [] }
            var size = UInt64(bigEndian(header, 0)), headerLength: UInt64 = 8
            if size == 1, header.count == 16 {
                size = UInt64(bigEndian(header, 8)) << 32 | UInt64(bigEndian(header, 12))
                headerLength = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= headerLength else { return [] }
            if String(decoding: header[4..<8], as: UTF8.self) == "moov" {
                guard size <= 64 << 20 else { return [] }
                try? handle.seek(toOffset: offset + headerLength)
                guard let body = try? handle.read(upToCount: Int(size - headerLength)).map([UInt8].init) else { return [] }
                var codecs: Set<String> = []
                collect(body, path: ["trak", "mdia", "minf", "stbl", "stsd"], into: &codecs)
                return codecs
            }
            offset += size
        }
        return []
    }

    /// Walks `path` down from `bytes` (a box's contents) and adds the formats of `stsd`'s entries.
    private static func collect(_ bytes: [UInt8], path: ArraySlice<String>, into codecs: inout Set<String>) {
        guard let wanted = path.first else {
            // stsd: version and flags (4), entry count (4), then entries: size (4), format (4), …
            var at = 8
            while at + 8 <= bytes.count {
                let size = Int(bigEndian(bytes, at))
                codecs.insert(String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self))
                guard size >= 8 else { break }
                at += size
            }
            return
        }
        var at = 0
        while at + 8 <= bytes.count {
            let size = Int(bigEndian(bytes, at))
            guard size >= 8, at + size <= bytes.count else { break }
            if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == wanted {
                collect(Array(bytes[(at + 8)..<(at + size)]), path: path.dropFirst(), into: &codecs)
            }
            at += size
        }
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
