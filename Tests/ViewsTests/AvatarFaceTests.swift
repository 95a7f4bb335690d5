import Assets
import Foundation
import Testing
@testable import Views

@Suite("Avatars without a photo")
struct AvatarFaceTests {
    @Test("letters: a Korean name's given name, else the first letters of two words")
    func initials() {
        #expect(AvatarFace.initials("김민아") == "민아")
        #expect(AvatarFace.initials("남궁민수") == "민수")
        #expect(AvatarFace.initials("이") == "이")
        #expect(AvatarFace.initials("Kim Mina") == "KM")
        #expect(AvatarFace.initials("bob") == "B")
        #expect(AvatarFace.initials("Ada Lovelace King") == "AL")
        #expect(AvatarFace.initials("  ") == "?")
        #expect(AvatarFace.initials(" 김민아 ") == "민아")
        #expect(AvatarFace.initials("김 민아") == "김민")
        #expect(AvatarFace.initials("kim\tmina lee") == "KM")
        #expect(AvatarFace.initials("Kim 민아") == "K민")
        // Decomposed jamo and accented letters take the slower path, with the same rules.
        #expect(AvatarFace.initials("김민아".decomposedStringWithCanonicalMapping) == "민아")
        #expect(AvatarFace.initials("élodie durand") == "ÉD")
        #expect(AvatarFace.initial("김민아") == "민")
    }

    @Test("a colour by the account: the same for the same person, spread over every tone")
    func tones() {
        #expect(AvatarFace.tone(9) == AvatarFace.tone(9))
        #expect(Set((1...8).map { AvatarFace.tone(Int64($0)) }).count == AvatarFace.tones)
        #expect((0..<AvatarFace.tones).contains(AvatarFace.tone(-3)))
    }

    @Test("every tone in the stylesheet keeps its white letters above 4.5:1 (WCAG AA)")
    func contrast() throws {
        let css = String(decoding: EmbeddedFiles.files(in: "Public")["app.css"] ?? Data(), as: UTF8.self)
        func luminance(_ hex: Substring) -> Double {
            let value = Int(hex, radix: 16) ?? 0
            let channels = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map { Double($0) / 255 }
            let linear = channels.map { $0 <= 0.03928 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        for tone in 0..<AvatarFace.tones {
            let match = try #require(css.firstMatch(of: try Regex("span\\.avatar\\.avatar-tone-\(tone) \\{ background: #([0-9a-f]{6}); \\}")))
            let hex = try #require(match.output[1].substring)
            #expect(1.05 / (luminance(hex) + 0.05) >= 4.5, "tone \(tone) #\(hex)")
        }
    }
}
