import Crypto
import Foundation

/// Encrypts a push message for one subscription (RFC 8291, the `aes128gcm` content coding of
/// RFC 8188): a key agreed between a fresh P-256 key pair and the browser's (`p256dh`), mixed
/// with its authentication secret (`auth`), seals the payload as one record whose header
/// carries the salt and the fresh public key, so only that browser can read it.
enum WebPushEncryption {
    /// Why a subscription's keys cannot be used.
    enum KeyError: Error {
        case badPublicKey, badAuthSecret
    }

    /// The record size written in the header: one record holds any payload up to the 4 KB a
    /// push service takes.
    static let recordSize: UInt32 = 4096

    /// The browser's public key as a P-256 point (65 bytes, uncompressed), or an error.
    static func publicKey(_ bytes: Data) throws -> P256.KeyAgreement.PublicKey {
        guard bytes.count == 65, bytes.first == 0x04,
              let key = try? P256.KeyAgreement.PublicKey(x963Representation: bytes) else { throw KeyError.badPublicKey }
        return key
    }

    /// `payload` sealed for the subscription, as the request body. `serverKey` and `salt` are
    /// fresh for every message (given here only so a test can reproduce a known answer).
    static func encrypt(_ payload: Data, p256dh: Data, auth: Data,
                        serverKey: P256.KeyAgreement.PrivateKey = .init(),
                        salt: Data = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })) throws -> Data {
        guard auth.count == 16 else { throw KeyError.badAuthSecret }
        let browserKey = try publicKey(p256dh)
        let serverPublic = serverKey.publicKey.x963Representation
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: browserKey)
        // IKM = HKDF(auth, ecdh, "WebPush: info" 0 ua_public as_public, 32)
        var keyInfo = Data("WebPush: info".utf8)
        keyInfo.append(0)
        keyInfo.append(p256dh)
        keyInfo.append(serverPublic)
        let inputKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt,
                                                info: Data("Content-Encoding: aes128gcm\u{0}".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt,
                                           info: Data("Content-Encoding: nonce\u{0}".utf8), outputByteCount: 12)
        // One record, the last: the payload and its delimiter (2), no padding.
        var plaintext = payload
        plaintext.append(2)
        let sealed = try AES.GCM.seal(plaintext, using: contentKey,
                                      nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(serverPublic.count))
        body.append(serverPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }
}
