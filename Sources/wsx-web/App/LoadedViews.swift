import Assets
import Views

/// The templates, parsed, and the static files: from the folders `--templates-dir` and
/// `--public-dir` name, else from the binary. Neither changes once loaded (a folder's
/// templates are re-read by the renderer itself), so one load may serve several servers.
struct LoadedViews: Sendable {
    let renderer: PageRenderer
    let assets: StaticAssets

    init(_ config: AppConfig) throws {
        renderer = try PageRenderer(source: config.templatesDirectory.map { .directory($0) }
            ?? .files(EmbeddedFiles.files(in: "Templates")))
        assets = try StaticAssets(source: config.publicDirectory.map { .directory($0) }
            ?? .files(EmbeddedFiles.files(in: "Public")), compressed: EmbeddedFiles.files(in: "Compressed/Public"))
    }

    var pair: (PageRenderer, StaticAssets) { (renderer, assets) }
}
