import Foundation
import MissionCatalog
import MissionStore
import PostgresStore
import PostgresTestSupport
import Testing

/// `missiontrack webhooks list|add|remove|deliveries` with `--db postgresql://…`: the same
/// stdout, stderr and exit status as on SQLite, command by command, hostile values
/// included. The only legitimate differences are what each run makes at random or from
/// the clock: a webhook's id (`wh_` + 16 hex digits), its secret (shown once, by `add`)
/// and its creation time; they are checked for their form and replaced by placeholders
/// before the comparison.
@Suite(.binaryBuilt, .postgresInstalled)
struct WebhooksPostgresCommandTests {
  typealias Run = PostgresCommandTests.Run

  /// One store's side of a sequence: its `--db` value and the ids its `add`s printed.
  struct Side {
    var db: String
    var ids: [String] = []

    /// `argument` with `{n}` replaced by the id of this store's n-th added webhook.
    func resolved(_ argument: String) -> String {
      var argument = argument
      for (index, id) in ids.enumerated() {
        argument = argument.replacingOccurrences(of: "{\(index + 1)}", with: id)
      }
      return argument
    }

    /// `run` with this store's ids, secrets and creation times replaced by placeholders,
    /// after checking their form.
    func normalized(_ run: Run) -> Run {
      var run = run
      for (index, id) in ids.enumerated() {
        run.out = run.out.replacingOccurrences(of: id, with: "wh_ID\(index + 1)")
        run.err = run.err.replacingOccurrences(of: id, with: "wh_ID\(index + 1)")
      }
      for match in run.out.matches(of: /"secret":"(whsec_[^"]*)"/) {
        let secret = String(match.output.1)
        #expect(Data(base64Encoded: String(secret.dropFirst(6))) != nil, "\(secret)")
      }
      run.out = run.out.replacing(/"secret":"whsec_[^"]*"/, with: #""secret":"whsec_SECRET""#)
      for match in run.out.matches(of: /"created":"([^"]*)"/) {
        #expect(match.output.1.hasSuffix("Z") && match.output.1.count >= 20, "\(match.output.1)")
      }
      run.out = run.out.replacing(/"created":"[^"]*"/, with: #""created":"CREATED""#)
      return run
    }

    /// Remembers the id an `add` printed.
    mutating func noteAdded(_ run: Run) {
      guard run.status == 0, let match = run.out.firstMatch(of: /"id":"(wh_[0-9a-f]{16})"/)
      else { return }
      ids.append(String(match.output.1))
    }
  }

  /// Runs `commands` on a fresh SQLite file and a fresh PostgreSQL database holding the
  /// demo missions, and expects equal runs after normalisation, command by command.
  /// `between` runs after the commands before index `at` on both stores.
  /// - Returns: the normalised SQLite runs.
  static func expectSameSequence(
    _ commands: [[String]], between: (at: Int, body: (Side, Side) async throws -> Void)? = nil
  ) async throws -> [Run] {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    var sqlite = Side(db: box.databasePath)
    var postgres = Side(db: uri)
    for side in [sqlite, postgres] {
      let imported = try PostgresCommandTests.run(
        box, ["missions", "import", CLISandbox.demoMissions, "--db", side.db])
      #expect(imported.status == 0, "\(imported)")
    }
    var runs: [Run] = []
    for (index, command) in commands.enumerated() {
      if let between, between.at == index { try await between.body(sqlite, postgres) }
      var results: [Run] = []
      for side in [sqlite, postgres] {
        let run = try PostgresCommandTests.run(
          box, command.map(side.resolved) + ["--db", side.db])
        results.append(run)
      }
      if command.starts(with: ["webhooks", "add"]) {
        sqlite.noteAdded(results[0])
        postgres.noteAdded(results[1])
      }
      let (left, right) = (sqlite.normalized(results[0]), postgres.normalized(results[1]))
      // Byte for byte: `==` on strings would take NFD and NFC text as equal.
      #expect(
        right.status == left.status && Array(right.out.utf8) == Array(left.out.utf8)
          && Array(right.err.utf8) == Array(left.err.utf8),
        "\(command.joined(separator: " ")): \(right) vs \(left)")
      runs.append(left)
    }
    return runs
  }

  @Test func webhooksCommandsAndTheirRefusalsPrintTheSameOnPostgreSQLAsOnSQLite() async throws {
    let longURL = "https://backend.example/" + String(repeating: "a", count: 10_000)
    let commands: [[String]] = [
      ["webhooks", "list"],
      ["webhooks", "add", "https://backend.example/hooks", "--event", "state", "--event", "enter"],
      // The mission id in NFD is stored in NFC.
      [
        "webhooks", "add", "http://127.0.0.1:8080/x", "--mission", "e\u{301}-1", "--worker", "bo",
      ],
      ["webhooks", "add", longURL, "--event", "mission_nearby"],
      // Refused: not http(s), no host, not a URL, empty, unknown or missing event types, no
      // URL or two.
      ["webhooks", "add", "ftp://backend.example/hooks"],
      ["webhooks", "add", "http://"],
      ["webhooks", "add", "not a url"],
      ["webhooks", "add", ""],
      // Accepted by both stores (URLComponents takes it); printed JSON-escaped.
      ["webhooks", "add", "http://backend.example/\u{1}\u{1b}[31m"],
      ["webhooks", "add", "http://backend.example/", "--event", "teleport"],
      ["webhooks", "add", "http://backend.example/", "--event"],
      ["webhooks", "add"],
      ["webhooks", "add", "http://a.example/", "http://b.example/"],
      ["webhooks", "list"],
      ["webhooks", "deliveries", "{2}"],
      ["webhooks", "deliveries", "{2}", "--state", "dead"],
      // Refused: unknown states and ids.
      ["webhooks", "deliveries", "{2}", "--state", "pending"],
      ["webhooks", "deliveries", "{2}", "--state", "DEAD"],
      ["webhooks", "deliveries", "{2}", "--state", "\u{1b}[2J"],
      ["webhooks", "deliveries", "wh_0000000000000000"],
      ["webhooks", "deliveries", String(repeating: "x", count: 5_000)],
      ["webhooks", "deliveries"],
      ["webhooks", "remove", "{1}"],
      ["webhooks", "remove", "{1}"],
      ["webhooks", "remove", "wh_\u{1b}[31mred"],
      ["webhooks", "remove"],
      ["webhooks", "remove", "{2}", "{3}"],
      ["webhooks", "bogus"],
      ["webhooks"],
      ["webhooks", "list"],
    ]
    let runs = try await Self.expectSameSequence(commands)
    #expect(
      runs.map(\.status) == [
        0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 64, 64, 64, 0, 0, 0, 64, 64, 64, 1, 1, 64, 0, 1, 1, 64, 64,
        64, 64, 0,
      ])
    #expect(runs[0].err == "0 webhooks\n")
    #expect(runs[1].out.contains(#""secret":"whsec_SECRET""#))
    #expect(runs[4].err.contains("invalid webhook: url must be an absolute http:// or https://"))
    #expect(runs[13].err == "4 webhooks\n" && !runs[13].out.contains("secret"))
    #expect(!runs[13].out.contains("\u{1b}") && runs[13].out.contains(#"\u001b[31m"#))
    // Listed as stored: the mission id in NFC (`add` echoes it as typed).
    #expect(runs[13].out.utf8.contains(Array(#""mission_id":"\#u{e9}-1""#.utf8)))
    #expect(runs[14].err == "0 failed deliveries\n")
    #expect(runs[19].err.contains("no webhook with id 'wh_0000000000000000'"))
    #expect(runs[22].err.contains("webhook wh_ID1 removed"))
    #expect(runs[29].err == "3 webhooks\n")
  }

  @Test func deliveriesOfAWebhookPrintTheSameOnPostgreSQLAsOnSQLite() async throws {
    let commands: [[String]] = [
      ["webhooks", "add", "https://backend.example/hooks"],
      ["webhooks", "deliveries", "{1}"],
      ["webhooks", "deliveries", "{1}", "--state", "failed"],
      ["webhooks", "deliveries", "{1}", "--state", "dead"],
      ["webhooks", "remove", "{1}"],
      ["webhooks", "deliveries", "{1}", "--state", "dead"],
    ]
    // The failures a `serve` records, written through each store between the add and the
    // listings.
    let failures: [(seq: Int64, attempts: Int, error: String, retry: Date?)] = [
      (7, 2, "HTTP 500", Date(timeIntervalSince1970: 1_780_000_300)),
      (3, 1, "connection refused\n\u{1b}[31mby peer", Date(timeIntervalSince1970: 1_780_000_000)),
      (4, 9, String(repeating: "\u{e9}", count: 700), nil),
      (2, 9, "timed out after 10 s", nil),
    ]
    let runs = try await Self.expectSameSequence(
      commands,
      between: (
        at: 1,
        body: { sqlite, postgres in
          let file = try MissionDatabase(path: sqlite.db)
          let server = try PostgresDatabase(uri: postgres.db)
          for failure in failures {
            try file.noteDeliveryFailure(
              webhook: sqlite.ids[0], sequence: failure.seq, attempts: failure.attempts,
              error: failure.error, nextAttempt: failure.retry)
            try server.noteDeliveryFailure(
              webhook: postgres.ids[0], sequence: failure.seq, attempts: failure.attempts,
              error: failure.error, nextAttempt: failure.retry)
          }
          try file.close()
          try server.close()
        }
      ))
    #expect(runs.map(\.status) == [0, 0, 0, 0, 0, 1])
    #expect(runs[1].err == "2 failed deliveries\n" && runs[1] == runs[2])
    #expect(runs[1].out.hasPrefix(#"{"seq":3,"state":"failed","attempts":1,"last_error":"#))
    #expect(runs[3].err == "2 dead deliveries\n")
    #expect(runs[3].out.hasPrefix(#"{"seq":2,"state":"dead","attempts":9"#))
    #expect(runs[5].err.contains("no webhook with id 'wh_ID1'"))
  }
}
