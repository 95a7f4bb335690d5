// swift-tools-version:6.2
// wsx: a self-hosted team chat server. See ../shared/DESIGN.md for the layout.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "wsx",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "wsx-web", targets: ["wsx-web"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The server: thin @main, app assembly, controllers, middleware, storage, real-time.
        .executableTarget(
            name: "wsx-web",
            dependencies: [
                "Views", "Uploads", "Assets", "CMalloc", "LinkPreviews", "Mail", "SlackFormat",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                // The upgrade of the apps' Socket.IO sessions to WebSocket (SocketIO/).
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA, to check the signatures of Sign in with Apple's tokens (API/AppleIdentity.swift).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["Storage/README.md"],
            // A file sees the members of only the modules it imports: code outside Storage/,
            // which does not import GRDB, cannot reach GRDB's methods on a value it was handed.
            swiftSettings: swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // View models -> HTML through Templates/, ko/en strings. No database or HTTP types.
        .target(
            name: "Views",
            swiftSettings: swiftSettings
        ),
        // Templates/ and Public/ compiled into the binary by our generator (see Plugins/EmbedAssets).
        .target(
            name: "Assets",
            swiftSettings: swiftSettings,
            plugins: ["EmbedAssets"]
        ),
        .executableTarget(name: "wsx-embed", dependencies: ["CCompress"], swiftSettings: swiftSettings),
        // zlib and Brotli's encoder: wsx-embed compresses Public/'s text files once, at build time.
        .systemLibrary(name: "CCompress", providers: [.apt(["zlib1g-dev", "libbrotli-dev"])]),
        // In-process measurements for bench/ (thumbnails), run by `make bench`.
        .executableTarget(name: "wsx-bench", dependencies: ["Uploads"], swiftSettings: swiftSettings),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["wsx-embed"]),
        // Uploads: sniffing, policy, thumbnails, file store. Pure, tested against fixture files.
        .target(
            name: "Uploads",
            dependencies: ["CMagic", "VipsShim", "Views", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // glibc's mallopt, to keep freed heap between requests (App/HeapTrimming.swift).
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CMagic", pkgConfig: "libmagic", providers: [.apt(["libmagic-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "VipsShim", dependencies: ["CVips"]),
        .testTarget(
            name: "wsx-webTests",
            dependencies: [
                "wsx-web", "LocalTestSite", "Mail", "SlackFormat",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Tokens signed as Sign in with Apple signs them (API/SocialSignInTests.swift).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            // As for the server: a suite that does not import GRDB cannot reach the database
            // but through the stores.
            swiftSettings: swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // swift-mustache only to check our renderer gives the same pages as the reference one.
        .testTarget(
            name: "ViewsTests",
            dependencies: ["Views", "Assets", .product(name: "Mustache", package: "swift-mustache")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "UploadsTests", dependencies: ["Uploads"], swiftSettings: swiftSettings),
        // Link previews: the guarded fetcher and the page reader. No database or views.
        .target(
            name: "LinkPreviews",
            dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LinkPreviewsTests",
            dependencies: ["LinkPreviews", "LocalTestSite", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        // Mail: messages (MIME, RFC 2047) and an SMTP client with STARTTLS. No database or views.
        .target(
            name: "Mail",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOExtras", package: "swift-nio-extras")],
            swiftSettings: swiftSettings
        ),
        // Slack's export format: its JSON, its zip, and its markup to ours and back. No database.
        .target(
            name: "SlackFormat",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SlackFormatTests", dependencies: ["SlackFormat"], swiftSettings: swiftSettings),
        // A site on loopback for the tests that fetch (link previews).
        .target(
            name: "LocalTestSite",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")],
            path: "Tests/LocalTestSite",
            swiftSettings: swiftSettings
        ),
    ]
)
