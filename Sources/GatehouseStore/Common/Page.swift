import Foundation

/// One page of a keyset-paginated listing.
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page, in the listing's order.
    public var items: [Item]
    /// Pass this back as `after:` to get the next page; nil when this was the last page.
    /// Opaque: its format belongs to the backend.
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
