import CommandLineSupport
import Foundation
import MissionCatalog
import MissionService
import MissionTracking
import TextRules

/// `missiontrack webhooks list|add|remove|deliveries`: the webhooks of the database
/// (DESIGN §9), as `/v1/webhooks` shows them. A running `serve` on the same database picks
/// up an added or removed webhook within a second. Runs on SQLite and on PostgreSQL
/// (`OutboxStore`) with the same output.
enum WebhooksCommand: Command {
  static let name = "webhooks"
  static let summary = "List, add and remove webhooks; show failed and dead deliveries"
  static let handlesHelp = true
  static let help = """
    NAME
      missiontrack webhooks - where serve POSTs events

    SYNOPSIS
      missiontrack webhooks list [--db PATH|URI]
      missiontrack webhooks add URL [--event TYPE]... [--mission ID] [--worker W]
                                [--db PATH|URI]
      missiontrack webhooks remove ID [--db PATH|URI]
      missiontrack webhooks deliveries ID [--state failed|dead] [--db PATH|URI]

    DESCRIPTION
      'serve' POSTs every stored event that matches a webhook's filter to its URL, signed
      as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), retried for
      about three days, per mission in order. 'add' prints the new webhook as one JSON line
      with its secret (whsec_…), the only time the secret is shown. 'list' prints one JSON
      line per webhook; 'deliveries' one per failed (retried) or dead delivery.

    OPTIONS
      --event TYPE    Only events of this type (fix, enter, dwell, exit, crossed, state,
                      source, rejected, mission_nearby); repeatable. Default: every type.
      --mission ID    Only this mission's events.
      --worker W      Only this worker's events.
      --state S       failed (default) or dead.
      --db PATH|URI   The database (default missiontrack.sqlite), or a PostgreSQL URI
                      (postgresql://USER@HOST:PORT/DB).

    EXAMPLES
      missiontrack webhooks add https://backend.example/hooks --event state --event enter
      missiontrack webhooks deliveries wh_0123456789abcdef --state dead
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    if arguments.wantsHelp() {
      console.out(help)
      return 0
    }
    guard let word = try arguments.positionalsPrefix(1).first else {
      throw CLIError.usage("which sub-command? (list, add, remove, deliveries; see --help)")
    }
    switch word {
    case "list":
      let db = try DatabaseOption(&arguments)
      try arguments.finish()
      let database = try db.openCatalog(readOnly: true)
      let webhooks = try await CLIError.asyncRuntime { try database.webhooks() }
      for webhook in webhooks {
        console.out(MissionService.webhookJSON(webhook, showingSecret: false))
      }
      console.err("\(webhooks.count) webhook\(webhooks.count == 1 ? "" : "s")")
    case "add":
      let events = try arguments.options("--event")
      let mission = try arguments.option("--mission")
      let worker = try arguments.option("--worker")
      let db = try DatabaseOption(&arguments)
      let urls = try arguments.positionals()
      guard urls.count == 1 else { throw CLIError.usage("webhooks add takes one URL") }
      let database = try db.openCatalog(mustExist: false)
      let webhook = try await CLIError.asyncRuntime {
        let webhook = Webhook(
          id: Webhook.makeID(), url: urls[0], eventTypes: events.isEmpty ? nil : events,
          missionID: mission, workerID: worker, secret: try MissionService.makeWebhookSecret())
        try database.addWebhook(webhook)
        try await database.close()
        return webhook
      }
      console.out(MissionService.webhookJSON(webhook, showingSecret: true))
    case "remove":
      let db = try DatabaseOption(&arguments)
      let id = try webhookID(&arguments)
      let database = try db.openCatalog()
      let removed = try await CLIError.asyncRuntime {
        let removed = try database.removeWebhook(id)
        try await database.close()
        return removed
      }
      guard removed else { throw CLIError.failure("no webhook with id '\(id.terminalSafe)'") }
      console.err("webhook \(id.terminalSafe) removed")
    case "deliveries":
      let text = try arguments.option("--state") ?? "failed"
      guard let state = WebhookDeliveryRecord.State(rawValue: text), state != .pending else {
        throw CLIError.usage("--state expects failed or dead, got '\(text.terminalSafe)'")
      }
      let db = try DatabaseOption(&arguments)
      let id = try webhookID(&arguments)
      let database = try db.openCatalog(readOnly: true)
      let records = try await CLIError.asyncRuntime { () async throws -> [WebhookDeliveryRecord] in
        guard try database.webhook(id) != nil else {
          throw WebhookRefusal.webhookNotFound(id)
        }
        return try database.deliveries(ofWebhook: id, state: state, limit: 1_000)
      }
      for record in records {
        var line = JSONObjectWriter()
        line.add("seq", Int(record.sequence))
        line.add("state", record.state.rawValue)
        line.add("attempts", record.attempts)
        line.addIfPresent("last_error", record.lastError)
        console.out(line.result)
      }
      console.err("\(records.count) \(state.rawValue) deliver\(records.count == 1 ? "y" : "ies")")
    default:
      throw CLIError.usage("unknown sub-command '\(word)' (see 'missiontrack webhooks --help')")
    }
    return 0
  }

  /// The one positional: a webhook id.
  private static func webhookID(_ arguments: inout ArgumentList) throws(CLIError) -> String {
    let ids = try arguments.positionals()
    guard ids.count == 1 else { throw .usage("expected one webhook id") }
    return ids[0]
  }
}
