import CommandLineSupport
import MissionFiles

extension ArgumentList {
  /// The one positional argument a command works on (a mission id), normalised with
  /// `MissionID.normalized` so NFC and NFD spellings name the same mission.
  /// - Throws: `CLIError.usage` when there is none or more than one.
  package mutating func missionID() throws(CLIError) -> String {
    let ids = try positionals()
    guard ids.count == 1, let id = ids.first else {
      throw .usage(ids.isEmpty ? "which mission ID?" : "one mission ID only")
    }
    return MissionID.normalized(id)
  }
}
