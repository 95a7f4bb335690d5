import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

/// The fields of a `/v1` request's body, whichever way the app sent them: a JSON object, an
/// `application/x-www-form-urlencoded` form (`../shared/APP-API.md` §1). Values that are JSON
/// numbers or booleans are read as their text; `null` as absent.
struct APIFields: Sendable {
    private var values: [String: String]

    init(_ values: [String: String] = [:]) {
        self.values = values
    }

    subscript(_ name: String) -> String? { values[name] }

    /// The field's value trimmed, or `APIError.badRequest` when it is missing or empty.
    func required(_ name: String) throws -> String {
        guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw APIError.badRequest
        }
        return value
    }

    /// The largest body a `/v1` request without files may have.
    static let maximumBytes = 64 * 1024

    /// Reads `request`'s body. A body that is neither JSON nor a form, or is not what its type
    /// says, is `APIError.badRequest`; none at all is no fields.
    static func read(_ request: Request) async throws -> APIFields {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBytes)
        } catch {
            throw APIError.badRequest
        }
        guard buffer.readableBytes > 0 else { return APIFields() }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let form = FormData(urlEncoded: String(buffer: buffer))
            var values: [String: String] = [:]
            for field in form.fields where values[field.name] == nil { values[field.name] = field.value }
            return APIFields(values)
        }
        // JSON, said or not (an app that sends JSON without saying so is still understood).
        guard let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(buffer: buffer)) else {
            throw APIError.badRequest
        }
        return APIFields(object.compactMapValues(\.text))
    }

    /// One value of a JSON body: text, a number, a boolean or null (objects and arrays are refused).
    private struct Scalar: Decodable {
        let text: String?

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                text = nil
            } else if let string = try? value.decode(String.self) {
                text = string
            } else if let flag = try? value.decode(Bool.self) {
                text = flag ? "true" : "false"
            } else if let whole = try? value.decode(Int64.self) {
                text = String(whole)
            } else {
                text = String(try value.decode(Double.self))
            }
        }
    }
}
