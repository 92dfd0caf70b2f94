import Foundation

/// The CPU time a running process has used, from `/proc`: how a test waits until a child is
/// busy with a given phase of its work rather than for a fixed time a loaded run may spend
/// starting it.
public enum ProcessCPUTime {
  /// The user and system CPU time of process `pid` in seconds (0 when it cannot be read).
  public static func seconds(of pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return 0 }
    // After the command's name in parentheses: fields 3, 4, …; utime and stime are 14, 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12])
    else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Waits (at most `timeout` seconds) until process `pid` has used `seconds` more CPU time
  /// than now, or has ended; returns whether it did use them.
  public static func wait(forMore seconds: Double, of pid: Int32, timeout: Double = 300) -> Bool {
    let start = Self.seconds(of: pid)
    let deadline = Date().addingTimeInterval(timeout)
    while Self.seconds(of: pid) < start + seconds && Date() < deadline && kill(pid, 0) == 0 {
      usleep(20_000)
    }
    return Self.seconds(of: pid) >= start + seconds
  }
}
