// swift-tools-version:6.2
// libFuzzer targets for wsx's multipart parser and message renderer: `make fuzz` (from the
// repository root) builds them with coverage instrumentation and runs them. Kept out of the main
// package so normal builds never link the fuzzer runtime. The sources under test are the real
// ones (symlinks), not copies.

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
        .executableTarget(
            name: "MessageTextFuzz",
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=address"])]
        ),
    ]
)
