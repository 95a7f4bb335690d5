import Crypto
import Foundation

/// The ustar tar format (POSIX.1-1988), as much of it as a backup needs: regular files with
/// short relative names, written as a stream and read back as one.
///
/// Each member is a 512-byte header (name, mode, size, time, checksum) and its bytes padded to a
/// multiple of 512; two zero blocks end the archive. `tar -tvf` lists what we write.
enum TarArchive {
    static let blockSize = 512
    /// Names longer than the header's name field are not needed here, so never written or read.
    static let maximumNameBytes = 99

    enum Failure: Error, CustomStringConvertible {
        case nameTooLong(String)
        case corruptHeader(offset: Int)
        case truncated
        case unsafeName(String)
        case unsupportedMember(String)

        var description: String {
            switch self {
            case .nameTooLong(let name): "the name \(name) is too long for the archive"
            case .corruptHeader(let offset): "the archive is damaged: the header at byte \(offset) does not add up"
            case .truncated: "the archive ends in the middle of a member"
            case .unsafeName(let name): "the archive names a file outside its folder: \(name)"
            case .unsupportedMember(let name): "the archive holds something other than a plain file: \(name)"
            }
        }
    }

    /// The header block of a regular file.
    static func header(name: String, size: Int, mode: Int = 0o600, modified: Date) throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= maximumNameBytes else { throw Failure.nameTooLong(name) }
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) { block.replaceSubrange(offset..<offset + bytes.count, with: bytes) }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            Array(String(value, radix: 8).leftPadded(to: width - 1).utf8) + [0]
        }
        put(nameBytes, at: 0)
        put(octal(mode, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(Int(modified.timeIntervalSince1970), width: 12), at: 136)
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148)
        block[156] = UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0], at: 257)
        put(Array("00".utf8), at: 263)
        let sum = block.reduce(0) { $0 + Int($1) }
        put(Array(String(sum, radix: 8).leftPadded(to: 6).utf8) + [0, UInt8(ascii: " ")], at: 148)
        return block
    }

    /// Zero bytes that bring `size` up to a whole number of blocks.
    static func padding(after size: Int) -> Int {
        (blockSize - size % blockSize) % blockSize
    }

    /// A member's header read back: its name and size, or nil at the end of the archive.
    static func parseHeader(_ block: [UInt8], offset: Int) throws -> (name: String, size: Int)? {
        guard block.count == blockSize else { throw Failure.truncated }
        if block.allSatisfy({ $0 == 0 }) { return nil }
        func field(_ range: Range<Int>) -> String {
            let bytes = block[range].prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        var checked = block
        checked.replaceSubrange(148..<156, with: Array(repeating: UInt8(ascii: " "), count: 8))
        guard let recorded = Int(field(148..<156), radix: 8), recorded == checked.reduce(0, { $0 + Int($1) }),
              let size = Int(field(124..<136), radix: 8), size >= 0 else {
            throw Failure.corruptHeader(offset: offset)
        }
        let name = field(0..<100)
        guard block[156] == UInt8(ascii: "0") || block[156] == 0 else { throw Failure.unsupportedMember(name) }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            throw Failure.unsafeName(name)
        }
        return (name, size)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Writes a tar archive to a file, member by member, keeping each member's SHA-256.
final class TarWriter {
    private let handle: FileHandle
    private let modified: Date

    init(handle: FileHandle, modified: Date) {
        self.handle = handle
        self.modified = modified
    }

    /// Adds `data` as `name`; returns its SHA-256.
    @discardableResult
    func add(_ name: String, data: Data) throws -> String {
        try handle.write(contentsOf: try TarArchive.header(name: name, size: data.count, modified: modified))
        try handle.write(contentsOf: data)
        try handle.write(contentsOf: Data(count: TarArchive.padding(after: data.count)))
        return SHA256.hash(data: data).hexString
    }

    /// Adds the file at `source` as `name`, read in pieces; returns its size and SHA-256.
    func add(_ name: String, file source: URL) throws -> (bytes: Int, sha256: String) {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let size = Int(try input.seekToEnd())
        try input.seek(toOffset: 0)
        try handle.write(contentsOf: try TarArchive.header(name: name, size: size, modified: modified))
        var hasher = SHA256()
        var written = 0
        while written < size, let chunk = try input.read(upToCount: min(1 << 20, size - written)), !chunk.isEmpty {
            hasher.update(data: chunk)
            try handle.write(contentsOf: chunk)
            written += chunk.count
        }
        // The file changed size under us: the archive would not add up.
        guard written == size else { throw TarArchive.Failure.truncated }
        try handle.write(contentsOf: Data(count: TarArchive.padding(after: size)))
        return (size, hasher.finalize().hexString)
    }

    /// The two zero blocks that end an archive.
    func finish() throws {
        try handle.write(contentsOf: Data(count: 2 * TarArchive.blockSize))
    }
}

/// Reads a tar archive member by member, copying each member's bytes to a file.
final class TarReader {
    private let handle: FileHandle
    private var offset = 0

    init(handle: FileHandle) {
        self.handle = handle
    }

    /// The next member's name and size, its bytes copied to `destination(name)` (or kept in
    /// memory when that answers nil); nil at the end.
    func next(into destination: (String) throws -> URL?) throws -> (name: String, bytes: Int, sha256: String, data: Data?)? {
        let block = [UInt8](try read(exactly: TarArchive.blockSize))
        guard let (name, size) = try TarArchive.parseHeader(block, offset: offset - TarArchive.blockSize) else { return nil }
        var hasher = SHA256()
        var kept: Data?
        var output: FileHandle?
        if let url = try destination(name) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            output = try FileHandle(forWritingTo: url)
        } else {
            kept = Data()
        }
        defer { try? output?.close() }
        var left = size
        while left > 0 {
            let chunk = try read(exactly: min(1 << 20, left))
            hasher.update(data: chunk)
            if let output { try output.write(contentsOf: chunk) } else { kept?.append(chunk) }
            left -= chunk.count
        }
        _ = try read(exactly: TarArchive.padding(after: size))
        return (name, size, hasher.finalize().hexString, kept)
    }

    private func read(exactly count: Int) throws -> Data {
        guard count > 0 else { return Data() }
        guard let data = try handle.read(upToCount: count), data.count == count else { throw TarArchive.Failure.truncated }
        offset += count
        return data
    }
}
