import Foundation

/// Polls `check` until it holds or `timeout` seconds pass; returns its last answer.
public func eventually(_ timeout: Double, _ check: () async -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if await check() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return await check()
}
