import Mustache
import Testing
@testable import Views

@Suite("Template translation and escaping")
struct TemplateTranslationTests {
    let table = ["greet": "안녕 <b>\"you\"</b> & 'me'", "raw": "<em>hi</em>", "tag": "{{chrome.csrfToken}}"]

    @Test("{{t.key}} becomes the escaped text, {{{t.key}}} and {{&t.key}} the raw text; other tags stay")
    func translates() {
        let template = "<p title=\"{{t.greet}}\">{{{t.raw}}}{{&t.raw}}{{page.name}}{{#t.greet}}x{{/t.greet}}</p>"
        #expect(TemplateTranslation.translate(template, with: table)
                == "<p title=\"안녕 &lt;b&gt;&quot;you&quot;&lt;/b&gt; &amp; &#39;me&#39;\"><em>hi</em><em>hi</em>{{page.name}}{{#t.greet}}x{{/t.greet}}</p>")
    }

    @Test("missing keys and texts that look like tags are left for the renderer")
    func leavesWhatItCannotTranslate() {
        #expect(TemplateTranslation.translate("{{t.missing}} {{t.tag}} {{ t.greet }} {{t.", with: table)
                == "{{t.missing}} {{t.tag}} {{ t.greet }} {{t.")
    }

    @Test("the fast escaping gives exactly what swift-mustache's HTML escaping gives")
    func escapingMatchesMustache() throws {
        let samples = ["", "plain", "회의를 <script>alert('x')</script> & \"q\"", "a&amp;b", "🙂<>", "'\"&<>"]
        for sample in samples {
            let builtIn = try MustacheTemplate(string: "{{value}}").render(["value": sample])
            #expect(HTMLEscaping.escape(sample) == builtIn, "for \(sample)")
        }
    }
}
