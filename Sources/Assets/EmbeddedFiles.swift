import Foundation

/// The files of `Templates/` and `Public/` as they were when the binary was built.
///
/// The `base64` table is generated at build time by the `EmbedAssets` plugin; this type decodes it.
/// Keys are paths relative to the repository root, e.g. `Templates/layout.mustache`.
public enum EmbeddedFiles {
    /// Every embedded file whose path starts with `folder + "/"`, keyed by the path inside that folder.
    public static func files(in folder: String) -> [String: Data] {
        let prefix = folder + "/"
        var result: [String: Data] = [:]
        for (path, encoded) in base64 where path.hasPrefix(prefix) {
            guard let data = Data(base64Encoded: encoded) else {
                preconditionFailure("embedded file \(path) is not valid base64")
            }
            result[String(path.dropFirst(prefix.count))] = data
        }
        return result
    }
}
