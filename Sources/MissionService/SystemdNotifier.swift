import Foundation

/// systemd's notify protocol (`sd_notify(3)`): datagrams such as `READY=1` or `WATCHDOG=1`
/// to the unix socket named by `NOTIFY_SOCKET` (a leading `@` names an abstract socket).
/// Written here because the protocol is one `sendto`; no libsystemd is needed.
package struct SystemdNotifier: Sendable {
  private let socketPath: String
  /// Half of this is how often `WATCHDOG=1` is due (`WATCHDOG_USEC`), if the unit has a
  /// watchdog.
  package let watchdogInterval: Duration?

  /// The notifier the environment asks for, or nil when not started by systemd with
  /// `Type=notify` (no `NOTIFY_SOCKET`).
  package static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  )
    -> SystemdNotifier?
  {
    guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
    var interval: Duration?
    if let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
      // WATCHDOG_PID, when set, names the process the watchdog is for.
      let pid = environment["WATCHDOG_PID"].flatMap { Int32($0) }
      if pid == nil || pid == getpid() { interval = .microseconds(micros) }
    }
    return SystemdNotifier(socketPath: path, watchdogInterval: interval)
  }

  /// Sends `state` (newline-separated `KEY=VALUE` assignments); false when it could not be
  /// sent.
  @discardableResult
  package func send(_ state: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var path = Array(socketPath.utf8)
    if path.first == UInt8(ascii: "@") { path[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: path)
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
    let bytes = Array(state.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bytes.withUnsafeBytes { buffer in
          sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
        }
      }
    }
    return sent == bytes.count
  }
}
