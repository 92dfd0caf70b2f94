import Foundation

/// Runs async work from one of the HTTP server's own threads (not the cooperative pool) and
/// waits for its result there, so that a route can call the engine's actor.
enum AsyncBridge {
  /// The result of `body`, waiting on the calling thread.
  static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        box.result = .success(try await body())
      } catch {
        box.result = .failure(error)
      }
      done.signal()
    }
    done.wait()
    guard let result = box.result else {
      throw ServiceError.internalError("a request ended without a result")
    }
    return try result.get()
  }

  /// Holds a result across the semaphore (written before `signal`, read after `wait`).
  private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
  }
}
