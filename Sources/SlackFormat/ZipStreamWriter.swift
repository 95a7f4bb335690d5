import Foundation
import ZIPFoundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a zip file front to back (PKWARE's APPNOTE): each member's local header and bytes as
/// it is added, the central directory once, at `finish()`.
///
/// ZIPFoundation's `Archive` writes the whole central directory again after every member it
/// adds, so an export of n day files wrote O(n²) bytes: 10,000 files took 12 s, and a team with
/// a few years of history in many channels has ten times that. Here each member costs its own
/// bytes and one small record kept in memory. Zip64 records are written where a count, a size
/// or an offset does not fit the classic fields (an export may well hold more than 65,535
/// members). Deflating and CRC-32 are ZIPFoundation's (zlib), which also reads these files back.
final class ZipStreamWriter {
    enum Failure: Error {
        case cannotCreate(String, Int32)
        case finished
    }

    /// What the central directory says of one member.
    private struct Member {
        let name: [UInt8]
        let compressed: Bool
        let crc: UInt32
        let compressedSize: UInt64
        let size: UInt64
        let offset: UInt64
    }

    private let handle: FileHandle
    private let dosTime: UInt16
    private let dosDate: UInt16
    private var members: [Member] = []
    private var offset: UInt64 = 0
    /// Bytes not yet written to the file (written in pieces of about a megabyte).
    private var pending = Data()
    private var isFinished = false

    /// Creates the file at `url`, which must not exist, readable by its owner alone; every
    /// member is dated `modified` (UTC).
    init(url: URL, modified: Date) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.cannotCreate(url.path, errno) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: modified)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        dosDate = UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        dosTime = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
    }

    /// Adds a member named `path` (UTF-8) holding `data`, deflated when `compressed`.
    func add(_ path: String, data: Data, compressed: Bool) throws {
        guard !isFinished else { throw Failure.finished }
        // Deflating nothing gives nothing a reader expects: an empty member is stored.
        let compressed = compressed && !data.isEmpty
        var stored = Data()
        let crc: UInt32
        if compressed {
            crc = try Data.compress(size: Int64(data.count), bufferSize: 64 << 10, provider: { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }, consumer: { stored.append($0) })
        } else {
            crc = data.crc32(checksum: 0)
            stored = data
        }
        let member = Member(name: Array(path.utf8), compressed: compressed, crc: crc, compressedSize: UInt64(stored.count),
                            size: UInt64(data.count), offset: offset)
        let wide = member.size >= 0xFFFF_FFFF || member.compressedSize >= 0xFFFF_FFFF
        var header = ZipBytes()
        header.u32(0x0403_4B50)
        header.u16(wide ? 45 : 20)
        header.u16(Self.utf8Names)
        header.u16(compressed ? 8 : 0)
        header.u16(dosTime)
        header.u16(dosDate)
        header.u32(crc)
        header.u32(wide ? 0xFFFF_FFFF : UInt32(member.compressedSize))
        header.u32(wide ? 0xFFFF_FFFF : UInt32(member.size))
        header.u16(UInt16(member.name.count))
        header.u16(wide ? 20 : 0)
        header.bytes(member.name)
        if wide {
            header.u16(0x0001)
            header.u16(16)
            header.u64(member.size)
            header.u64(member.compressedSize)
        }
        try write(header.data)
        try write(stored)
        members.append(member)
    }

    /// Writes the central directory and closes the file; nothing can be added after.
    func finish() throws {
        guard !isFinished else { throw Failure.finished }
        let directoryStart = offset
        for member in members {
            try write(centralRecord(member))
        }
        let directorySize = offset - directoryStart
        let count = UInt64(members.count)
        let needsZip64 = count >= 0xFFFF || directorySize >= 0xFFFF_FFFF || directoryStart >= 0xFFFF_FFFF
        var end = ZipBytes()
        if needsZip64 {
            let recordAt = offset
            end.u32(0x0606_4B50)
            end.u64(44)
            end.u16(Self.madeByUnix)
            end.u16(45)
            end.u32(0)
            end.u32(0)
            end.u64(count)
            end.u64(count)
            end.u64(directorySize)
            end.u64(directoryStart)
            end.u32(0x0706_4B50)
            end.u32(0)
            end.u64(recordAt)
            end.u32(1)
        }
        end.u32(0x0605_4B50)
        end.u16(0)
        end.u16(0)
        end.u16(UInt16(min(count, 0xFFFF)))
        end.u16(UInt16(min(count, 0xFFFF)))
        end.u32(UInt32(min(directorySize, 0xFFFF_FFFF)))
        end.u32(UInt32(min(directoryStart, 0xFFFF_FFFF)))
        end.u16(0)
        try write(end.data)
        try flush()
        try handle.synchronize()
        try handle.close()
        isFinished = true
    }

    /// Bit 11: names are UTF-8.
    private static let utf8Names: UInt16 = 0x0800
    /// Made on Unix (3), by version 4.5 of the specification: external attributes hold the mode.
    private static let madeByUnix: UInt16 = 3 << 8 | 45

    private func centralRecord(_ member: Member) -> Data {
        var extra = ZipBytes()
        if member.size >= 0xFFFF_FFFF { extra.u64(member.size) }
        if member.compressedSize >= 0xFFFF_FFFF { extra.u64(member.compressedSize) }
        if member.offset >= 0xFFFF_FFFF { extra.u64(member.offset) }
        var record = ZipBytes()
        record.u32(0x0201_4B50)
        record.u16(Self.madeByUnix)
        record.u16(extra.data.isEmpty ? 20 : 45)
        record.u16(Self.utf8Names)
        record.u16(member.compressed ? 8 : 0)
        record.u16(dosTime)
        record.u16(dosDate)
        record.u32(member.crc)
        record.u32(UInt32(min(member.compressedSize, 0xFFFF_FFFF)))
        record.u32(UInt32(min(member.size, 0xFFFF_FFFF)))
        record.u16(UInt16(member.name.count))
        record.u16(extra.data.isEmpty ? 0 : UInt16(4 + extra.data.count))
        record.u16(0)
        record.u16(0)
        record.u16(0)
        record.u32(0o100644 << 16)
        record.u32(UInt32(min(member.offset, 0xFFFF_FFFF)))
        record.bytes(member.name)
        if !extra.data.isEmpty {
            record.u16(0x0001)
            record.u16(UInt16(extra.data.count))
            record.bytes(Array(extra.data))
        }
        return record.data
    }

    private func write(_ bytes: Data) throws {
        pending.append(bytes)
        offset += UInt64(bytes.count)
        if pending.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try handle.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }
}

/// Little-endian fields of zip records.
private struct ZipBytes {
    var data = Data()

    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func bytes(_ value: [UInt8]) { data.append(contentsOf: value) }
}
