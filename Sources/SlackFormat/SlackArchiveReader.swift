import Foundation
import ZIPFoundation

/// A Slack export, read from its zip: the JSON files at its root (`users.json`, `channels.json`
/// …), each conversation's day files, and files that export tools put inside it under
/// `__uploads/<file id>/<name>`. Nothing is unpacked to disk: members are read into memory,
/// each within a size limit checked against what is actually inflated (a zip's sizes are only
/// what it claims), and checked against its CRC-32.
public final class SlackArchiveReader {
    /// How much one member may inflate to. Day files are read a message at a time, and each is
    /// one day of one conversation (Slack's own are kilobytes to a few megabytes): 64 MB is far
    /// past any real one and keeps a hostile export's memory small.
    public struct Limits: Sendable {
        public var jsonBytes: Int
        public var dayBytes: Int
        public var fileBytes: Int

        public init(jsonBytes: Int = 256 << 20, dayBytes: Int = 64 << 20, fileBytes: Int = 5 << 20) {
            (self.jsonBytes, self.dayBytes, self.fileBytes) = (jsonBytes, dayBytes, fileBytes)
        }
    }

    private let archive: Archive
    private let limits: Limits
    /// Members by their path below the export's root.
    private let members: [String: Entry]
    /// Day files by conversation folder, sorted by name (so by date).
    private let days: [String: [String]]
    /// The file inside the export for each file id.
    private let uploads: [String: String]

    public init(url: URL, limits: Limits = Limits()) throws {
        self.limits = limits
        do {
            // Slack writes UTF-8 names without always saying so: read every name as UTF-8.
            archive = try Archive(url: url, accessMode: .read, pathEncoding: .utf8)
        } catch {
            throw SlackArchiveError.notAnArchive(url.lastPathComponent)
        }
        var all: [String: Entry] = [:]
        for entry in archive where entry.type == .file {
            all[entry.path] = entry
        }
        // Some exports hold everything in one top folder.
        var root = ""
        if all["users.json"] == nil && all["org_users.json"] == nil {
            let tops = all.keys.filter { $0.hasSuffix("/users.json") || $0.hasSuffix("/org_users.json") }
                .map { String($0[..<$0.lastIndex(of: "/")!]) + "/" }
                .filter { !$0.dropLast().contains("/") }
            if Set(tops).count == 1 { root = tops[0] }
        }
        var members: [String: Entry] = [:]
        for (path, entry) in all where path.hasPrefix(root) {
            members[String(path.dropFirst(root.count))] = entry
        }
        guard members["users.json"] != nil || members["org_users.json"] != nil else {
            throw SlackArchiveError.missing("users.json")
        }
        var days: [String: [String]] = [:], uploads: [String: String] = [:]
        for path in members.keys {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2, parts[1].hasSuffix(".json"), Self.isDayName(parts[1].dropLast(5)) {
                days[String(parts[0]), default: []].append(path)
            } else if parts.count == 3, parts[0] == "__uploads", !parts[1].isEmpty, !parts[2].isEmpty {
                uploads[String(parts[1])] = path
            }
        }
        self.members = members
        self.days = days.mapValues { $0.sorted() }
        self.uploads = uploads
    }

    /// Whether the export has this member (a path below its root).
    public func has(_ path: String) -> Bool { members[path] != nil }

    /// The JSON file at `path` decoded, or nil when the export has no such file.
    public func decode<T: Decodable>(_ path: String, as type: T.Type) throws -> T? {
        guard let data = try bytes(path, limit: limits.jsonBytes) else { return nil }
        do {
            return try SlackJSON.decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw SlackArchiveError.badJSON(path, Self.describe(error))
        } catch {
            throw SlackArchiveError.badJSON(path, "not JSON")
        }
    }

    /// The people: `users.json`, or `org_users.json` in an Enterprise Grid export.
    public func users() throws -> [SlackUser] {
        try decode("users.json", as: [SlackUser].self) ?? decode("org_users.json", as: [SlackUser].self) ?? []
    }

    /// The day files of a conversation's folder, oldest first.
    public func dayFiles(of folder: String) -> [String] { days[folder] ?? [] }

    /// Every message of a conversation, in `ts` order (a message without a readable `ts` is an
    /// error: it cannot be placed or told apart from others).
    public func messages(of folder: String) throws -> [SlackMessage] {
        var all: [(SlackTimestamp, SlackMessage)] = []
        for path in dayFiles(of: folder) {
            for message in try dayMessages(path) {
                guard let stamp = message.timestamp else { throw SlackArchiveError.badJSON(path, "a message's ts \"\(message.ts)\" is not a Slack timestamp") }
                all.append((stamp, message))
            }
        }
        return all.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    }

    /// A day file's messages, decoded one at a time from the array's elements (`JSONArrayElements`),
    /// within `limits.dayBytes`.
    public func dayMessages(_ path: String) throws -> [SlackMessage] {
        guard let data = try bytes(path, limit: limits.dayBytes) else { return [] }
        let ranges: [Range<Int>]
        do {
            ranges = try JSONArrayElements.ranges(in: data)
        } catch {
            throw SlackArchiveError.badJSON(path, "not a JSON list")
        }
        let decoder = SlackJSON.decoder()
        var messages: [SlackMessage] = []
        messages.reserveCapacity(ranges.count)
        for (index, range) in ranges.enumerated() {
            do {
                messages.append(try decoder.decode(SlackMessage.self, from: data.subdata(in: range)))
            } catch let error as DecodingError {
                // Where in the message, as where in the file: `[3].ts: expected text`.
                let detail = Self.describe(error)
                let within = detail == "not JSON" ? ": not JSON" : detail.hasPrefix("the top") ? String(detail.dropFirst(7)) : detail
                throw SlackArchiveError.badJSON(path, "[\(index)]" + within)
            } catch {
                throw SlackArchiveError.badJSON(path, "[\(index)]: not JSON")
            }
        }
        return messages
    }

    /// The bytes of a file the export carries for `fileId` (`__uploads/<id>/<name>`), nil when it
    /// carries none; `tooLarge` past `limits.fileBytes`.
    public func upload(fileId: String) throws -> Data? {
        guard let path = uploads[fileId] else { return nil }
        return try bytes(path, limit: limits.fileBytes)
    }

    /// A member's bytes, inflated, within `limit`; nil when there is no such member.
    public func bytes(_ path: String, limit: Int) throws -> Data? {
        guard let entry = members[path] else { return nil }
        guard entry.uncompressedSize <= UInt64(limit) else { throw SlackArchiveError.tooLarge(path, limit) }
        var data = Data()
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry) { chunk in
                guard data.count + chunk.count <= limit else { throw SlackArchiveError.tooLarge(path, limit) }
                data.append(chunk)
            }
        } catch let error as SlackArchiveError {
            throw error
        } catch {
            throw SlackArchiveError.damaged(path)
        }
        guard checksum == entry.checksum else { throw SlackArchiveError.damaged(path) }
        return data
    }

    private static func isDayName(_ name: Substring) -> Bool {
        name.count == 10 && name.enumerated().allSatisfy { index, character in
            index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
        }
    }

    /// Where in the file and what was wrong, in a line.
    private static func describe(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the top" : path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(place(context.codingPath)): expected \(Self.kind(type))"
        case .valueNotFound(let type, let context): return "\(place(context.codingPath)): expected \(Self.kind(type))"
        case .keyNotFound(let key, let context): return "\(place(context.codingPath)): \(key.stringValue) is missing"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "not what Slack writes"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

/// Why an export cannot be read; says which file and what is wrong with it.
public enum SlackArchiveError: Error, Equatable, CustomStringConvertible {
    case notAnArchive(String)
    case missing(String)
    case badJSON(String, String)
    case tooLarge(String, Int)
    case damaged(String)

    public var description: String {
        switch self {
        case .notAnArchive(let name): "\(name) is not a zip file"
        case .missing(let path): "\(path) is missing: this is not a Slack export (or not its root)"
        case .badJSON(let path, let detail): "\(path): \(detail)"
        case .tooLarge(let path, let limit): "\(path) is larger than \(limit >> 20) MB"
        case .damaged(let path): "\(path) is damaged (it does not inflate to what the zip says)"
        }
    }
}
