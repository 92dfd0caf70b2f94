import TextRules

/// A webhook write or look-up that a store refuses, with the one line that says why: the
/// text of both stores' refusals in one place (the SQLite store throws them as
/// `StoreError.invalidWebhook` and `.webhookNotFound`, whose descriptions are these).
package enum WebhookRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  /// An invalid webhook (its URL, filter or id: `Webhook.storageProblem`) and why. Nothing
  /// was stored.
  case invalidWebhook(String)
  /// No webhook has this id.
  case webhookNotFound(String)

  /// One line naming the problem or the id.
  package var description: String {
    switch self {
    case .invalidWebhook(let reason): "invalid webhook: \(oneLine(reason))"
    case .webhookNotFound(let id): "no webhook with id '\(oneLine(id, limit: 64))'"
    }
  }
}
