import Foundation
import TextRules

/// The time forms phones send, read by one set of rules: epoch numbers (seconds, or
/// Traccar's seconds-or-milliseconds rule) and ISO 8601 text through `UTCTime`.
enum IngestTime {
  /// The first instant refused: 10000-01-01T00:00:00Z. Later times cannot be written as
  /// RFC 3339, and a number of that size is a wrong unit, not a date.
  static let end = Date(timeIntervalSince1970: 253_402_300_800)

  /// `date` when it lies in [1970-01-01, 10000-01-01), else nil.
  private static func checked(_ date: Date) -> Date? {
    date.timeIntervalSince1970 >= 0 && date < end ? date : nil
  }

  /// The instant `seconds` after the Unix epoch (OwnTracks `tst`), or nil out of range.
  static func epochSeconds(_ seconds: Double) -> Date? {
    checked(Date(timeIntervalSince1970: seconds))
  }

  /// Traccar's rule for an OsmAnd `timestamp` number: below 2147483647 (`Integer.MAX_VALUE`)
  /// it counts seconds, from there milliseconds (`OsmAndProtocolDecoder`).
  static func traccarEpoch(_ value: Double) -> Date? {
    epochSeconds(value < 2_147_483_647 ? value : value / 1000)
  }

  /// ISO 8601 / RFC 3339 with a zone: `Z`, `+02:00` or `-0700`; a fraction of any length.
  /// Nil without a zone: a phone's local time without its offset names no instant.
  static func iso8601(_ text: String) -> Date? {
    guard let parsed = UTCTime.parse(text), parsed.hadZone else { return nil }
    return checked(parsed.date)
  }

  /// An OsmAnd `timestamp` as Traccar reads it: a decimal number by `traccarEpoch`; text
  /// with a `T` as ISO 8601 with a zone; otherwise `yyyy-MM-dd HH:mm:ss`, which is UTC here
  /// (Traccar reads it in the server's zone; ours is UTC).
  static func osmAnd(_ text: String) -> Date? {
    if let number = Double(decimalText: text) { return traccarEpoch(number) }
    if text.contains("T") || text.contains("t") { return iso8601(text) }
    guard let parsed = UTCTime.parse(text) else { return nil }
    return checked(parsed.date)
  }
}
