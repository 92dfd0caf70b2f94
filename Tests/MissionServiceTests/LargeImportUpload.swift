import Foundation
import ServiceTestSupport
import Synchronization

/// A CSV import of just under 16 MiB (the body limit) posted to `/v1/missions` from another
/// thread, for tests that stop the service while it is imported.
final class LargeImportUpload: Sendable {
  /// The first and the last mission id of the body.
  let ids: [String]
  private let status = Mutex<Int?>(nil)
  private let sent = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)

  /// Starts the upload to `server`: missions `big-0`, `big-1`, … with `extraColumns` empty
  /// columns each (columns a row is split into, each with a field of its own).
  init(to server: ServeProcess, extraColumns: Int = 0) throws {
    let extra = (0..<extraColumns).map { ",c\($0)" }.joined()
    let empty = String(repeating: ",", count: extraColumns)
    var csv = Array("id,lat,lon\(extra)\n".utf8)
    csv.reserveCapacity(16 << 20)
    var index = 0
    while csv.count < (16 << 20) - 64 - extraColumns {
      let lat = Double(index % 1_000_000) / 1_000_000 * 10 + 55
      csv.append(contentsOf: "big-\(index),\(lat),\(17 + Double(index % 997) / 997)\(empty)\n".utf8)
      index += 1
    }
    ids = ["big-0", "big-\(index - 1)"]
    let bytes =
      Array(
        ("POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Content-Length: \(csv.count)\r\nConnection: close\r\n\r\n").utf8) + csv
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
