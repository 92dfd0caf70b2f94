import Foundation
import MissionCatalog

/// One node's claims on the outbox's consumers (DESIGN §10): the node delivers a consumer's
/// events only while it holds its claim, so several `serve` nodes on one database send each
/// event once per consumer in the normal case (the protocol: `OutboxStore.claimConsumer`,
/// `PostgresDatabase+DeliveryClaims.swift`).
///
/// The store's last answer for each consumer is kept for `lease / 3`: a held claim is
/// renewed then, well before it runs out, and a consumer another node holds is tried again
/// then, so a killed node's consumers are taken over within about `lease` of its last
/// renewal. Owned by the outbox dispatcher's actor.
struct ConsumerClaims {
  /// How long a claim lasts without renewal: a killed node's consumers wait this long for
  /// another node. Long enough for a renewal every `lease / 3` to be late twice (a busy
  /// node, a slow database) before the claim lapses; short enough that a takeover is a
  /// matter of seconds.
  static let lease = Duration.seconds(10)

  /// This process among the nodes: its pid and host (as the tracking lease's
  /// `application_name` names it).
  let node = "pid \(getpid()) on \(ProcessInfo.processInfo.hostName)"
  private let database: any OutboxStore
  /// The store's last answer for each consumer, and when it was asked.
  private var answers: [String: (held: Bool, asked: ContinuousClock.Instant)] = [:]

  /// The claims of this process on `database`'s consumers (none yet).
  init(database: any OutboxStore) { self.database = database }

  /// Whether this node holds `consumer`'s claim: the last answer while it is fresher than
  /// `lease / 3`, else the store's (a held claim renewed, another node's tried).
  mutating func holds(_ consumer: String) throws -> Bool {
    if let answer = answers[consumer], answer.asked.duration(to: .now) < Self.lease / 3 {
      return answer.held
    }
    return try renew(consumer)
  }

  /// Claims or renews `consumer` now (before its cursor moves); whether this node holds it.
  mutating func renew(_ consumer: String) throws -> Bool {
    let asked = ContinuousClock.now
    let held = try database.claimConsumer(consumer, node: node, for: Self.lease)
    answers[consumer] = (held, asked)
    return held
  }

  /// Releases every claim this node holds (a clean shutdown: the others need not wait for
  /// the lease to end).
  mutating func releaseAll() throws {
    for (consumer, answer) in answers where answer.held {
      try database.releaseConsumer(consumer, node: node)
    }
    answers = [:]
  }
}
