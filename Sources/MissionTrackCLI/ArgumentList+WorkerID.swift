import CommandLineSupport
import MissionTracking
import TextRules

extension ArgumentList {
  /// The worker named by `--worker W` (default `local`, the rig's own receiver), in NFC.
  /// - Throws: `CLIError.usage` for an id against `Identifier` (named, escaped, cut short).
  mutating func workerOption() throws(CLIError) -> String {
    guard let id = try option("--worker") else { return Worker.localID }
    return try Self.checkedWorkerID(id)
  }

  /// The one positional argument a `workers` command works on: a worker id, in NFC.
  /// - Throws: `CLIError.usage` when there is none, more than one, or it breaks `Identifier`.
  mutating func workerID() throws(CLIError) -> String {
    let ids = try positionals()
    guard ids.count == 1, let id = ids.first else {
      throw .usage(ids.isEmpty ? "which worker ID?" : "one worker ID only")
    }
    return try Self.checkedWorkerID(id)
  }

  /// `id` in NFC when it is a valid worker id (the rule of mission ids, DESIGN §7).
  static func checkedWorkerID(_ id: String) throws(CLIError) -> String {
    if let problem = Identifier.problem(with: id) {
      throw .usage("invalid worker id '\(oneLine(id, limit: 64))': \(problem)")
    }
    return Identifier.normalized(id)
  }
}
