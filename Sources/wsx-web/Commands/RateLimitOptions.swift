import ArgumentParser
import Foundation
import Uploads

/// `serve`'s limits on how fast one account may post, upload and search; 0 turns one off.
struct RateLimitOptions: ParsableArguments {
    @Option(name: .customLong("post-burst"), help: "Posts one account may send at once before --posts-per-second applies; 0 for no limit (env WSX_POST_BURST, default 100).")
    var postBurst: Int?
    @Option(name: .customLong("posts-per-second"), help: "Posts per second one account may keep up after its burst; 0 for no limit (env WSX_POSTS_PER_SECOND, default 10).")
    var postsPerSecond: Double?
    @Option(name: .customLong("upload-bytes-per-minute"), help: "Upload bytes one account may send per minute, e.g. 100MB; 0 for no limit (env WSX_UPLOAD_BYTES_PER_MINUTE, default --max-files times --max-file-size: 500MB).")
    var uploadBytesPerMinute: String?
    @Option(name: .customLong("searches-per-minute"), help: "Searches one account may run per minute; 0 for no limit (env WSX_SEARCHES_PER_MINUTE, default 60).")
    var searchesPerMinute: Int?
    @Option(name: .customLong("status-changes-per-minute"), help: "Custom status changes one account may make per minute; 0 for no limit (env WSX_STATUS_CHANGES_PER_MINUTE, default 10).")
    var statusChangesPerMinute: Int?
    @Option(name: .customLong("invitations-per-hour"), help: "New invitations one owner, and one workspace, may make per hour; 0 for no limit (env WSX_INVITATIONS_PER_HOUR, default 50).")
    var invitationsPerHour: Int?

    /// After the upload limits, which the upload allowance follows unless given.
    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        var limits = config.rateLimits
        limits.postBurst = try postBurst ?? env.int("WSX_POST_BURST") ?? limits.postBurst
        limits.postsPerSecond = try postsPerSecond ?? env.string("WSX_POSTS_PER_SECOND").map { text in
            guard let value = Double(text) else { throw ValidationError("WSX_POSTS_PER_SECOND=\(text) is not a number") }
            return value
        } ?? limits.postsPerSecond
        if let text = uploadBytesPerMinute ?? env.string("WSX_UPLOAD_BYTES_PER_MINUTE") {
            guard let bytes = ByteSizeText.bytes(text) else {
                throw ValidationError("--upload-bytes-per-minute: \(text) is not a size like 100MB or 0")
            }
            limits.uploadBytesPerMinute = bytes
        } else {
            // A message of the most and largest files allowed goes through in one go.
            limits.uploadBytesPerMinute = config.uploads.maximumFiles * config.uploads.maximumFileBytes
        }
        limits.searchesPerMinute = try searchesPerMinute ?? env.int("WSX_SEARCHES_PER_MINUTE") ?? limits.searchesPerMinute
        limits.statusChangesPerMinute = try statusChangesPerMinute ?? env.int("WSX_STATUS_CHANGES_PER_MINUTE")
            ?? limits.statusChangesPerMinute
        guard limits.postBurst >= 0, limits.postsPerSecond >= 0, limits.uploadBytesPerMinute >= 0, limits.searchesPerMinute >= 0,
              limits.statusChangesPerMinute >= 0, limits.postsPerSecond.isFinite else {
            throw ValidationError("--post-burst, --posts-per-second, --upload-bytes-per-minute, --searches-per-minute and --status-changes-per-minute cannot be negative")
        }
        config.rateLimits = limits
        config.invitationsPerHour = try invitationsPerHour ?? env.int("WSX_INVITATIONS_PER_HOUR") ?? config.invitationsPerHour
        guard config.invitationsPerHour >= 0 else { throw ValidationError("--invitations-per-hour cannot be negative") }
    }
}
