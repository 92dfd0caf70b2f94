import CommandLineSupport
import MissionTracking

extension MissionState {
  /// Parses a command-line state name (any case).
  /// - Throws: `CLIError.usage` listing the states when `text` is none of them.
  static func parse(_ text: String, flag: String = "--state") throws(CLIError) -> MissionState {
    guard let state = MissionState(rawValue: text.lowercased()) else {
      throw .usage(
        "\(flag) expects one of "
          + MissionState.allCases.map(\.rawValue).joined(separator: ", ") + ", got '\(text)'")
    }
    return state
  }
}
