import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Kakao sign-in for the apps: the `oauthToken` the app got from Kakao is believed when Kakao's
/// user-info API (`GET {api}/v2/user/me` with `Authorization: Bearer`) answers it with the
/// account: its `id`, and `kakao_account.email` and `kakao_account.profile.nickname` when the
/// person shared them.
struct KakaoIdentity: Sendable {
    /// Kakao's API (`https://kapi.kakao.com`); nil: Kakao sign-in is off.
    let api: URL?

    struct Person: Sendable, Equatable {
        let subject: String
        let email: String?
        let nickname: String?
    }

    /// The person `oauthToken` belongs to; nil when Kakao does not know it (or sign-in is off,
    /// or Kakao cannot be reached).
    func person(oauthToken: String) async -> Person? {
        guard let api, !oauthToken.isEmpty, oauthToken.count <= 4096 else { return nil }
        var request = URLRequest(url: api.appendingPathComponent("v2/user/me"), timeoutInterval: 10)
        request.setValue("Bearer \(oauthToken)", forHTTPHeaderField: "Authorization")
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let id = (object["id"] as? NSNumber)?.int64Value else { return nil }
        let account = object["kakao_account"] as? [String: Any]
        let profile = account?["profile"] as? [String: Any]
        return Person(subject: String(id), email: (account?["email"] as? String).flatMap { $0.isEmpty ? nil : $0 },
                      nickname: (profile?["nickname"] as? String).flatMap { $0.isEmpty ? nil : $0 })
    }
}
