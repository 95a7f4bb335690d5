/// What this binary is, for `wsx-web --version`, the start-up log and `/metrics`'
/// `wsx_build_info`.
enum BuildInfo {
    /// The release: the round of issues it completes.
    static let version = "0.31.0"
    /// The Swift compiler that built it.
    static var swift: String {
        #if swift(>=6.3)
        "6.3"
        #elseif swift(>=6.2)
        "6.2"
        #else
        "older"
        #endif
    }
}
