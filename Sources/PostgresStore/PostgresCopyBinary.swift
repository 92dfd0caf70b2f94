/// PostgreSQL's `COPY … FROM STDIN (FORMAT binary)`, written into a byte buffer: the
/// signature and header, each row as its number of fields and each field as its length
/// (-1 for NULL) and its value as the type's binary receive function reads it (integers
/// and `float8` in network byte order, `timestamptz` as microseconds after 2000, text as
/// its bytes), then the trailer. The one writer of it: the recording path (a track's fixes,
/// the event log).
///
/// Against the text format the server parses no number, time or escape: about 1.1 µs less
/// of its time per track row and 1.3 µs per event row in `psql` (300,000 rows each), and
/// the node formats no `Double` as text.
struct PostgresCopyBinary {
  /// Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 (UTC).
  static let epochOffset: Int64 = 946_684_800_000_000

  /// The buffer: the header and the rows so far.
  private var bytes: [UInt8] = []

  /// A buffer with the header, room reserved for `rows` rows of about `bytesPerRow` bytes.
  init(rows: Int, bytesPerRow: Int) {
    bytes.reserveCapacity(19 + rows * bytesPerRow + 2)
    // "PGCOPY\n\xFF\r\n\0", then the flags (no OIDs) and the length of no header extension.
    bytes.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
    integer(Int32(0))
    integer(Int32(0))
  }

  /// The buffer with the trailer, for `PostgresConnection.copy`.
  mutating func finish() -> [UInt8] {
    integer(Int16(-1))
    return bytes
  }

  /// Starts a row of `fields` fields.
  mutating func row(fields: Int16) { integer(fields) }

  /// A `text` field; nil is NULL. No escaping: the bytes are the value.
  mutating func text(_ value: String?) {
    guard var value else { return null() }
    value.withUTF8 { utf8 in
      integer(Int32(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }

  /// A `float8` field; nil is NULL.
  mutating func float8(_ value: Double?) {
    guard let value else { return null() }
    integer(Int32(8))
    integer(value.bitPattern)
  }

  /// A `smallint` field.
  mutating func int16(_ value: Int16) {
    integer(Int32(2))
    integer(value)
  }

  /// An `integer` field; nil is NULL.
  mutating func int32(_ value: Int32?) {
    guard let value else { return null() }
    integer(Int32(4))
    integer(value)
  }

  /// A `bigint` field; nil is NULL.
  mutating func int64(_ value: Int64?) {
    guard let value else { return null() }
    integer(Int32(8))
    integer(value)
  }

  /// A `boolean` field; nil is NULL.
  mutating func bool(_ value: Bool?) {
    guard let value else { return null() }
    integer(Int32(1))
    bytes.append(value ? 1 : 0)
  }

  /// A `timestamptz` field of `microseconds` after 1970-01-01T00:00:00Z, exactly. Every
  /// time after 1970 fits (`Int64` reaches the year 294,246, PostgreSQL 294,276); one
  /// before 4714 BC is sent as a time it refuses ("timestamp out of range"), never as
  /// `-infinity`.
  mutating func timestamp(microseconds: Int64) {
    let (shifted, overflow) = microseconds.subtractingReportingOverflow(Self.epochOffset)
    integer(Int32(8))
    integer(overflow || shifted == .min ? .min + 1 : shifted)
  }

  private mutating func null() { integer(Int32(-1)) }

  private mutating func integer(_ value: some FixedWidthInteger) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }
}
