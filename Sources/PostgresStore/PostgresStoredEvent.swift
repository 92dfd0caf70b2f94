import MissionCatalog

/// An event read back from the outbox with its global sequence number: the one
/// `StoredEvent` of both stores (its `jsonLine` is the event's own).
package typealias PostgresStoredEvent = StoredEvent
