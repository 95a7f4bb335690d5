/// An error page: what went wrong in the reader's language, and for a 500 the request id that
/// also appears in the server's log line.
public struct ErrorPage: Sendable {
    public var status: Int
    public var heading: String
    public var message: String
    public var requestId: String?

    public init(status: Int, heading: String, message: String, requestId: String? = nil) {
        self.status = status
        self.heading = heading
        self.message = message
        self.requestId = requestId
    }
}
