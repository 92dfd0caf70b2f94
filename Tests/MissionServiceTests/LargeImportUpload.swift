import Foundation
import ServiceTestSupport
import Synchronization

/// A `LargeMissionCSV` posted to `/v1/missions` from another thread, for tests that stop the
/// service while it is imported.
final class LargeImportUpload: Sendable {
  /// The first and the last mission id of the body.
  let ids: [String]
  private let status = Mutex<Int?>(nil)
  private let sent = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)

  /// Starts the upload of `LargeMissionCSV(extraColumns:)` to `server`.
  init(to server: ServeProcess, extraColumns: Int = 0) throws {
    let csv = LargeMissionCSV(extraColumns: extraColumns)
    ids = csv.ids
    let bytes =
      Array(
        ("POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Content-Length: \(csv.bytes.count)\r\nConnection: close\r\n\r\n").utf8) + csv.bytes
    // The answer comes only after the signal, which can be well over 30 s after the upload
    // on loaded cores, so the client waits long.
    let upload = try RawHTTP(port: server.port, timeout: 300)
    Thread { [self] in
      upload.send(bytes)
      sent.signal()
      let answer = upload.readToEnd()
      status.withLock { $0 = RawHTTP.parse(answer)?.status ?? 0 }
      done.signal()
    }.start()
  }

  /// The status of the answer (0 when the connection was cut off); nil while none came.
  var answer: Int? { status.withLock { $0 } }

  /// Whether the whole body was handed to the socket within `seconds`.
  func waitUntilSent(seconds: Double) -> Bool {
    sent.wait(timeout: .now() + seconds) == .success
  }

  /// Whether the answer came within `seconds`.
  func waitForAnswer(seconds: Double) -> Bool {
    done.wait(timeout: .now() + seconds) == .success
  }
}
