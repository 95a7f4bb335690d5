// swift-tools-version:6.2
// libFuzzer target for wsx's multipart parser: `make fuzz` (from the repository root) builds it
// with coverage instrumentation and runs it. Kept out of the main package so normal builds
// never link the fuzzer runtime. The parser source is the real one (a symlink), not a copy.

import PackageDescription

let package = Package(
    name: "wsx-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "MultipartFuzz",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            // Coverage instrumentation and AddressSanitizer for this module (the parser is in it);
            // the fuzzer runtime without its main() is linked by `make fuzz` (-Xlinker), and
            // FuzzMultipart.swift's main starts it.
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=address"])]
        ),
    ]
)
