import MissionCatalog

/// An event read back from the outbox with its global sequence number: the stores' shared
/// `StoredEvent` (this name stays for the code written against it).
package typealias PostgresStoredEvent = StoredEvent
