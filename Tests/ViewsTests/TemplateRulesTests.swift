import Assets
import Foundation
import Testing
@testable import Views

/// The rules every template follows, checked over the embedded copy of `Templates/`.
@Suite("Template rules")
struct TemplateRulesTests {
    let templates: [String: String] = EmbeddedFiles.files(in: "Templates")
        .mapValues { String(decoding: $0, as: UTF8.self) }

    @Test("every template the server renders is embedded")
    func everyTemplateIsEmbedded() {
        for name in TemplateName.allCases {
            #expect(templates[name.rawValue + ".mustache"] != nil, "missing \(name.rawValue).mustache")
        }
    }

    @Test("unescaped output is only for variables named …Html, and {{& }} is never used")
    func rawOutputOnlyForHtmlVariables() {
        for (file, text) in templates {
            #expect(!text.contains("{{&"), "\(file) uses {{& }}")
            for match in text.matches(of: /\{\{\{\s*([^}]+?)\s*\}\}\}/) {
                let name = String(match.1).split(separator: ".").last.map(String.init) ?? ""
                #expect(name.hasSuffix("Html"), "\(file) outputs {{{\(match.1)}}} unescaped")
            }
        }
    }

    @Test("every text a template uses exists in Korean and English")
    func everyStringKeyIsTranslated() {
        var used: Set<String> = []
        for text in templates.values {
            for match in text.matches(of: /\{\{[#^\/]?\s*t\.([A-Za-z0-9_]+)\s*\}\}/) { used.insert(String(match.1)) }
        }
        #expect(!used.isEmpty)
        for key in used.sorted() {
            #expect(Strings.korean[key] != nil, "no Korean text for \(key)")
            #expect(Strings.english[key] != nil, "no English text for \(key)")
        }
    }

    @Test("Korean and English have the same keys, and no text is empty")
    func languagesHaveTheSameKeys() {
        #expect(Set(Strings.korean.keys) == Set(Strings.english.keys))
        #expect(Strings.korean.values.allSatisfy { !$0.isEmpty })
        #expect(Strings.english.values.allSatisfy { !$0.isEmpty })
    }
}
