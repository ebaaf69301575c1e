/// A button on an attachment (giphy's Send / Shuffle / Cancel).
public struct AttachmentAction: Codable, Hashable, Sendable {
    /// The form field the action sets (`image_action`).
    public var name: String
    /// The label.
    public var text: String?
    /// `primary` or `default`.
    public var style: String?
    /// `button`.
    public var type: String?
    /// The value sent when chosen (`send`, `shuffle`, `cancel`).
    public var value: String?

    /// An action.
    public init(name: String, text: String? = nil, style: String? = nil, type: String? = nil, value: String? = nil) {
        self.name = name
        self.text = text
        self.style = style
        self.type = type
        self.value = value
    }
}
