/// A model whose fields live in one shared, immutable box.
///
/// Events travel through async streams, mailboxes and handlers; with the fields boxed each hop
/// moves a pointer and a copy costs one retain, instead of moving a struct of hundreds of bytes
/// and retaining every field. A setter replaces the box (copy-on-write by replacement).
protocol FieldBox {
    associatedtype Fields: Sendable & Hashable
    var storage: IndirectBox<Fields> { get set }
}

extension FieldBox {
    /// Changes fields, copy-on-write.
    mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.value
        change(&fields)
        storage = IndirectBox(fields)
    }
}
