import Foundation
import MissionTracking

/// The streaming XML scanner under `GPXDecoder`: a hand-written, non-validating reader of just
/// enough XML for GPX, pushed chunk by chunk.
///
/// It never reads a DTD, never resolves an entity other than the five predefined ones and
/// character references (and those only inside the values it reads), and never buffers more
/// than one unfinished tag (at most `maxMarkupBytes`), one short value and the names of the
/// open elements (at most `maxDepth` × `maxNameBytes`): memory stays constant whatever the
/// file size. Elements are matched by local name, so any prefix
/// (`<ns2:trkpt>`) or none works. Points are only recognised in their GPX places:
/// `gpx/trk/trkseg/trkpt`, `gpx/rte/rtept`, `gpx/wpt`.
struct GPXScanner {
  /// What an open element is, from the GPX structure's point of view.
  enum Context: UInt8 {
    case gpx, track, segment, route, point, pointExtensions, pointExtension, field, other
  }

  /// The point values the scanner reads.
  enum Field: UInt8 {
    case ele, time, hdop, sat, fix, speed, course, extensionSpeed, extensionCourse

    var tag: String {
      switch self {
      case .ele: "ele"
      case .time: "time"
      case .hdop: "hdop"
      case .sat: "sat"
      case .fix: "fix"
      case .speed, .extensionSpeed: "speed"
      case .course, .extensionCourse: "course"
      }
    }
  }

  /// Where the scanner is between chunks.
  enum Mode: Equatable {
    case content
    /// Inside `<!-- … -->`; the count of `-` just seen (0...2).
    case comment(Int)
    /// Inside `<? … ?>`; 1 after a `?`.
    case processingInstruction(Int)
    /// Inside `<![CDATA[ … ]]>`; the count of `]` just seen (0...2).
    case cdata(Int)
    /// Inside `<!DOCTYPE …>`: the open quote (0 for none) and whether in the `[…]` subset.
    case doctype(quote: UInt8, subset: Bool)
  }

  /// The point being read.
  struct PendingPoint {
    var kind = GPXPoint.Kind.trackPoint
    var coordinate: Coordinate?
    var skipReason: String?
    var time: Date?
    var ele: Double?
    var hdop: Double?
    var sat: Int?
    var fixMode: FixMode?
    var differential = false
    var speed: Double?
    var course: Double?
    var extensionSpeed: Double?
    var extensionCourse: Double?
    var track = 0
    var segment = 0
  }

  /// The longest tag (with its attributes) the scanner will hold across chunks.
  static let maxMarkupBytes = 1 << 20
  /// The longest value (`<time>`, `<ele>`, …) the scanner reads; longer ones are bad values.
  static let maxValueBytes = 256
  /// The deepest element nesting accepted.
  static let maxDepth = 256
  /// The longest element name accepted (so the open-element stack stays small).
  static let maxNameBytes = 1024

  let file: String?
  let strict: Bool
  var statistics = TraceStatistics()
  /// Points completed since the owner last drained it.
  var output: [GPXPoint] = []
  /// The truncation found by `finish` in lenient mode.
  var truncation: TraceError?
  /// The error that stopped the scanner; it is thrown again on any later call.
  var failure: TraceError?

  private var carry: [UInt8] = []
  private var mode = Mode.content
  private var bufferStart = 0
  private var line = 1
  private var lineStart = 0
  private var checkedStart = false

  private var names: [UInt8] = []
  private var nameStarts: [Int] = []
  private var contexts: [Context] = []
  private var rootSeen = false
  private var rootClosed = false
  private var trackCount = 0
  private var routeCount = 0
  private var segmentCount = 0

  private var inPoint = false
  private var point = PendingPoint()
  private var field: Field?
  private var capture: [UInt8] = []
  private var captureOverflow = false
  private var captureHasMarkup = false

  init(file: String?, strict: Bool) {
    self.file = file
    self.strict = strict
    capture.reserveCapacity(GPXScanner.maxValueBytes)
    names.reserveCapacity(256)
  }

  // MARK: Feeding

  /// Scans `bytes`, appending completed points to `output`.
  mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(TraceError) {
    if let failure { throw failure }
    do throws(TraceError) {
      if carry.isEmpty {
        let consumed = try scan(bytes)
        account(bytes, consumed)
        if consumed < bytes.count { carry.append(contentsOf: bytes[consumed...]) }
      } else {
        carry.append(contentsOf: bytes)
        var local: [UInt8] = []
        swap(&local, &carry)
        let consumed = try local.withUnsafeBufferPointer { (buffer) throws(TraceError) -> Int in
          let consumed = try scan(buffer)
          account(buffer, consumed)
          return consumed
        }
        local.removeFirst(consumed)
        swap(&local, &carry)
      }
      if carry.count > GPXScanner.maxMarkupBytes {
        throw carryError("a tag longer than \(GPXScanner.maxMarkupBytes) bytes")
      }
    } catch {
      failure = error
      throw error
    }
  }

  /// Ends the input: a document that is not complete is truncated.
  mutating func finish() throws(TraceError) {
    if let failure { throw failure }
    let complete = rootClosed && contexts.isEmpty && mode == .content && carry.isEmpty
    guard !complete else { return }
    var reason: String
    if !rootSeen, carry.isEmpty, mode == .content {
      reason = "no <gpx> element (empty or not XML)"
    } else {
      reason = "document ends too early"
      switch mode {
      case .comment: reason += " inside a comment"
      case .cdata: reason += " inside a CDATA section"
      case .processingInstruction: reason += " inside a processing instruction"
      case .doctype: reason += " inside the DOCTYPE"
      case .content: if !carry.isEmpty { reason += " inside a tag" }
      }
      if !contexts.isEmpty {
        var open: [String] = []
        for k in 0..<nameStarts.count {
          let end = k + 1 < nameStarts.count ? nameStarts[k + 1] : names.count
          open.append(String(decoding: names[nameStarts[k]..<end], as: UTF8.self))
        }
        reason += "; unclosed <" + open.joined(separator: "> <") + ">"
      }
    }
    let error = carryError(reason)
    if strict {
      failure = error
      throw error
    }
    truncation = error
    // The place goes into the warning, so a generic summary shows where the input ended.
    statistics.warn("truncated document at \(error.line ?? 0):\(error.column ?? 0) (\(reason))")
    if inPoint {
      statistics.recordsRead += 1
      statistics.skip("truncated document")
      inPoint = false
    }
  }

  /// The error at the end of what has been fed (the start of the carried bytes + their length).
  private func carryError(_ reason: String) -> TraceError {
    var l = line
    var start = lineStart
    for (k, byte) in carry.enumerated() where byte == 0x0A {
      l += 1
      start = bufferStart + k + 1
    }
    let end = bufferStart + carry.count
    return TraceError(file: file, line: l, column: end - start + 1, reason: reason)
  }

  /// Moves the line bookkeeping past the first `consumed` bytes of `bytes`.
  private mutating func account(_ bytes: UnsafeBufferPointer<UInt8>, _ consumed: Int) {
    var newlines = 0
    for k in 0..<consumed { newlines &+= bytes[k] == 0x0A ? 1 : 0 }  // branch-free: vectorised
    if newlines > 0 {
      line += newlines
      var k = consumed - 1
      while bytes[k] != 0x0A { k -= 1 }
      lineStart = bufferStart + k + 1
    }
    bufferStart += consumed
  }

  /// The error located at `index` of the buffer being scanned.
  private func error(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ reason: String)
    -> TraceError
  {
    var l = line
    var start = lineStart
    for k in 0..<min(index, bytes.count) where bytes[k] == 0x0A {
      l += 1
      start = bufferStart + k + 1
    }
    return TraceError(file: file, line: l, column: bufferStart + index - start + 1, reason: reason)
  }

  // MARK: Scanning

  /// Scans as far as complete markup goes; returns how many bytes were consumed.
  private mutating func scan(_ b: UnsafeBufferPointer<UInt8>) throws(TraceError) -> Int {
    let n = b.count
    var i = 0
    if !checkedStart {
      let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
      // Wait for 3 bytes before deciding, so the outcome never depends on chunking.
      if n < 3, b.elementsEqual(bom.prefix(n)) || b[0] == 0xFE || b[0] == 0xFF { return 0 }
      if (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) {
        throw error(b, at: 0, "UTF-16 input is not supported; convert the file to UTF-8")
      }
      if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
      checkedStart = true
    }
    while i < n {
      switch mode {
      case .content:
        let lt = GPXScanner.find(0x3C, b, from: i)
        if lt > i { try text(b, i, lt) }
        if lt == n { return n }
        i = lt
        guard i + 1 < n else { return i }
        let next = b[i + 1]
        if next == 0x2F {
          let gt = GPXScanner.find(0x3E, b, from: i + 2)
          if gt == n { return i }
          try endTag(b, i, gt)
          i = gt + 1
        } else if next == 0x21 {
          if GPXScanner.matches(b, i, "<!--") {
            mode = .comment(0)
            i += 4
          } else if GPXScanner.matches(b, i, "<![CDATA[") {
            if contexts.isEmpty { throw error(b, at: i, "CDATA outside the root element") }
            mode = .cdata(0)
            i += 9
          } else if GPXScanner.matches(b, i, "<!DOCTYPE") {
            if rootSeen { throw error(b, at: i, "a DOCTYPE inside the document") }
            mode = .doctype(quote: 0, subset: false)
            i += 9
          } else if n - i < 9 {
            return i
          } else {
            throw error(b, at: i, "unknown markup starting with \"<!\"")
          }
        } else if next == 0x3F {
          mode = .processingInstruction(0)
          i += 2
        } else {
          var j = i + 1
          var quote: UInt8 = 0
          while j < n {
            let c = b[j]
            if quote != 0 {
              if c == quote { quote = 0 }
            } else if c == 0x3E {
              break
            } else if c == 0x22 || c == 0x27 {
              quote = c
            } else if c == 0x3C {
              throw error(b, at: j, "\"<\" inside a tag")
            }
            j += 1
          }
          if j == n { return i }
          try startTag(b, i, j)
          i = j + 1
        }
      case .comment(var dashes):
        while i < n {
          let c = b[i]
          i += 1
          if c == 0x2D {
            dashes = min(dashes + 1, 2)
          } else if c == 0x3E, dashes == 2 {
            dashes = -1
            break
          } else {
            dashes = 0
          }
        }
        mode = dashes < 0 ? .content : .comment(dashes)
      case .processingInstruction(var question):
        while i < n {
          let c = b[i]
          i += 1
          if c == 0x3F {
            question = 1
          } else if c == 0x3E, question == 1 {
            question = -1
            break
          } else {
            question = 0
          }
        }
        mode = question < 0 ? .content : .processingInstruction(question)
      case .cdata(var brackets):
        let begin = i
        while i < n {
          let c = b[i]
          i += 1
          if c == 0x5D {
            brackets = min(brackets + 1, 2)
          } else if c == 0x3E, brackets == 2 {
            brackets = -1
            break
          } else {
            brackets = 0
          }
        }
        if field != nil {
          appendCapture(b, begin, i)
          if brackets < 0, !captureOverflow {
            capture.removeLast(min(3, capture.count))
          }
        }
        mode = brackets < 0 ? .content : .cdata(brackets)
      case .doctype(var quote, var subset):
        var done = false
        while i < n {
          let c = b[i]
          i += 1
          if quote != 0 {
            if c == quote { quote = 0 }
          } else if c == 0x22 || c == 0x27 {
            quote = c
          } else if c == 0x5B {
            subset = true
          } else if c == 0x5D {
            subset = false
          } else if c == 0x3E, !subset {
            done = true
            break
          }
        }
        mode = done ? .content : .doctype(quote: quote, subset: subset)
      }
    }
    return n
  }

  /// Character data between markup.
  private mutating func text(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
    throws(TraceError)
  {
    if field != nil {
      appendCapture(b, start, end)
    } else if contexts.isEmpty {
      for k in start..<end where !GPXScanner.isSpace(b[k]) {
        throw error(
          b, at: k, rootSeen ? "text after the root element" : "text before the root element")
      }
    }
  }

  private mutating func appendCapture(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
    guard !captureOverflow else { return }
    if capture.count + (end - start) > GPXScanner.maxValueBytes {
      captureOverflow = true
      return
    }
    capture.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<end]))
  }

  // MARK: Tags

  private mutating func startTag(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int)
    throws(TraceError)
  {
    var nameEnd = s + 1
    while nameEnd < e, !GPXScanner.isSpace(b[nameEnd]), b[nameEnd] != 0x2F { nameEnd += 1 }
    guard nameEnd > s + 1 else { throw error(b, at: s, "a tag without a name") }
    guard nameEnd - s - 1 <= GPXScanner.maxNameBytes else {
      throw error(b, at: s, "an element name longer than \(GPXScanner.maxNameBytes) bytes")
    }
    let selfClosing = b[e - 1] == 0x2F
    var local = s + 1
    for k in (s + 1)..<nameEnd where b[k] == 0x3A { local = k + 1 }
    let name = UnsafeBufferPointer(rebasing: b[local..<nameEnd])

    let context: Context
    var newField: Field?
    if let parent = contexts.last {
      switch parent {
      case .gpx:
        if GPXScanner.equals(name, "trk") {
          context = .track
          trackCount += 1
          segmentCount = 0
        } else if GPXScanner.equals(name, "rte") {
          context = .route
          routeCount += 1
        } else if GPXScanner.equals(name, "wpt") {
          context = .point
          point = PendingPoint(kind: .waypoint)
        } else {
          context = .other
        }
      case .track:
        if GPXScanner.equals(name, "trkseg") {
          context = .segment
          segmentCount += 1
        } else {
          context = .other
        }
      case .segment:
        if GPXScanner.equals(name, "trkpt") {
          context = .point
          point = PendingPoint(
            kind: .trackPoint, track: trackCount - 1, segment: segmentCount - 1)
        } else {
          context = .other
        }
      case .route:
        if GPXScanner.equals(name, "rtept") {
          context = .point
          point = PendingPoint(kind: .routePoint, track: routeCount - 1)
        } else {
          context = .other
        }
      case .point:
        newField = GPXScanner.pointField(name)
        if newField != nil {
          context = .field
        } else if GPXScanner.equals(name, "extensions") {
          context = .pointExtensions
        } else {
          context = .other
        }
      case .pointExtensions, .pointExtension:
        if GPXScanner.equals(name, "speed") {
          newField = .extensionSpeed
          context = .field
        } else if GPXScanner.equals(name, "course") {
          newField = .extensionCourse
          context = .field
        } else {
          context = .pointExtension
        }
      case .field:
        captureHasMarkup = true
        context = .other
      case .other:
        context = .other
      }
    } else {
      if rootSeen { throw error(b, at: s, "a second root element") }
      guard GPXScanner.equals(name, "gpx") else {
        let shown = String(decoding: b[(s + 1)..<nameEnd], as: UTF8.self)
        throw error(b, at: s, "not a GPX document: the root element is <\(shown)>, not <gpx>")
      }
      rootSeen = true
      context = .gpx
    }

    if context == .point {
      inPoint = true
      try readPointAttributes(b, nameEnd, selfClosing ? e - 1 : e, tagStart: s)
    } else if let newField {
      field = newField
      capture.removeAll(keepingCapacity: true)
      captureOverflow = false
      captureHasMarkup = false
    }

    if selfClosing {
      try close(context, b, at: s)
    } else {
      guard contexts.count < GPXScanner.maxDepth else {
        throw error(b, at: s, "elements nested deeper than \(GPXScanner.maxDepth)")
      }
      nameStarts.append(names.count)
      names.append(contentsOf: UnsafeBufferPointer(rebasing: b[(s + 1)..<nameEnd]))
      contexts.append(context)
    }
  }

  private mutating func endTag(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int)
    throws(TraceError)
  {
    var nameEnd = e
    while nameEnd > s + 2, GPXScanner.isSpace(b[nameEnd - 1]) { nameEnd -= 1 }
    let name = UnsafeBufferPointer(rebasing: b[(s + 2)..<nameEnd])
    guard let context = contexts.last, let open = nameStarts.last else {
      let shown = String(decoding: name, as: UTF8.self)
      throw error(b, at: s, "end tag </\(shown)> without a start tag")
    }
    let matches = names.withUnsafeBufferPointer { all in
      let top = UnsafeBufferPointer(rebasing: all[open...])
      return top.count == name.count
        && (name.isEmpty || memcmp(top.baseAddress!, name.baseAddress!, name.count) == 0)
    }
    guard matches else {
      let shown = String(decoding: name, as: UTF8.self)
      let expected = String(decoding: names[open...], as: UTF8.self)
      throw error(b, at: s, "end tag </\(shown)> does not match <\(expected)>")
    }
    names.removeLast(names.count - open)
    nameStarts.removeLast()
    contexts.removeLast()
    try close(context, b, at: s)
  }

  /// Completes an element that just ended (`at` is where its end was seen).
  private mutating func close(_ context: Context, _ b: UnsafeBufferPointer<UInt8>, at s: Int)
    throws(TraceError)
  {
    switch context {
    case .field:
      try finishField(b, at: s)
    case .point:
      finishPoint()
    case .gpx:
      rootClosed = true
    default:
      break
    }
  }

  // MARK: Points

  private mutating func readPointAttributes(
    _ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, tagStart: Int
  ) throws(TraceError) {
    var lat: Double?
    var lon: Double?
    var latRange: Range<Int>?
    var lonRange: Range<Int>?
    var i = start
    while true {
      while i < end, GPXScanner.isSpace(b[i]) { i += 1 }
      if i >= end { break }
      let nameStart = i
      while i < end, b[i] != 0x3D, !GPXScanner.isSpace(b[i]) { i += 1 }
      let nameEnd = i
      while i < end, GPXScanner.isSpace(b[i]) { i += 1 }
      guard i < end, b[i] == 0x3D, nameEnd > nameStart else {
        throw error(b, at: nameStart, "malformed attribute in <\(point.kind.rawValue)>")
      }
      i += 1
      while i < end, GPXScanner.isSpace(b[i]) { i += 1 }
      guard i < end, b[i] == 0x22 || b[i] == 0x27 else {
        throw error(b, at: i, "attribute value without quotes in <\(point.kind.rawValue)>")
      }
      let quote = b[i]
      i += 1
      let valueStart = i
      while i < end, b[i] != quote { i += 1 }
      guard i < end else {
        throw error(b, at: valueStart, "unterminated attribute value")
      }
      let valueRange = valueStart..<i
      i += 1
      let attribute = UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd])
      let isLat = GPXScanner.equals(attribute, "lat")
      guard isLat || GPXScanner.equals(attribute, "lon") else { continue }
      if (isLat ? latRange : lonRange) != nil {
        throw error(b, at: nameStart, "duplicate attribute \(isLat ? "lat" : "lon")")
      }
      let number = GPXScanner.withDecoded(UnsafeBufferPointer(rebasing: b[valueRange])) {
        $0.flatMap(DecimalText.parseDouble)
      }
      if isLat {
        lat = number
        latRange = valueRange
      } else {
        lon = number
        lonRange = valueRange
      }
    }
    func shown(_ range: Range<Int>?) -> String {
      range.map { String(decoding: b[$0], as: UTF8.self) } ?? ""
    }
    let tag = point.kind.rawValue
    var problem: (reason: String, message: String)?
    if latRange != nil, lat == nil {
      problem = ("bad lat", "<\(tag)> lat=\"\(shown(latRange))\" is not a number")
    } else if lonRange != nil, lon == nil {
      problem = ("bad lon", "<\(tag)> lon=\"\(shown(lonRange))\" is not a number")
    } else if let lat, let lon {
      if !(-90.0...90.0).contains(lat) {
        problem = (
          "latitude out of range", "<\(tag)> latitude \(shown(latRange)) is outside [-90, 90]"
        )
      } else if !(-180.0...180.0).contains(lon) {
        problem = (
          "longitude out of range",
          "<\(tag)> longitude \(shown(lonRange)) is outside [-180, 180]"
        )
      } else {
        point.coordinate = Coordinate(uncheckedLatitude: lat, longitude: lon)
      }
    } else {
      let missing = lat == nil ? "lat" : "lon"
      problem = ("missing \(missing)", "<\(tag)> has no \(missing) attribute")
    }
    if let problem {
      if strict { throw error(b, at: tagStart, problem.message) }
      point.skipReason = problem.reason
    }
  }

  private mutating func finishPoint() {
    guard inPoint else { return }
    inPoint = false
    statistics.recordsRead += 1
    if let reason = point.skipReason {
      statistics.skip(reason)
      return
    }
    guard let coordinate = point.coordinate else { return }
    output.append(
      GPXPoint(
        kind: point.kind, coordinate: coordinate, time: point.time, elevationMeters: point.ele,
        hdop: point.hdop, satellites: point.sat, fixMode: point.fixMode,
        isDifferential: point.differential,
        speedMetersPerSecond: point.speed ?? point.extensionSpeed,
        courseDegrees: point.course ?? point.extensionCourse, track: point.track,
        segment: point.segment))
  }

  private mutating func finishField(_ b: UnsafeBufferPointer<UInt8>, at endTag: Int)
    throws(TraceError)
  {
    guard let current = field else { return }
    field = nil
    guard inPoint, point.skipReason == nil else { return }
    var start = 0
    var end = capture.count
    while start < end, GPXScanner.isSpace(capture[start]) { start += 1 }
    while end > start, GPXScanner.isSpace(capture[end - 1]) { end -= 1 }
    if start == end, !captureOverflow, !captureHasMarkup { return }  // empty: absent
    var ok = false
    if !captureOverflow, !captureHasMarkup {
      var local: [UInt8] = []
      swap(&local, &capture)
      defer { swap(&local, &capture) }
      local.withUnsafeBufferPointer { all in
        GPXScanner.withDecoded(UnsafeBufferPointer(rebasing: all[start..<end])) { decoded in
          guard let v = decoded else { return }
          switch current {
          case .time:
            if let parsed = UTCTime.parse(utf8: v) {
              point.time = parsed.date
              if !parsed.hadZone { statistics.warn("time without zone, read as UTC") }
              ok = true
            }
          case .ele:
            point.ele = GPXScanner.finite(DecimalText.parseDouble(v))
            ok = point.ele != nil
          case .hdop:
            point.hdop = GPXScanner.finite(DecimalText.parseDouble(v)).flatMap {
              $0 >= 0 ? $0 : nil
            }
            ok = point.hdop != nil
          case .sat:
            point.sat = DecimalText.parseCount(v)
            ok = point.sat != nil
          case .fix:
            point.fixMode = GPXScanner.fixMode(v)
            point.differential = GPXScanner.equals(v, "dgps")
            ok = point.fixMode != nil
          case .speed, .extensionSpeed:
            let speed = GPXScanner.finite(DecimalText.parseDouble(v)).flatMap { $0 >= 0 ? $0 : nil }
            if current == .speed { point.speed = speed } else { point.extensionSpeed = speed }
            ok = speed != nil
          case .course, .extensionCourse:
            var course = GPXScanner.finite(DecimalText.parseDouble(v))
            if let c = course {
              let r = c.truncatingRemainder(dividingBy: 360)
              course = r < 0 ? r + 360 : r
              if course == 360 { course = 0 }
            }
            if current == .course { point.course = course } else { point.extensionCourse = course }
            ok = course != nil
          }
        }
      }
    }
    guard !ok else { return }
    let shown =
      captureOverflow
      ? "longer than \(GPXScanner.maxValueBytes) bytes"
      : "\"" + String(decoding: capture[start..<end], as: UTF8.self) + "\""
    let message = "bad <\(current.tag)> value \(shown) in <\(point.kind.rawValue)>"
    if strict {
      // At the end tag: always in the buffer, so the place does not depend on chunking.
      throw error(b, at: endTag, message)
    }
    if current == .time {
      point.skipReason = "bad time"
    } else {
      statistics.warn("bad <\(current.tag)> value ignored")
    }
  }

  // MARK: Byte helpers

  @inline(__always)
  static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

  static func finite(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    return value
  }

  /// The index of the first `byte` at or after `from`, or `b.count`.
  @inline(__always)
  static func find(_ byte: UInt8, _ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
    guard from < b.count, let base = b.baseAddress else { return b.count }
    guard let hit = memchr(base + from, Int32(byte), b.count - from) else { return b.count }
    return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
  }

  /// Whether `b` holds `literal` at `at` (false when it runs out).
  static func matches(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard at + count <= b.count else { return false }
    return memcmp(b.baseAddress! + at, literal.utf8Start, count) == 0
  }

  @inline(__always)
  static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    name.count == literal.utf8CodeUnitCount
      && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
  }

  static func pointField(_ name: UnsafeBufferPointer<UInt8>) -> Field? {
    switch name.count {
    case 3:
      if equals(name, "ele") { return .ele }
      if equals(name, "sat") { return .sat }
      if equals(name, "fix") { return .fix }
    case 4:
      if equals(name, "time") { return .time }
      if equals(name, "hdop") { return .hdop }
    case 5:
      if equals(name, "speed") { return .speed }
    case 6:
      if equals(name, "course") { return .course }
    default:
      break
    }
    return nil
  }

  static func fixMode(_ value: UnsafeBufferPointer<UInt8>) -> FixMode? {
    if equals(value, "none") { return .noFix }
    if equals(value, "2d") { return .twoD }
    if equals(value, "3d") || equals(value, "dgps") || equals(value, "pps") { return .threeD }
    return nil
  }

  /// Calls `body` with `raw`, or with its entity-decoded copy when it holds a reference, or
  /// with nil when a reference is not one of the predefined or character references.
  static func withDecoded<R>(
    _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) -> R
  ) -> R {
    guard raw.contains(0x26) else { return body(raw) }
    guard let decoded = decodedValue(raw) else { return body(nil) }
    return decoded.withUnsafeBufferPointer { body($0) }
  }

  /// The value with character and predefined entity references replaced; nil for any other
  /// reference (no entity is ever looked up in a DTD).
  static func decodedValue(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard raw.contains(0x26) else { return Array(raw) }
    var out: [UInt8] = []
    var i = 0
    while i < raw.count {
      guard raw[i] == 0x26 else {
        out.append(raw[i])
        i += 1
        continue
      }
      var j = i + 1
      while j < raw.count, raw[j] != 0x3B, j - i < 12 { j += 1 }
      guard j < raw.count, raw[j] == 0x3B else { return nil }
      let name = UnsafeBufferPointer(rebasing: raw[(i + 1)..<j])
      if equals(name, "lt") {
        out.append(0x3C)
      } else if equals(name, "gt") {
        out.append(0x3E)
      } else if equals(name, "amp") {
        out.append(0x26)
      } else if equals(name, "quot") {
        out.append(0x22)
      } else if equals(name, "apos") {
        out.append(0x27)
      } else if name.count >= 2, name[0] == 0x23 {
        let hex = name[1] == 0x78
        let digits = String(decoding: name[(hex ? 2 : 1)...], as: UTF8.self)
        guard let code = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(code),
          code != 0
        else { return nil }
        out.append(contentsOf: Array(String(scalar).utf8))
      } else {
        return nil
      }
      i = j + 1
    }
    return out
  }
}
