import Foundation
import MissionTracking
import TextRules
import TraceFormats

/// Paths of the reference data beside the repository (`../shared/reference`).
enum Reference {
  /// The package root, found from this file's path.
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  /// `../shared/reference` beside the package root.
  static let root = packageRoot.deletingLastPathComponent().appendingPathComponent(
    "shared/reference")
  /// Whether the reference data is present (it is not in a user's clone).
  static var isPresent: Bool {
    FileManager.default.fileExists(atPath: root.appendingPathComponent("gpsd-nmea").path)
  }
  /// Files in a reference folder with the given extension, sorted.
  static func files(in folder: String, withExtension ext: String) -> [URL] {
    let dir = root.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix("." + ext) }.sorted().map { dir.appendingPathComponent($0) }
  }
}

/// Decodes `text` with `decoder`, fed in chunks of the given sizes (cycled), then finishes.
func decodeAll<D: TraceDecoder>(
  _ text: String, with decoder: inout D, chunkSizes: [Int] = [1 << 16]
)
  throws(TraceError) -> [Fix]
{
  let bytes = Array(text.utf8)
  var fixes: [Fix] = []
  var start = 0
  var k = 0
  while start < bytes.count {
    let size = max(1, chunkSizes[k % chunkSizes.count])
    k += 1
    let end = min(bytes.count, start + size)
    try bytes[start..<end].withUnsafeBufferPointer { (chunk) throws(TraceError) in
      try decoder.decode(UnsafeRawBufferPointer(chunk), into: &fixes)
    }
    start = end
  }
  try decoder.finish(into: &fixes)
  return fixes
}

/// Decodes NMEA text in one go, lenient by default.
func decodeNMEA(
  _ text: String, strict: Bool = false, fallbackDate: Date? = nil, chunkSizes: [Int] = [1 << 16]
) throws(TraceError) -> (fixes: [Fix], statistics: TraceStatistics) {
  var decoder = NMEADecoder(strict: strict, fallbackDate: fallbackDate)
  let fixes = try decodeAll(text, with: &decoder, chunkSizes: chunkSizes)
  return (fixes, decoder.statistics)
}

/// Appends `*hh` with the correct checksum to a sentence body given with its `$`.
func sentence(_ body: String) -> String {
  var checksum: UInt8 = 0
  for b in body.utf8.dropFirst() { checksum ^= b }
  let hex = String(checksum, radix: 16, uppercase: true)
  return body + "*" + (hex.count == 1 ? "0" + hex : hex)
}

/// `2024-05-01T10:00:00.000Z` for a fix, as `decode` prints it.
func iso(_ fix: Fix) -> String { UTCTime.format(fix.time) }
