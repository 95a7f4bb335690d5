import Foundation

/// A write a store refused because a row with the same unique key is kept already (a name or
/// an address taken, also when two requests race for it): what the backend's own
/// unique-constraint error becomes. Thrown inside the transaction, it rolls it back like any
/// other error; the service says what was taken.
struct DuplicateKey: Error {}
