import CommandLineSupport
import Foundation
import MissionCatalog
import MissionTracking
import TextRules

/// `missiontrack workers list|add|show|remove`: the workers of the database (DESIGN §7),
/// each tracked only during its own mission.
enum WorkersCommand: Command {
  static let name = "workers"
  static let summary = "List, add, show and remove workers (people or rigs with a receiver)"
  static let handlesHelp = true
  static let help = """
    NAME
      missiontrack workers - the workers of the database

    SYNOPSIS
      missiontrack workers list [--json] [--db PATH|URI]
      missiontrack workers add W [--name N] [--device PROTOCOL:ID [--secret-file F]]...
                               [--db PATH|URI]
      missiontrack workers show [--json] [--db PATH|URI] [--] W
      missiontrack workers remove [--db PATH|URI] [--] W

    DESCRIPTION
      A worker is a person or rig that carries a receiver. A mission gets its worker when
      it is accepted ('missiontrack missions accept ID --worker W'); each worker has at
      most one tracked (active or arrived) mission. The worker 'local', the rig's own
      receiver, always exists: commands that name no worker use it.

      Worker ids follow the rules of mission ids: compared in Unicode NFC, not blank, no
      control characters, at most 200 bytes of UTF-8.

      list    Every worker by id: a table (id, name, tracked mission, devices) or, with
              --json, one object per line:
                {"id","name","tracked_mission","devices":[{"protocol","device_id",
                 "has_secret"}]}
              (name omitted when none, tracked_mission null when none; secrets are never
              printed).
      add     Creates worker W, or replaces its name and devices. Each --device registers
              a phone or tracker that feeds W through /v1/ingest/PROTOCOL (protocols:
              \(WorkerDevice.IngestProtocol.allCases.map(\.rawValue).joined(separator: ", ")));
              a --secret-file after it holds the secret the device presents (its first
              line). A device registered to another worker is refused.
      show    One worker, as a list line.
      remove  Removes W and its devices; the missions it accepted keep its id. Refused
              while W has a tracked mission (named), and for 'local'.

    OPTIONS
      --name N                 A name for people.
      --device PROTOCOL:ID     A device, e.g. owntracks:bo/phone (repeatable).
      --secret-file F          The secret of the --device before it.
      --json                   JSON lines instead of text.
      --db PATH|URI            The database (default missiontrack.sqlite), or a PostgreSQL
                               URI (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success, 1 unknown worker, worker with a tracked mission, taken device or no
      database, 64 usage error (also an invalid worker id).

    EXAMPLES
      missiontrack workers add bo --name "Bo Ek" --device owntracks:bo/phone
      missiontrack missions accept sig-101 --worker bo
      missiontrack workers list --json
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    if arguments.wantsHelp() {
      console.out(help)
      return 0
    }
    guard let word = try arguments.positionalsPrefix(1).first else {
      throw CLIError.usage("which sub-command? (list, add, show, remove; see --help)")
    }
    switch word {
    case "list":
      let json = arguments.flag("--json")
      let db = try DatabaseOption(&arguments)
      try arguments.finish()
      let database = try db.openCatalog(readOnly: true)
      let (workers, tracked) = try await CLIError.asyncRuntime {
        (try await database.workers(), try await database.trackedMissionIDs())
      }
      show(workers, tracked: tracked, json: json, console: console)
      console.err("\(workers.count) worker\(workers.count == 1 ? "" : "s")")
    case "show":
      let json = arguments.flag("--json")
      let db = try DatabaseOption(&arguments)
      let id = try arguments.workerID()
      let database = try db.openCatalog(readOnly: true)
      let (worker, tracked) = try await CLIError.asyncRuntime {
        (try await database.worker(id), try await database.trackedMissionIDs())
      }
      guard let worker else { throw CLIError.failure("no worker with id '\(id)'") }
      show([worker], tracked: tracked, json: json, console: console)
    case "add":
      let name = try arguments.option("--name")
      let devices = try self.devices(&arguments)
      let db = try DatabaseOption(&arguments)
      let id = try arguments.workerID()
      let database = try db.openCatalog(mustExist: false)
      let existed = try await CLIError.asyncRuntime {
        let existed = try await database.worker(id) != nil
        try await database.putWorker(Worker(id: id, name: name, devices: devices))
        try await database.close()
        return existed
      }
      console.err("worker \(id.terminalSafe) \(existed ? "replaced" : "added")")
    case "remove":
      let db = try DatabaseOption(&arguments)
      let id = try arguments.workerID()
      let database = try db.openCatalog()
      let removed = try await CLIError.asyncRuntime {
        let removed = try await database.removeWorker(id)
        try await database.close()
        return removed
      }
      guard removed else { throw CLIError.failure("no worker with id '\(id)'") }
      console.err("worker \(id.terminalSafe) removed")
    default:
      throw CLIError.usage("unknown sub-command '\(word)' (see 'missiontrack workers --help')")
    }
    return 0
  }

  /// The `--device PROTOCOL:ID [--secret-file F]` groups, secrets read from their files.
  private static func devices(_ arguments: inout ArgumentList) throws(CLIError) -> [WorkerDevice] {
    let protocols = WorkerDevice.IngestProtocol.allCases.map(\.rawValue).joined(separator: ", ")
    return try arguments.optionGroups("--device", followedBy: "--secret-file").map {
      (value, secretFile) throws(CLIError) in
      guard let colon = value.firstIndex(of: ":"),
        let kind = WorkerDevice.IngestProtocol(rawValue: String(value[..<colon]))
      else {
        throw .usage(
          "--device expects PROTOCOL:ID with PROTOCOL one of \(protocols), got "
            + "'\(oneLine(value, limit: 80))'")
      }
      let deviceID = String(value[value.index(after: colon)...])
      if let problem = Identifier.problem(with: deviceID) {
        throw .usage("invalid device id '\(oneLine(deviceID, limit: 64))': \(problem)")
      }
      return WorkerDevice(
        ingestProtocol: kind, deviceID: deviceID, secret: try secretFile.map(readSecret))
    }
  }

  /// The first line of secret file `path`, trimmed.
  /// - Throws: `CLIError.failure` when it cannot be read or the line is empty.
  static func readSecret(_ path: String) throws(CLIError) -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .failure("cannot read the secret file \(path.terminalSafe)")
    }
    let line = String(decoding: data, as: UTF8.self)
      .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first
      .map(String.init)?.trimmingCharacters(in: .whitespaces)
    guard let line, !line.isEmpty else {
      throw .failure("the secret file \(path.terminalSafe) is empty")
    }
    return line
  }

  /// Prints `workers` as a table or as JSON lines.
  private static func show(
    _ workers: [Worker], tracked: [String: String], json: Bool, console: Console
  ) {
    if json {
      for worker in workers {
        var object = JSONObjectWriter()
        object.add("id", worker.id)
        object.addIfPresent("name", worker.name)
        if let mission = tracked[worker.id] {
          object.add("tracked_mission", mission)
        } else {
          object.addRaw("tracked_mission", json: "null")
        }
        object.addRaw("devices", json: WorkerDevice.publicJSONArray(worker.devices))
        console.out(object.result)
      }
      return
    }
    var table = TextTable(header: ["ID", "NAME", "TRACKED", "DEVICES"])
    for worker in workers {
      table.rows.append([
        worker.id, worker.name ?? "-", tracked[worker.id] ?? "-",
        worker.devices.isEmpty
          ? "-"
          : worker.devices.map { "\($0.ingestProtocol.rawValue):\($0.deviceID)" }
            .joined(separator: " "),
      ])
    }
    for line in table.lines { console.out(line) }
  }
}
