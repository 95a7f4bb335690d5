import Foundation
import PackagePlugin

/// Turns the package's `Templates/` and `Public/` folders into one Swift source file of the
/// `Assets` target, so the server binary carries every page and static file.
///
/// SwiftPM's `.embedInCode` resources only take files inside the target and compile slowly; a
/// generated file of base64 string literals compiles in a second and keeps the folders where
/// designers expect them (at the top of the repository).
@main
struct EmbedAssets: BuildToolPlugin {
    /// The folders embedded, relative to the package root.
    static let folders = ["Templates", "Public"]

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let root = context.package.directoryURL
        var inputs: [URL] = []
        for folder in Self.folders {
            inputs += Self.files(under: root.appending(path: folder))
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFileTable.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) files of \(Self.folders.joined(separator: ", "))",
                executable: try context.tool(named: "wsx-embed").url,
                arguments: [root.path(percentEncoded: false), output.path(percentEncoded: false)] + Self.folders,
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }

    /// Every regular file below `folder`, skipping hidden files.
    static func files(under folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(url)
            }
        }
        return found.sorted { $0.path < $1.path }
    }
}
