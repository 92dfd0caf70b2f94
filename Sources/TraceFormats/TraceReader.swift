import Foundation
import MissionTracking

/// Reads a trace from a path — a regular file, a named pipe, a tty, or `-` for standard
/// input — in fixed-size chunks, detects its format from content and drives the decoder.
///
/// Memory stays constant whatever the size of the trace: one chunk buffer, the decoder's
/// partial line, and the fixes of one chunk (the caller empties the array between calls).
///
/// ```swift
/// let reader = try TraceReader(path: "drive.nmea")
/// var fixes: [Fix] = []
/// while try reader.read(into: &fixes) {
///   for fix in fixes { print(fix) }
///   fixes.removeAll(keepingCapacity: true)
/// }
/// print(reader.statistics)
/// ```
///
/// Not thread-safe: use one reader from one thread at a time.
public final class TraceReader {
  /// The path given (`-` for standard input).
  public let path: String
  /// The detected format, once the first bytes were read.
  public private(set) var format: TraceFormat?

  private let strict: Bool
  private let fallbackDate: Date?
  private let rollover: NMEAWeekRollover?
  private let descriptor: Int32
  private let ownsDescriptor: Bool
  /// The trace itself (or the part not yet read, when streamed), when it was given as bytes
  /// rather than a path.
  private var bytes: [UInt8]?
  /// How much of `bytes` was read.
  private var bytesRead = 0
  private let chunk: UnsafeMutableRawBufferPointer
  private var decoder: (any TraceDecoder)?
  /// Bytes read before the format was known.
  private var prefix: [UInt8] = []
  private var ended = false

  /// The most bytes read to detect the format before giving up.
  static let detectionLimit = 1 << 16

  /// Opens a trace for reading.
  /// - Parameters:
  ///   - path: A file, named pipe or tty path, or `-` for standard input.
  ///   - strict: Stop at the first bad record instead of skipping it.
  ///   - fallbackDate: The UTC day for NMEA logs without any date (`--date`).
  ///   - rollover: The GPS week-rollover correction of NMEA dates (`--rollover-after`).
  ///   - chunkSize: Bytes per read.
  /// - Throws: `TraceError` naming the path when it cannot be opened.
  public init(
    path: String, strict: Bool = false, fallbackDate: Date? = nil,
    rollover: NMEAWeekRollover? = nil, chunkSize: Int = 1 << 16
  ) throws(TraceError) {
    self.path = path
    self.strict = strict
    self.fallbackDate = fallbackDate
    self.rollover = rollover
    bytes = nil
    if path == "-" {
      descriptor = 0
      ownsDescriptor = false
    } else {
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else {
        throw TraceError(file: path, reason: "cannot open: \(String(cString: strerror(errno)))")
      }
      var info = stat()
      if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
        close(fd)
        throw TraceError(file: path, reason: "is a directory")
      }
      descriptor = fd
      ownsDescriptor = true
    }
    chunk = .allocate(byteCount: max(chunkSize, 256), alignment: 16)
  }

  /// Reads a trace held in memory (a fixture in a test, a download), in chunks like a file.
  /// - Parameters:
  ///   - bytes: The whole trace, in any of the formats (recognised from content).
  ///   - name: What error messages call it (default `bytes`).
  ///   - strict: Stop at the first bad record instead of skipping it.
  ///   - fallbackDate: The UTC day for NMEA logs without any date.
  ///   - rollover: The GPS week-rollover correction of NMEA dates.
  ///   - chunkSize: Bytes per read.
  public init(
    bytes: [UInt8], name: String = "bytes", strict: Bool = false, fallbackDate: Date? = nil,
    rollover: NMEAWeekRollover? = nil, chunkSize: Int = 1 << 16
  ) {
    path = name
    self.strict = strict
    self.fallbackDate = fallbackDate
    self.rollover = rollover
    self.bytes = bytes
    descriptor = -1
    ownsDescriptor = false
    chunk = .allocate(byteCount: max(chunkSize, 256), alignment: 16)
  }

  /// A reader fed by the caller, chunk by chunk (`read(appending:into:)`), for a trace that
  /// arrives as a stream of bytes (an `AsyncSequence`, a socket).
  public convenience init(
    streamNamed name: String, strict: Bool = false, fallbackDate: Date? = nil,
    rollover: NMEAWeekRollover? = nil
  ) {
    self.init(
      bytes: [], name: name, strict: strict, fallbackDate: fallbackDate, rollover: rollover)
  }

  /// Feeds the next bytes of a streamed trace (nil: the stream ended) and appends the fixes
  /// they complete to `fixes`.
  /// - Returns: false once the trace has ended.
  /// - Throws: As `read(into:)`; a reader opened on a path throws at once.
  public func read(appending more: [UInt8]?, into fixes: inout [Fix]) throws(TraceError) -> Bool {
    guard bytes != nil else {
      throw TraceError(file: path, reason: "not a streamed reader: it reads its own input")
    }
    if let more {
      if bytesRead == bytes?.count {
        bytes?.removeAll(keepingCapacity: true)
        bytesRead = 0
      }
      bytes?.append(contentsOf: more)
    }
    while bytesRead < (bytes?.count ?? 0) {
      if !(try read(into: &fixes)) { return false }
    }
    // Only an ended stream reaches the end of the bytes: that finishes the decoder.
    return more == nil ? try read(into: &fixes) : true
  }

  /// Reads a trace held in a string (its UTF-8 bytes), e.g. an NMEA log inline in a test.
  public convenience init(
    text: String, name: String = "text", strict: Bool = false, fallbackDate: Date? = nil,
    rollover: NMEAWeekRollover? = nil
  ) {
    self.init(
      bytes: Array(text.utf8), name: name, strict: strict, fallbackDate: fallbackDate,
      rollover: rollover)
  }

  deinit {
    if ownsDescriptor { close(descriptor) }
    chunk.deallocate()
  }

  /// Counts so far: records read, fixes, and skipped records by reason.
  public var statistics: TraceStatistics { decoder?.statistics ?? TraceStatistics() }

  /// Reads the next chunk and appends the fixes it completes to `fixes`.
  /// - Returns: false once the trace has ended (the last fixes were appended by this call).
  /// - Throws: `TraceError` for an unreadable or unrecognised trace, or a bad record in strict
  ///   mode (the fixes completed before it are appended first).
  public func read(into fixes: inout [Fix]) throws(TraceError) -> Bool {
    try advance(
      into: &fixes,
      decode: { (decoder, chunk, out) throws(TraceError) in try decoder.decode(chunk, into: &out) },
      finish: { (decoder, out) throws(TraceError) in try decoder.finish(into: &out) })
  }

  /// Reads the next chunk and appends the records it completes to `records`: fixes, and (GPX)
  /// points without a time as `.untimed`, in document order.
  /// - Returns: false once the trace has ended.
  /// - Throws: As `read(into:)` for fixes.
  public func read(into records: inout [TraceRecord]) throws(TraceError) -> Bool {
    try advance(
      into: &records,
      decode: { (decoder, chunk, out) throws(TraceError) in try decoder.decode(chunk, into: &out) },
      finish: { (decoder, out) throws(TraceError) in try decoder.finish(into: &out) })
  }

  /// Reads the next chunk, detecting the format first, and decodes it into `output`.
  private func advance<Output>(
    into output: inout [Output],
    decode: (inout any TraceDecoder, UnsafeRawBufferPointer, inout [Output]) throws(TraceError)
      -> Void,
    finish: (inout any TraceDecoder, inout [Output]) throws(TraceError) -> Void
  ) throws(TraceError) -> Bool {
    if ended { return false }
    let count = try readChunk()
    if decoder == nil {
      prefix.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
      let detected = prefix.withUnsafeBytes { TraceFormat.detect(in: $0, isComplete: count == 0) }
      guard let detected else {
        if count == 0 {
          ended = true
          if prefix.allSatisfy({ $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }) { return false }
          throw TraceError(
            file: path, reason: "unrecognised trace format (not NMEA, gpsd JSON or GPX)")
        }
        if prefix.count >= TraceReader.detectionLimit {
          throw TraceError(
            file: path,
            reason: "unrecognised trace format: no NMEA, gpsd JSON or GPX in the first "
              + "\(TraceReader.detectionLimit) bytes")
        }
        return true
      }
      format = detected
      var made = try TraceReader.makeDecoder(
        for: detected, file: path, strict: strict, fallbackDate: fallbackDate,
        rollover: rollover)
      let held = prefix
      prefix = []
      defer { decoder = made }
      try held.withUnsafeBufferPointer { (bytes) throws(TraceError) in
        try decode(&made, UnsafeRawBufferPointer(bytes), &output)
      }
    } else if count > 0, var current = decoder {
      // Moved out and back so the decoder's storage is not shared (no copy on write).
      decoder = nil
      defer { decoder = current }
      try decode(&current, UnsafeRawBufferPointer(rebasing: chunk[0..<count]), &output)
    }
    if count == 0, var current = decoder {
      ended = true
      decoder = nil
      defer { decoder = current }
      try finish(&current, &output)
      return false
    }
    return true
  }

  /// Reads the whole trace, calling `body` with each batch of fixes.
  /// - Returns: The final statistics.
  /// - Throws: `TraceError` from reading (after `body` has had the fixes completed before
  ///   it), or what `body` throws.
  @discardableResult
  public func forEachBatch(_ body: ([Fix]) throws -> Void) throws -> TraceStatistics {
    try forEach(body) { (reader, out) throws(TraceError) in try reader.read(into: &out) }
  }

  /// Reads the whole trace as records (untimed GPX points included), calling `body` with each
  /// batch.
  /// - Returns: The final statistics.
  /// - Throws: As `forEachBatch`.
  @discardableResult
  public func forEachRecordBatch(_ body: ([TraceRecord]) throws -> Void) throws
    -> TraceStatistics
  {
    try forEach(body) { (reader, out) throws(TraceError) in try reader.read(into: &out) }
  }

  private func forEach<Output>(
    _ body: ([Output]) throws -> Void,
    read: (TraceReader, inout [Output]) throws(TraceError) -> Bool
  ) throws -> TraceStatistics {
    var batch: [Output] = []
    var more = true
    while more {
      do {
        more = try read(self, &batch)
      } catch {
        if !batch.isEmpty { try body(batch) }
        throw error
      }
      if !batch.isEmpty { try body(batch) }
      batch.removeAll(keepingCapacity: true)
    }
    return statistics
  }

  private func readChunk() throws(TraceError) -> Int {
    if let bytes {
      let count = min(chunk.count, bytes.count - bytesRead)
      bytes.withUnsafeBytes { all in
        chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[bytesRead..<bytesRead + count]))
      }
      bytesRead += count
      return count
    }
    while true {
      let n = Foundation.read(descriptor, chunk.baseAddress, chunk.count)
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw TraceError(file: path, reason: "read failed: \(String(cString: strerror(errno)))")
    }
  }

  /// The decoder for a detected format: where the format is wired to its reader.
  static func makeDecoder(
    for format: TraceFormat, file: String?, strict: Bool, fallbackDate: Date?,
    rollover: NMEAWeekRollover? = nil
  ) throws(TraceError) -> any TraceDecoder {
    switch format {
    case .nmea:
      return NMEADecoder(
        file: file, strict: strict, fallbackDate: fallbackDate, rollover: rollover)
    case .gpsdJSON:
      return GPSDJSONDecoder(file: file, strict: strict)
    case .gpx:
      return GPXDecoder(file: file, strict: strict)
    }
  }
}
