import Foundation

/// The server-relative paths `/v1` names files by (`../shared/APP-API.md` §8):
/// `/static/<bucket>/<name>_<id>.<ext>`, which the apps fetch as `/v1/static/…`. The name is the
/// uploaded one made safe for a path (letters and digits of any script kept, so a Korean name
/// stays readable), the id the file's opaque id (what the server looks it up by), and the
/// extension the real one of the file's type (typed by its bytes), so an app that decides
/// image or document by the extension decides right.
enum APIStaticPaths {
    /// The folders the apps know.
    enum Bucket: String, Sendable, CaseIterable {
        case profiles, workspaces, channels, channelChats, dmChats
    }

    /// The cover every workspace without a picture shows (the apps expect one).
    static let defaultCover = "/static/workspaces/default.png"

    static func path(of file: StoredFile, publicId: String, in bucket: Bucket) -> String {
        "/static/\(bucket.rawValue)/\(stem(of: file.originalName))_\(publicId).\(fileExtension(of: file))"
    }

    /// The opaque id of the file a path names (`/static/…` or `/v1/static/…`), if it is one of ours.
    static func publicId(in path: String) -> String? {
        guard let last = path.split(separator: "/").last, let dot = last.lastIndex(of: "."),
              let underscore = last[..<dot].lastIndex(of: "_") else { return nil }
        let id = last[last.index(after: underscore)..<dot]
        return id.count == 24 && id.allSatisfy(\.isHexDigit) ? String(id) : nil
    }

    /// The extension of the file's type; the uploaded name's for a type with several.
    static func fileExtension(of file: StoredFile) -> String {
        let given = (file.originalName as NSString).pathExtension.lowercased()
        let known = extensions[file.mime] ?? []
        if known.contains(given) { return given }
        return known.first ?? "bin"
    }

    private static let extensions: [String: [String]] = [
        "image/jpeg": ["jpeg", "jpg"], "image/png": ["png"], "image/gif": ["gif"], "image/webp": ["webp"],
        "application/pdf": ["pdf"], "application/zip": ["zip"],
        "application/x-hwp": ["hwp"], "application/hwp+zip": ["hwpx"],
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ["docx"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ["xlsx"],
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": ["pptx"],
        "application/vnd.oasis.opendocument.text": ["odt"], "application/vnd.oasis.opendocument.spreadsheet": ["ods"],
        "application/vnd.oasis.opendocument.presentation": ["odp"],
        "application/msword": ["doc"], "application/vnd.ms-excel": ["xls"], "application/vnd.ms-powerpoint": ["ppt"],
        "text/plain": ["txt"], "text/csv": ["csv"], "text/markdown": ["md", "markdown"],
        "video/mp4": ["mp4"], "video/webm": ["webm"], "video/quicktime": ["mov"],
        "audio/mpeg": ["mp3"], "audio/mp4": ["m4a"], "audio/x-m4a": ["m4a"], "audio/ogg": ["ogg"],
    ]

    /// The uploaded name without its extension, every character but letters, digits, `-` and
    /// `.` made `-`, at most 60 characters; `file` when nothing is left.
    static func stem(of name: String) -> String {
        let base = (name as NSString).deletingPathExtension
        var stem = ""
        for character in base.precomposedStringWithCanonicalMapping {
            stem.append(character.isLetter || character.isNumber || character == "-" || character == "." ? character : "-")
        }
        stem = String(stem.prefix(60)).trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        return stem.isEmpty ? "file" : stem
    }
}
