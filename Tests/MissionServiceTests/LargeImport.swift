import Foundation
import ServiceTestSupport
import Synchronization

/// A `POST /v1/missions` of just under 16 MiB of CSV (some 560,000 missions) in one
/// transaction, sent from a thread of its own: a write that holds the store for seconds.
final class LargeImport: Sendable {
  /// The id of the last mission of the CSV.
  let lastID: String
  private let status = Mutex<Int?>(nil)
  private let done = DispatchSemaphore(value: 0)

  /// Starts sending the import to `server`.
  init(_ server: ServeProcess) throws {
    let (bytes, lastID) = Self.request
    self.lastID = lastID
    let upload = try RawHTTP(port: server.port, timeout: 120)
    Thread { [self] in
      upload.send(bytes)
      let answer = upload.readToEnd()
      status.withLock { $0 = RawHTTP.parse(answer)?.status ?? 0 }
      done.signal()
    }.start()
  }

  /// The request and the id of its last mission, made once for every test that sends it.
  private static let request: (bytes: [UInt8], lastID: String) = {
    var csv = Array("id,lat,lon\n".utf8)
    csv.reserveCapacity(16 << 20)
    var index = 0
    while csv.count < (16 << 20) - 64 {
      let lat = Double(index % 1_000_000) / 1_000_000 * 10 + 55
      csv.append(contentsOf: "big-\(index),\(lat),\(17 + Double(index % 997) / 997)\n".utf8)
      index += 1
    }
    let head =
      "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
      + "Content-Length: \(csv.count)\r\nConnection: close\r\n\r\n"
    return (Array(head.utf8) + csv, "big-\(index - 1)")
  }()

  /// The import's status once answered (0 when cut off), nil while it runs.
  var answered: Int? { status.withLock { $0 } }

  /// Waits until the import is storing, its transaction spilling to the WAL of the
  /// database at `databasePath` (it takes seconds more from there); false if it never did.
  func waitUntilStoring(databasePath: String) -> Bool {
    let wal = databasePath + "-wal"
    func walBytes() -> Int {
      ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int) ?? 0
    }
    let before = walBytes()
    let deadline = Date().addingTimeInterval(120)
    while walBytes() < before + (4 << 20) && Date() < deadline { usleep(20_000) }
    return walBytes() >= before + (4 << 20)
  }

  /// Waits up to `seconds` for the import's answer; its status, or nil if none came.
  func wait(seconds: Double) -> Int? {
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return answered
  }
}
