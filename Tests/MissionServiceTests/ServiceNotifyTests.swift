import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// systemd's notify protocol: `READY=1` once serving, `WATCHDOG=1` only while the health
  /// check passes (here: not while another process holds the database's write lock), and
  /// `/healthz` 503 with the reason then.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceNotifyTests {
    /// A unix datagram socket standing in for systemd's notify socket.
    final class NotifySocket: @unchecked Sendable {
      let path: String
      let fd: Int32
      private let lock = NSLock()
      private var messages: [(Date, String)] = []

      init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
          }
        }
        guard fd >= 0, bound == 0 else {
          throw ServeProcess.Failure(description: "cannot bind \(path): errno \(errno)")
        }
        var time = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        Thread {
          var buffer = [UInt8](repeating: 0, count: 4096)
          while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if count <= 0 { return }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            self.lock.withLock { self.messages.append((Date(), text)) }
          }
        }.start()
      }

      deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
      }

      var received: [(time: Date, text: String)] { lock.withLock { messages } }
    }

    @Test func readyThenWatchdogOnlyWhileHealthy() throws {
      let sandbox = try ServiceSandbox()
      let notify = try NotifySocket(path: sandbox.path("notify.sock"))
      let server = try ServeProcess(
        ["--db", sandbox.databasePath], in: sandbox.directory,
        environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
      defer { server.stop() }
      // Two watchdog pings (every 0.5 s with WATCHDOG_USEC=1 s), waited for rather than
      // slept for: a loaded run may send them later than 1.6 s after the start.
      let pinged = Date().addingTimeInterval(60)
      while notify.received.filter({ $0.text == "WATCHDOG=1" }).count < 2, Date() < pinged {
        usleep(20_000)
      }
      let healthy = notify.received
      #expect(healthy.first?.text.hasPrefix("READY=1") == true)
      #expect(healthy.filter { $0.text == "WATCHDOG=1" }.count >= 2)
      #expect(try RawHTTP.request(port: server.port, "GET", "/healthz").text == "ok\n")

      // Another process holds the write lock for 7 s: the health check fails (after the
      // store's 5 s busy timeout), /healthz says why, and no WATCHDOG=1 goes out meanwhile.
      let locker = Process()
      locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      locker.arguments = [
        "python3", "-c",
        "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
          + "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(7)",
        sandbox.databasePath,
      ]
      let pipe = Pipe()
      locker.standardOutput = pipe
      try locker.run()
      _ = pipe.fileHandleForReading.availableData  // "locked"
      let lockedAt = Date()
      let health = try RawHTTP.request(port: server.port, "GET", "/healthz", timeout: 60)
      #expect(health.status == 503)
      #expect(health.text.contains("database not writable"))
      locker.waitUntilExit()
      let releasedAt = Date()
      // Pings again once the lock is gone (waited for, as above).
      let resumed = Date().addingTimeInterval(60)
      while !notify.received.contains(where: { $0.text == "WATCHDOG=1" && $0.time > releasedAt }),
        Date() < resumed
      {
        usleep(20_000)
      }
      let all = notify.received
      let during = all.filter {
        $0.text == "WATCHDOG=1" && $0.time > lockedAt.addingTimeInterval(0.7)
          && $0.time < releasedAt.addingTimeInterval(-0.2)
      }
      #expect(during.isEmpty, "WATCHDOG=1 sent while the database was locked")
      #expect(all.contains { $0.text == "WATCHDOG=1" && $0.time > releasedAt })
      #expect(server.stop().status == 0)
      // The datagram is read on the socket's own thread: give it a moment.
      let deadline = Date().addingTimeInterval(60)
      while !notify.received.contains(where: { $0.text.hasPrefix("STOPPING=1") }), Date() < deadline
      {
        usleep(20_000)
      }
      #expect(notify.received.contains { $0.text.hasPrefix("STOPPING=1") })
    }
  }
}
