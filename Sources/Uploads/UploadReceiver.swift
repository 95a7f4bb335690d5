import Crypto
import Foundation
import NIOCore

/// A file received from a form, written to a temporary file while it streamed in.
public struct ReceivedFile: Sendable {
    /// The form field it came in (`files`, `image`).
    public let field: String
    /// The client's file name, cleaned for display and downloads (never a path).
    public let name: String
    public let temporaryURL: URL
    public let size: Int
    public let sha256: String
    /// What libmagic says the bytes are.
    public let mimeType: String
    public let kind: UploadPolicy.Kind
}

/// The fields and files of a multipart form.
public struct ReceivedForm: Sendable {
    public var fields: [(name: String, value: String)] = []
    public var files: [ReceivedFile] = []

    public init(fields: [(name: String, value: String)] = [], files: [ReceivedFile] = []) {
        self.fields = fields
        self.files = files
    }

    public subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Deletes the temporary files (after a refusal, or once they were adopted or copied).
    public func discardTemporaries() {
        for file in files { try? FileManager.default.removeItem(at: file.temporaryURL) }
    }
}

/// Why an upload was refused. Nothing it wrote is left behind.
public enum UploadError: Error, Equatable, Sendable {
    /// A file was larger than allowed (the limit in bytes).
    case fileTooLarge(limit: Int)
    /// A text field of the form was longer than allowed (its name, the limit in bytes).
    case fieldTooLarge(field: String, limit: Int)
    /// The whole body was larger than any acceptable form, counted over every byte whatever
    /// the framing, including bytes after the closing boundary (the limit in bytes).
    case requestTooLarge(limit: Int)
    case tooManyFiles(limit: Int)
    /// The bytes are not a type wsx accepts (what libmagic said).
    case unsupportedType(String)
    /// The CSRF token was missing or wrong; nothing was read past it.
    case forbidden
    /// The body is not valid multipart.
    case malformed
}

/// Streams a `multipart/form-data` request body to disk: text fields are collected (bounded),
/// each file goes to a temporary file while being hashed and counted, never held in memory, and
/// is typed by its first bytes. Any refusal (size, count, type, CSRF, a broken-off body)
/// removes every temporary file it made.
public struct UploadReceiver: Sendable {
    public let policy: UploadPolicy
    public let store: FileStore
    public let sniffer: ContentSniffer
    /// After a refusal for size, up to this many more bytes are read and dropped, so the browser
    /// gets our 413 page rather than a reset connection.
    public static let drainAllowance = 8 * 1024 * 1024
    public var drainLimit = drainAllowance

    public init(policy: UploadPolicy, store: FileStore, sniffer: ContentSniffer) {
        self.policy = policy
        self.store = store
        self.sniffer = sniffer
    }

    /// Takes bytes the server fetched itself (a link preview's image) or read from an archive (a
    /// Slack export's files) as if they were uploaded: typed by libmagic, refused unless an
    /// allowed type (of `kind`, when given), within the file size limit, written to a temporary
    /// file for `FileService.prepare` like any upload.
    public func receive(bytes: [UInt8], name: String, field: String, kind wanted: UploadPolicy.Kind?) throws -> ReceivedFile {
        guard bytes.count <= policy.maximumFileBytes else { throw UploadError.fileTooLarge(limit: policy.maximumFileBytes) }
        let url = store.temporaryFile()
        try Data(bytes).write(to: url)
        let sniffed = bytes.isEmpty ? "application/x-empty" : sniffer.mimeType(of: bytes.prefix(ContentSniffer.sniffLength))
        let mime = ContainerTypes.refine(sniffed, fileAt: url)
        guard let kind = UploadPolicy.allowedTypes[mime], wanted == nil || kind == wanted else {
            try? FileManager.default.removeItem(at: url)
            throw UploadError.unsupportedType(mime)
        }
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        return ReceivedFile(field: field, name: FileName.clean(name), temporaryURL: url, size: bytes.count, sha256: digest,
                            mimeType: mime, kind: kind)
    }

    /// Reads the whole body. `fileFields` are the fields that may carry files; `authorize` gets
    /// the `_csrf` field's value (nil when absent) before anything but that field is kept.
    public func receive<Body: AsyncSequence>(_ body: Body, boundary: String, fileFields: Set<String>,
                                             authorize: (String?) -> Bool) async throws -> ReceivedForm
    where Body.Element == ByteBuffer {
        var parser = MultipartParser(boundary: boundary, maximumParts: policy.maximumFiles + 16)
        var form = ReceivedForm()
        var current: Part?
        var authorized = false
        var received = 0
        var iterator = body.makeAsyncIterator()
        do {
            while let chunk = try await iterator.next() {
                // Every byte counts, whatever the framing: chunked bodies have no length to
                // refuse up front, and bytes after the closing boundary are still bytes.
                received += chunk.readableBytes
                if received > policy.maximumRequestBytes { throw UploadError.requestTooLarge(limit: policy.maximumRequestBytes) }
                for event in try parse(&parser, chunk) {
                    switch event {
                    case .headers(let headers):
                        let (name, filename) = MultipartParser.disposition(headers)
                        let fieldName = name ?? ""
                        if !authorized, fieldName != "_csrf" {
                            guard authorize(form["_csrf"]) else { throw UploadError.forbidden }
                            authorized = true
                        }
                        if let filename, fileFields.contains(fieldName) {
                            current = .file(try FileSink(field: fieldName, name: filename, store: store))
                        } else {
                            current = .field(fieldName, [])
                        }
                    case .body(let slice):
                        try current?.append(slice, policy: policy)
                    case .partEnd:
                        switch current {
                        case .field(let name, let bytes)?:
                            form.fields.append((name, String(decoding: bytes, as: UTF8.self)))
                        case .file(let sink)?:
                            if let file = try sink.finish(sniffer: sniffer) {
                                form.files.append(file)
                                if form.files.count > policy.maximumFiles { throw UploadError.tooManyFiles(limit: policy.maximumFiles) }
                            }
                        case nil:
                            break
                        }
                        current = nil
                    case .end:
                        break
                    }
                }
            }
            guard parser.isComplete else { throw UploadError.malformed }
            if !authorized, !authorize(form["_csrf"]) { throw UploadError.forbidden }
            return form
        } catch let error as UploadError {
            current?.discard()
            form.discardTemporaries()
            switch error {
            case .fileTooLarge, .fieldTooLarge, .requestTooLarge: try? await drain(&iterator)
            default: break
            }
            throw error
        } catch {
            // A broken-off body, a parse error or a disk that cannot take the file: nothing stays.
            current?.discard()
            form.discardTemporaries()
            // A disk that filled up mid-upload: the rest is read and dropped, so the browser gets
            // the answer rather than a reset connection.
            if error is POSIXError { try? await drain(&iterator) }
            throw error is MultipartParser.ParseError ? UploadError.malformed : error
        }
    }

    private func parse(_ parser: inout MultipartParser, _ chunk: ByteBuffer) throws -> [MultipartParser.Event] {
        do { return try parser.feed(chunk) } catch { throw UploadError.malformed }
    }

    private func drain<Iterator: AsyncIteratorProtocol>(_ iterator: inout Iterator) async throws
    where Iterator.Element == ByteBuffer {
        var dropped = 0
        while dropped < drainLimit, let chunk = try await iterator.next() { dropped += chunk.readableBytes }
    }

    /// The part being read.
    private enum Part {
        case field(String, [UInt8])
        case file(FileSink)

        mutating func append(_ slice: ByteBuffer, policy: UploadPolicy) throws {
            switch self {
            case .field(let name, var bytes):
                bytes += slice.readableBytesView
                if bytes.count > policy.maximumFieldBytes {
                    throw UploadError.fieldTooLarge(field: name, limit: policy.maximumFieldBytes)
                }
                self = .field(name, bytes)
            case .file(let sink):
                try sink.write(slice, limit: policy.maximumFileBytes)
            }
        }

        func discard() {
            if case .file(let sink) = self { sink.discard() }
        }
    }
}

/// One file on its way to disk: written, hashed and counted as it arrives; its first bytes kept
/// for sniffing.
final class FileSink {
    let field: String
    let name: String
    let url: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var size = 0
    private var head: [UInt8] = []

    init(field: String, name: String, store: FileStore) throws {
        self.field = field
        self.name = FileName.clean(name)
        url = store.temporaryFile()
        // The reason (no space, a read-only disk) is kept: it decides what the person is told.
        guard DataFolder.createFile(url.path) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = try FileHandle(forWritingTo: url)
    }

    func write(_ slice: ByteBuffer, limit: Int) throws {
        size += slice.readableBytes
        if size > limit { throw UploadError.fileTooLarge(limit: limit) }
        try slice.withUnsafeReadableBytes { bytes in
            hasher.update(bufferPointer: bytes)
            if head.count < ContentSniffer.sniffLength {
                head += bytes.prefix(ContentSniffer.sniffLength - head.count)
            }
            // Straight to the descriptor: no copy into Data.
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(handle.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += written
            }
        }
    }

    /// The received file, or nil for the empty part a browser sends when no file was chosen.
    /// Throws `unsupportedType` (and removes the file) when the bytes are not allowed.
    func finish(sniffer: ContentSniffer) throws -> ReceivedFile? {
        // On the disk before it is adopted under its final name (a rename), which nodes sharing
        // the files folder serve.
        if size > 0 { try handle.synchronize() }
        try handle.close()
        if size == 0 && name == "file" {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        let mime = size == 0 ? "application/x-empty" : ContainerTypes.refine(sniffer.mimeType(of: head), fileAt: url)
        guard let kind = UploadPolicy.allowedTypes[mime] else {
            try? FileManager.default.removeItem(at: url)
            throw UploadError.unsupportedType(mime)
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return ReceivedFile(field: field, name: name, temporaryURL: url, size: size, sha256: digest, mimeType: mime, kind: kind)
    }

    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}
