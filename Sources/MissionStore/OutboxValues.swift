import MissionCatalog

// The outbox's values live in MissionCatalog, shared with the PostgreSQL store
// (`OutboxStore`); these names keep every module that imports MissionStore alone (the
// service, the CLI) compiling unchanged. A typealias names the same type, so a file that
// imports both modules sees no ambiguity.

/// A webhook subscription (`MissionCatalog.Webhook`).
package typealias Webhook = MissionCatalog.Webhook
/// A failed or dead delivery (`MissionCatalog.WebhookDeliveryRecord`).
package typealias WebhookDeliveryRecord = MissionCatalog.WebhookDeliveryRecord
/// An event of the log with its `seq` (`MissionCatalog.StoredEvent`).
package typealias StoredEvent = MissionCatalog.StoredEvent
