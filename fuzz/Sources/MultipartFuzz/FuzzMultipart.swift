import Foundation
import NIOCore

/// libFuzzer entry: the input's first byte picks a chunk size; the rest is a body for the fixed
/// boundary "b". The parser must never crash, hang or return body bytes that were not in the
/// input; when it accepts a body, parsing it again in one chunk must give the same parts.
@main
struct FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzMultipart))
    }
}

/// libFuzzer's driver (from libclang_rt.fuzzer_no_main), for targets that have their own main.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chunk = Int(bytes[0] % 64) + 1
    let body = Array(bytes.dropFirst())

    func parse(chunkSize: Int) -> [String]? {
        var parser = MultipartParser(boundary: "b", maximumParts: 32)
        var parts: [String] = []
        var current: [UInt8] = []
        var offset = 0
        do {
            while offset < body.count {
                let end = min(body.count, offset + chunkSize)
                for event in try parser.feed(ByteBuffer(bytes: body[offset..<end])) {
                    switch event {
                    case .headers(let headers): current = Array(headers.map { "\($0.name)=\($0.value)" }.joined(separator: ";").utf8)
                    case .body(let slice): current += slice.readableBytesView
                    case .partEnd: parts.append(String(decoding: current, as: UTF8.self)); current = []
                    case .end: break
                    }
                }
                offset = end
            }
            try parser.finish()
            return parts
        } catch {
            return nil
        }
    }

    let chunked = parse(chunkSize: chunk)
    let whole = parse(chunkSize: max(body.count, 1))
    if chunked != whole {
        fatalError("chunking changed the result: \(String(describing: chunked)) vs \(String(describing: whole))")
    }
    return 0
}
