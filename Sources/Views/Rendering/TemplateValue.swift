/// What a template name resolves to. Lookups answer with one of these instead of `Any`, so
/// rendering decides what to do with a value by a `switch`, never by dynamic casts (which were
/// most of swift-mustache's time on the channel page).
public enum TemplateValue {
    /// Text: escaped by `{{name}}`, as is by `{{{name}}}`. A section over it enters it as `.`.
    case text(String)
    case number(Int64)
    /// A section over `false` is skipped, over `true` rendered once in the same context.
    case flag(Bool)
    /// A section is rendered once per element; an empty list counts as false.
    case list([TemplateValue])
    /// A value with names of its own; a section over it looks names up in it first.
    case context(any TemplateContext)
    /// Absent or `nil`: renders nothing and counts as false.
    case missing
}

/// A view model whose names a template can look up.
public protocol TemplateContext: TemplateRepresentable {
    /// The value of `key`, or `.missing` when there is no such name (the lookup then goes on to
    /// the enclosing contexts, as Mustache does).
    func value(forKey key: String) -> TemplateValue
}

/// Anything a lookup can answer with; chosen at compile time for typed view models.
public protocol TemplateRepresentable {
    var templateValue: TemplateValue { get }
}

extension TemplateContext {
    public var templateValue: TemplateValue { .context(self) }
}

extension String: TemplateRepresentable {
    public var templateValue: TemplateValue { .text(self) }
}

extension Int: TemplateRepresentable {
    public var templateValue: TemplateValue { .number(Int64(self)) }
}

extension Int64: TemplateRepresentable {
    public var templateValue: TemplateValue { .number(self) }
}

extension Bool: TemplateRepresentable {
    public var templateValue: TemplateValue { .flag(self) }
}

extension Optional: TemplateRepresentable where Wrapped: TemplateRepresentable {
    public var templateValue: TemplateValue { self?.templateValue ?? .missing }
}

extension Array: TemplateRepresentable where Element: TemplateRepresentable {
    public var templateValue: TemplateValue { .list(map(\.templateValue)) }
}

/// Translation tables: `{{t.key}}` for a key that was not written into the template at load time.
extension Dictionary: TemplateContext, TemplateRepresentable where Key == String, Value == String {
    public func value(forKey key: String) -> TemplateValue {
        self[key].map { .text($0) } ?? .missing
    }
}

extension TemplateValue {
    /// Any value: typed view models answer for themselves; other structs are read by reflection
    /// (pages rendered rarely keep plain models), optionals unwrapped, collections listed, and
    /// anything else shown as its description.
    public init(reflecting value: Any) {
        if let representable = value as? any TemplateRepresentable {
            self = representable.templateValue
            return
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            self = mirror.children.first.map { TemplateValue(reflecting: $0.value) } ?? .missing
        case .collection, .set:
            self = .list(mirror.children.map { TemplateValue(reflecting: $0.value) })
        case .struct, .class:
            self = .context(ReflectedContext(subject: value))
        default:
            self = .text(String(describing: value))
        }
    }

    /// Whether a section over this value is skipped (and an inverted section rendered).
    var isFalsy: Bool {
        switch self {
        case .missing: true
        case .flag(let flag): !flag
        case .list(let items): items.isEmpty
        case .text, .number, .context: false
        }
    }
}

/// A plain struct looked up by its stored properties' names.
struct ReflectedContext: TemplateContext {
    let subject: Any

    func value(forKey key: String) -> TemplateValue {
        for child in Mirror(reflecting: subject).children where child.label == key {
            return TemplateValue(reflecting: child.value)
        }
        return .missing
    }
}
