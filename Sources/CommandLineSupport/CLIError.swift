/// Why a command failed: the exit status and the one line printed on standard error.
package enum CLIError: Error, Sendable, Equatable {
  /// The command line was wrong (exit status 64, EX_USAGE).
  case usage(String)
  /// The command could not do its work (exit status 1).
  case failure(String)

  /// The process exit status for this error.
  package var exitStatus: Int32 {
    switch self {
    case .usage: 64
    case .failure: 1
    }
  }

  /// The message, without the program name.
  package var message: String {
    switch self {
    case .usage(let text), .failure(let text): text
    }
  }
}
