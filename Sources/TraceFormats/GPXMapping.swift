import Foundation
import MissionTracking
import TextRules

/// The GPX meaning of the elements an `XMLTokenizer` delivers: points and their values.
///
/// Elements are matched by local name, so any prefix (`<ns2:trkpt>`) or none works. Points
/// are only recognised in their GPX places: `gpx/trk/trkseg/trkpt`, `gpx/rte/rtept`,
/// `gpx/wpt`. Values (`<time>`, `<ele>`, …) are captured up to `maxValueBytes`, their
/// references replaced, and parsed when the element ends; completed points go to `output`.
struct GPXMapping: XMLTokenHandler {
  /// What an open element is, from the GPX structure's point of view (the state the
  /// tokenizer keeps for each open element).
  enum Context: UInt8 {
    case gpx, track, segment, route, point, pointExtensions, pointExtension, field, other
  }

  /// The point values the mapping reads.
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

  /// The longest value (`<time>`, `<ele>`, …) read; longer ones are bad values.
  static let maxValueBytes = 256

  /// Whether a bad point or value throws instead of being skipped.
  let strict: Bool
  /// Counts so far (`recordsRead` counts point elements).
  var statistics = TraceStatistics()
  /// Points completed since the owner last drained it.
  var output: [GPXPoint] = []
  /// Whether a point element is open.
  private(set) var inPoint = false

  private var trackCount = 0
  private var routeCount = 0
  private var segmentCount = 0
  private var point = PendingPoint()
  private var field: Field?
  /// The open field's text while it is one piece in the buffer being scanned (the usual
  /// case): read in place at the end tag, copied into `capture` only when a second piece
  /// comes or the buffer ends first.
  private var direct: UnsafeBufferPointer<UInt8>?
  private var capture: [UInt8] = []
  private var captureOverflow = false
  private var captureHasMarkup = false

  init(strict: Bool) {
    self.strict = strict
    capture.reserveCapacity(GPXMapping.maxValueBytes)
  }

  /// Counts the point left open by a truncated document as skipped.
  mutating func abandonOpenPoint() {
    guard inPoint else { return }
    statistics.recordsRead += 1
    statistics.skip("truncated document")
    inPoint = false
  }

  // MARK: Tokens

  mutating func startElement(_ tag: XMLStartTag, parent: UInt8?, _ locator: XMLLocator)
    throws(TraceError) -> UInt8
  {
    let name = tag.localName
    let context: Context
    var newField: Field?
    if let parent {
      switch Context(rawValue: parent) ?? .other {
      case .gpx:
        if XMLTokenizer.equals(name, "trk") {
          context = .track
          trackCount += 1
          segmentCount = 0
        } else if XMLTokenizer.equals(name, "rte") {
          context = .route
          routeCount += 1
        } else if XMLTokenizer.equals(name, "wpt") {
          context = .point
          point = PendingPoint(kind: .waypoint)
        } else {
          context = .other
        }
      case .track:
        if XMLTokenizer.equals(name, "trkseg") {
          context = .segment
          segmentCount += 1
        } else {
          context = .other
        }
      case .segment:
        if XMLTokenizer.equals(name, "trkpt") {
          context = .point
          point = PendingPoint(
            kind: .trackPoint, track: trackCount - 1, segment: segmentCount - 1)
        } else {
          context = .other
        }
      case .route:
        if XMLTokenizer.equals(name, "rtept") {
          context = .point
          point = PendingPoint(kind: .routePoint, track: routeCount - 1)
        } else {
          context = .other
        }
      case .point:
        newField = GPXMapping.pointField(name)
        if newField != nil {
          context = .field
        } else if XMLTokenizer.equals(name, "extensions") {
          context = .pointExtensions
        } else {
          context = .other
        }
      case .pointExtensions, .pointExtension:
        if XMLTokenizer.equals(name, "speed") {
          newField = .extensionSpeed
          context = .field
        } else if XMLTokenizer.equals(name, "course") {
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
      guard XMLTokenizer.equals(name, "gpx") else {
        throw locator.error(
          at: tag.start,
          "not a GPX document: the root element is <\(tag.qualifiedName)>, not <gpx>")
      }
      context = .gpx
    }
    if context == .point {
      inPoint = true
      try readPointAttributes(tag, locator)
    } else if let newField {
      field = newField
      if !capture.isEmpty { capture.removeAll(keepingCapacity: true) }
      direct = nil
      captureOverflow = false
      captureHasMarkup = false
    }
    return context.rawValue
  }

  mutating func endElement(_ state: UInt8, at index: Int, _ locator: XMLLocator)
    throws(TraceError)
  {
    switch Context(rawValue: state) {
    case .field: try finishField(at: index, locator)
    case .point: finishPoint()
    default: break
    }
  }

  mutating func characters(_ text: UnsafeBufferPointer<UInt8>) {
    guard field != nil, !captureOverflow else { return }
    let held = capture.count + (direct?.count ?? 0)
    if held + text.count > GPXMapping.maxValueBytes {
      captureOverflow = true
      return
    }
    if held == 0, direct == nil {
      direct = text
      return
    }
    keepDirect()
    capture.append(contentsOf: text)
  }

  mutating func bufferEnds() { keepDirect() }

  /// Copies the text held in place into `capture`.
  private mutating func keepDirect() {
    guard let text = direct else { return }
    direct = nil
    capture.append(contentsOf: text)
  }

  mutating func skipped(_ reason: String) { statistics.skip(reason) }

  // MARK: Points

  private mutating func readPointAttributes(_ tag: XMLStartTag, _ locator: XMLLocator)
    throws(TraceError)
  {
    let b = tag.buffer
    var lat: Double?
    var lon: Double?
    var latRange: Range<Int>?
    var lonRange: Range<Int>?
    var attributes = tag.attributes
    while let (nameRange, valueRange) = try attributes.next(locator) {
      let attribute = UnsafeBufferPointer(rebasing: b[nameRange])
      let isLat = XMLTokenizer.equals(attribute, "lat")
      guard isLat || XMLTokenizer.equals(attribute, "lon") else { continue }
      if (isLat ? latRange : lonRange) != nil {
        throw locator.error(
          at: nameRange.lowerBound, "duplicate attribute \(isLat ? "lat" : "lon")")
      }
      // A reference (`&`) is never part of a number: the raw value is tried first, and only
      // a value that is not a number is looked at for references (one pass fewer).
      let raw = UnsafeBufferPointer(rebasing: b[valueRange])
      let number =
        DecimalText.parseDouble(raw)
        ?? XMLReferences.withUnescaped(raw) { $0.flatMap(DecimalText.parseDouble) }
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
    let kind = point.kind.rawValue
    var problem: (reason: String, message: String)?
    if latRange != nil, lat == nil {
      problem = ("bad lat", "<\(kind)> lat=\"\(shown(latRange))\" is not a number")
    } else if lonRange != nil, lon == nil {
      problem = ("bad lon", "<\(kind)> lon=\"\(shown(lonRange))\" is not a number")
    } else if let lat, let lon {
      if !(-90.0...90.0).contains(lat) {
        problem = (
          "latitude out of range", "<\(kind)> latitude \(shown(latRange)) is outside [-90, 90]"
        )
      } else if !(-180.0...180.0).contains(lon) {
        problem = (
          "longitude out of range",
          "<\(kind)> longitude \(shown(lonRange)) is outside [-180, 180]"
        )
      } else {
        point.coordinate = Coordinate(uncheckedLatitude: lat, longitude: lon)
      }
    } else {
      let missing = lat == nil ? "lat" : "lon"
      problem = ("missing \(missing)", "<\(kind)> has no \(missing) attribute")
    }
    if let problem {
      if strict { throw locator.error(at: tag.start, problem.message) }
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

  private mutating func finishField(at endTag: Int, _ locator: XMLLocator) throws(TraceError) {
    guard let current = field else { return }
    field = nil
    let inPlace = direct
    direct = nil
    guard inPoint, point.skipReason == nil else { return }
    if let inPlace {
      try finishField(current, text: inPlace, at: endTag, locator)
    } else {
      var local: [UInt8] = []
      swap(&local, &capture)
      defer { swap(&local, &capture) }
      try local.withUnsafeBufferPointer { (all) throws(TraceError) in
        try finishField(current, text: all, at: endTag, locator)
      }
    }
  }

  /// Reads the value of field `current` from its whole `text`.
  private mutating func finishField(
    _ current: Field, text: UnsafeBufferPointer<UInt8>, at endTag: Int, _ locator: XMLLocator
  ) throws(TraceError) {
    var start = 0
    var end = text.count
    while start < end, XMLTokenizer.isSpace(text[start]) { start += 1 }
    while end > start, XMLTokenizer.isSpace(text[end - 1]) { end -= 1 }
    if start == end, !captureOverflow, !captureHasMarkup { return }  // empty: absent
    var ok = false
    if !captureOverflow, !captureHasMarkup {
      XMLReferences.withUnescaped(UnsafeBufferPointer(rebasing: text[start..<end])) { decoded in
        guard let v = decoded else { return }
        ok = read(current, from: v)
      }
    }
    guard !ok else { return }
    let shown =
      captureOverflow
      ? "longer than \(GPXMapping.maxValueBytes) bytes"
      : "\"" + String(decoding: text[start..<end], as: UTF8.self) + "\""
    let message = "bad <\(current.tag)> value \(shown) in <\(point.kind.rawValue)>"
    if strict {
      // At the end tag: always in the buffer, so the place does not depend on chunking.
      throw locator.error(at: endTag, message)
    }
    if current == .time {
      point.skipReason = "bad time"
    } else {
      statistics.warn("bad <\(current.tag)> value ignored")
    }
  }

  /// Parses one value into the pending point; false when it is not valid.
  @inline(__always)
  private mutating func read(_ current: Field, from v: UnsafeBufferPointer<UInt8>) -> Bool {
    switch current {
    case .time:
      guard let parsed = UTCTime.parse(utf8: v) else { return false }
      point.time = parsed.date
      if !parsed.hadZone { statistics.warn("time without zone, read as UTC") }
      return true
    case .ele:
      point.ele = GPXMapping.finite(DecimalText.parseDouble(v))
      return point.ele != nil
    case .hdop:
      point.hdop = GPXMapping.finite(DecimalText.parseDouble(v)).flatMap { $0 >= 0 ? $0 : nil }
      return point.hdop != nil
    case .sat:
      point.sat = DecimalText.parseCount(v)
      return point.sat != nil
    case .fix:
      point.fixMode = GPXMapping.fixMode(v)
      point.differential = XMLTokenizer.equals(v, "dgps")
      return point.fixMode != nil
    case .speed, .extensionSpeed:
      let speed = GPXMapping.finite(DecimalText.parseDouble(v)).flatMap { $0 >= 0 ? $0 : nil }
      if current == .speed { point.speed = speed } else { point.extensionSpeed = speed }
      return speed != nil
    case .course, .extensionCourse:
      var course = GPXMapping.finite(DecimalText.parseDouble(v))
      if let c = course {
        let r = c.truncatingRemainder(dividingBy: 360)
        course = r < 0 ? r + 360 : r
        if course == 360 { course = 0 }
      }
      if current == .course { point.course = course } else { point.extensionCourse = course }
      return course != nil
    }
  }

  // MARK: Helpers

  static func finite(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    return value
  }

  static func pointField(_ name: UnsafeBufferPointer<UInt8>) -> Field? {
    switch name.count {
    case 3:
      if XMLTokenizer.equals(name, "ele") { return .ele }
      if XMLTokenizer.equals(name, "sat") { return .sat }
      if XMLTokenizer.equals(name, "fix") { return .fix }
    case 4:
      if XMLTokenizer.equals(name, "time") { return .time }
      if XMLTokenizer.equals(name, "hdop") { return .hdop }
    case 5:
      if XMLTokenizer.equals(name, "speed") { return .speed }
    case 6:
      if XMLTokenizer.equals(name, "course") { return .course }
    default:
      break
    }
    return nil
  }

  static func fixMode(_ value: UnsafeBufferPointer<UInt8>) -> FixMode? {
    if XMLTokenizer.equals(value, "none") { return .noFix }
    if XMLTokenizer.equals(value, "2d") { return .twoD }
    if XMLTokenizer.equals(value, "3d") || XMLTokenizer.equals(value, "dgps")
      || XMLTokenizer.equals(value, "pps")
    {
      return .threeD
    }
    return nil
  }
}
