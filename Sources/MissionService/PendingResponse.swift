import Foundation

/// A response a route gives later, from another thread: what an ingest route returns at
/// once, so that `HTTPServer` suspends the connection instead of holding its thread while
/// the engine decides the request with many others (`IngestWriter`).
///
/// It is given once (`fulfil`); its one reader is called with it (`whenReady`) or waits for
/// it (`wait`). Thread-safe: the state sits behind a lock, and the reader is called outside
/// it.
final class PendingResponse: @unchecked Sendable {
  private let lock = NSLock()
  /// Guarded by `lock`: the response once given.
  private var response: HTTPResponse?
  /// Guarded by `lock`: the reader waiting for the response, called once when it comes.
  private var reader: (@Sendable (HTTPResponse) -> Void)?

  /// A response still to come.
  init() {}

  /// Gives the response: its reader is called with it now, or when it asks. A second call
  /// changes nothing (the first answer is the one sent).
  func fulfil(_ response: HTTPResponse) {
    let reader = lock.withLock { () -> (@Sendable (HTTPResponse) -> Void)? in
      guard self.response == nil else { return nil }
      self.response = response
      defer { self.reader = nil }
      return self.reader
    }
    reader?(response)
  }

  /// Calls `reader` once with the response: on this thread at once when it is given
  /// already, else on the thread that gives it. One reader only.
  func whenReady(_ reader: @escaping @Sendable (HTTPResponse) -> Void) {
    let ready = lock.withLock { () -> HTTPResponse? in
      if response == nil { self.reader = reader }
      return response
    }
    if let ready { reader(ready) }
  }

  /// The response, waiting on this thread until it is given (a thread of its own, never
  /// one of the cooperative pool: the engine that gives it runs there).
  func wait() -> HTTPResponse {
    let box = Box()
    whenReady { response in
      box.response = response
      box.done.signal()
    }
    box.done.wait()
    return box.response ?? ServiceError.internalError("a request ended without a response").response
  }

  /// Holds the response across the semaphore (written before `signal`, read after `wait`).
  private final class Box: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var response: HTTPResponse?
  }
}
