import Foundation

/// A fresh temporary directory for one test, removed when released.
public final class ScratchDirectory: Sendable {
  /// Its location.
  public let url: URL

  /// Makes `TMPDIR/TAG-UUID`.
  public init(_ tag: String) throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(tag)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
