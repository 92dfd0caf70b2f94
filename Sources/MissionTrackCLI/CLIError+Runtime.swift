import CommandLineSupport
import MissionStore
import MissionTracking

extension CLIError {
  /// Runs `body`, turning store and lifecycle errors into one-line runtime failures (exit 1)
  /// and passing `CLIError`s through.
  static func runtime<T>(_ body: () throws -> T) throws(CLIError) -> T {
    do {
      return try body()
    } catch {
      throw runtimeFailure(error)
    }
  }

  /// `error` as `runtime(_:)` reports it: a `CLIError` as it is, any other one line.
  private static func runtimeFailure(_ error: any Error) -> CLIError {
    switch error {
    case let error as CLIError: error
    case let error as StoreError: .failure(error.description)
    case let error as TrackingError: .failure(error.description)
    default: .failure("\(error)")
    }
  }

  /// `runtime(_:)` for a body that awaits (a store that may be PostgreSQL).
  static func asyncRuntime<T>(_ body: () async throws -> T) async throws(CLIError) -> T {
    do {
      return try await body()
    } catch {
      throw runtimeFailure(error)
    }
  }
}
