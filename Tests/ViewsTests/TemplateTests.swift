import Testing
@testable import Views

/// The template renderer's rules: what each tag shows, how sections and lookups behave, which
/// lines vanish, and how a broken template is reported.
@Suite("Template renderer")
struct TemplateTests {
    struct Inner { var label = "inside"; var only = "inner only" }

    struct Sample {
        var name = "<b>Kim & \"Lee\"</b>"
        var yes = true
        var no = false
        var items = ["a", "b", "c"]
        var empty: [String] = []
        var nothing: String? = nil
        var something: String? = "here"
        var count = 0
        var inner = Inner()
        var rows = [Inner(label: "one"), Inner(label: "two")]
        var title = "outer title"
    }

    func render(_ text: String, _ context: Any = Sample(), partials: [String: String] = [:]) throws -> String {
        let library = try TemplateLibrary(texts: partials.merging(["page": text]) { $1 })
        return try #require(library.render("page", TemplateValue(reflecting: context)))
    }

    @Test("{{name}} escapes HTML, {{{name}}} and {{&name}} do not; numbers and flags print")
    func variables() throws {
        #expect(try render("{{name}}|{{{name}}}|{{& name }}") == "&lt;b&gt;Kim &amp; &quot;Lee&quot;&lt;/b&gt;|<b>Kim & \"Lee\"</b>|<b>Kim & \"Lee\"</b>")
        #expect(try render("{{count}} {{yes}} {{no}} {{something}}[{{nothing}}][{{absent}}]") == "0 true false here[][]")
    }

    @Test("sections: false, nil, missing and empty lists skip; true renders once; lists repeat; values are entered")
    func sections() throws {
        #expect(try render("{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{#nothing}}X{{/nothing}}{{#absent}}A{{/absent}}{{#empty}}E{{/empty}}") == "Y")
        #expect(try render("{{#items}}<{{.}}>{{/items}}") == "<a><b><c>")
        #expect(try render("{{#something}}[{{.}}]{{/something}}{{#count}}({{.}}){{/count}}") == "[here](0)")
        #expect(try render("{{#rows}}{{label}}:{{title}};{{/rows}}") == "one:outer title;two:outer title;")
        #expect(try render("{{^no}}1{{/no}}{{^nothing}}2{{/nothing}}{{^empty}}3{{/empty}}{{^yes}}4{{/yes}}{{^items}}5{{/items}}") == "123")
    }

    @Test("dotted names look inside; the first part climbs out of sections, the rest does not")
    func lookups() throws {
        #expect(try render("{{inner.label}}|{{inner.absent}}|{{absent.label}}|{{#inner}}{{label}} {{name}}{{/inner}}") == "inside|||inside &lt;b&gt;Kim &amp; &quot;Lee&quot;&lt;/b&gt;")
        #expect(try render("{{#rows}}{{inner.only}}{{/rows}}") == "inner onlyinner only")
    }

    @Test("a tag alone on its line takes the line with it; a line with text or two tags stays")
    func standaloneLines() throws {
        let text = "<ul>\n  {{#items}}\n  <li>{{.}}</li>\n  {{/items}}\n</ul>\n{{! a comment }}\n{{#yes}}{{/yes}}\nend"
        #expect(try render(text) == "<ul>\n  <li>a</li>\n  <li>b</li>\n  <li>c</li>\n</ul>\n\nend")
        #expect(try render("  {{#yes}}\r\nwin\r\n  {{/yes}}  ") == "win\r\n")
        #expect(try render("a {{#yes}}\nb{{/yes}} c") == "a \nb c")
    }

    @Test("partials render in the same context; a standalone one is indented")
    func partials() throws {
        let partials = ["row": "<i>{{label}}</i>\n"]
        #expect(try render("{{#rows}}{{> row}}{{/rows}}", partials: partials) == "<i>one</i>\n<i>two</i>\n")
        #expect(try render("<div>\n  {{> row}}\n</div>", Inner(), partials: partials) == "<div>\n  <i>inside</i>\n</div>")
    }

    struct Tree { var label: String; var children: [Tree] }

    @Test("a partial may include itself, and a partial or section ends where it should")
    func recursionAndNesting() throws {
        let tree = Tree(label: "root", children: [Tree(label: "a", children: [Tree(label: "a1", children: [])]),
                                                  Tree(label: "b", children: [])])
        let partials = ["node": "{{label}}{{#children}}({{> node}}){{/children}}"]
        #expect(try render("{{> node}}!", tree, partials: partials) == "root(a(a1))(b)!")
        // Text after nested sections and partials belongs to the enclosing level, once.
        let nested = "{{#rows}}[{{#inner}}{{only}}{{/inner}}{{label}}{{> row}}]{{/rows}}{{^no}}end{{/no}}"
        #expect(try render(nested, partials: ["row": "<{{label}}>"]) == "[inner onlyone<one>][inner onlytwo<two>]end")
    }

    @Test("a broken template is refused with its file and line")
    func errors() {
        func failure(_ text: String, partials: [String: String] = [:]) -> String {
            do {
                _ = try render(text, partials: partials)
                return "parsed"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure("a\n{{#items}}\n{{.}}") == "template page.mustache does not parse: line 2: {{#items}} is never closed")
        #expect(failure("{{#items}}\n{{/rows}}") == "template page.mustache does not parse: line 2: {{/rows}} closes no open section ({{#items}} is open)")
        #expect(failure("x\n\n{{/rows}}") == "template page.mustache does not parse: line 3: {{/rows}} closes no open section")
        #expect(failure("{{name") == "template page.mustache does not parse: line 1: a tag is not closed with }}")
        #expect(failure("{{{name}}") == "template page.mustache does not parse: line 1: a tag is not closed with }}}")
        #expect(failure("{{=<% %>=}}") == "template page.mustache does not parse: line 1: changing delimiters is not supported")
        #expect(failure("{{}}") == "template page.mustache does not parse: line 1: \"\" is not a name")
        #expect(failure("{{> absent}}") == "template page.mustache does not parse: the partial absent does not exist")
    }
}
