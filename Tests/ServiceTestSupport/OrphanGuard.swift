import Foundation

/// Kills a program a test started if the test process dies first (a crash, a timeout's
/// SIGKILL) and so never runs the `deinit` that would have stopped it: a server a test starts
/// stops by itself.
public enum OrphanGuard {
  /// Starts a small shell that polls, once a second, this process and `process`; when this
  /// process is gone and `process` is not, it sends `process` SIGKILL. It ends with either.
  public static func watch(_ process: Process) {
    let child = process.processIdentifier
    let script = """
      while kill -0 \(child) 2>/dev/null; do
        kill -0 \(getpid()) 2>/dev/null || { kill -KILL \(child); exit 0; }
        sleep 1
      done
      """
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", script]
    shell.standardInput = FileHandle.nullDevice
    shell.standardOutput = FileHandle.nullDevice
    shell.standardError = FileHandle.nullDevice
    // Best effort: a test whose guard cannot start still stops its program in `deinit`.
    try? shell.run()
  }
}
