import CommandLineSupport
import MissionStore
import MissionTracking

extension CLIError {
  /// Runs `body`, turning store and lifecycle errors into one-line runtime failures (exit 1)
  /// and passing `CLIError`s through.
  static func runtime<T>(_ body: () throws -> T) throws(CLIError) -> T {
    do {
      return try body()
    } catch let error as CLIError {
      throw error
    } catch let error as StoreError {
      throw .failure(error.description)
    } catch let error as TrackingError {
      throw .failure(error.description)
    } catch {
      throw .failure("\(error)")
    }
  }
}
