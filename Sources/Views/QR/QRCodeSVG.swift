extension QRCode {
    /// The light margin readers need around a symbol, in modules (the standard asks for four).
    static let quietZone = 4

    /// The code as one `<svg>` element: a white background, then a single `<path>` of the dark
    /// modules with each horizontal run drawn as one rectangle (about 7 KB for the version-7
    /// code of an `otpauth://` URI). The viewBox counts modules (quiet zone included) and `width`/`height` scale it
    /// to `moduleSize` pixels each; `crispEdges` stops antialiasing seams between runs. The
    /// label is the accessible name, escaped like every other text we write into markup.
    public func svg(moduleSize: Int = 4, label: String) -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                let start = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let pixels = side * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" \
            height="\(pixels)" shape-rendering="crispEdges" role="img" aria-label="\(HTMLEscaping.escape(label))">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
