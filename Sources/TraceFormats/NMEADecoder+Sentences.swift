import Foundation
import MissionTracking
import TextRules

/// Sentence handlers: each reads its fields in place and merges them into the open epoch.
extension NMEADecoder {
  /// Knots to metres per second (1 kn = 1852 m / 3600 s).
  static let metersPerSecondPerKnot = 1852.0 / 3600.0

  private static func key(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
    UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c)
  }
  private static let rmc = key(0x52, 0x4D, 0x43)
  private static let gga = key(0x47, 0x47, 0x41)
  private static let gll = key(0x47, 0x4C, 0x4C)
  private static let gns = key(0x47, 0x4E, 0x53)
  private static let gsa = key(0x47, 0x53, 0x41)
  private static let vtg = key(0x56, 0x54, 0x47)
  private static let zda = key(0x5A, 0x44, 0x41)
  private static let gst = key(0x47, 0x53, 0x54)

  /// Dispatches a checked sentence by its type; proprietary (`$P…`) and unknown types are
  /// counted as `ignored sentence type`.
  mutating func sentence(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    let address = f.range(0)
    let bytes = f.bytes
    guard address.count == 5, bytes[address.lowerBound] != UInt8(ascii: "P"),
      NMEADecoder.isUpperLetter(bytes[address.lowerBound]),
      NMEADecoder.isUpperLetter(bytes[address.lowerBound + 1])
    else {
      statistics.skip("ignored sentence type")
      return
    }
    let type = NMEADecoder.key(
      bytes[address.lowerBound + 2], bytes[address.lowerBound + 3], bytes[address.lowerBound + 4])
    switch type {
    case NMEADecoder.rmc: try rmc(f, into: &fixes)
    case NMEADecoder.gga: try gga(f, into: &fixes)
    case NMEADecoder.gll: try gll(f, into: &fixes)
    case NMEADecoder.gns: try gns(f, into: &fixes)
    case NMEADecoder.gsa: gsa(f)
    case NMEADecoder.vtg: vtg(f)
    case NMEADecoder.zda: try zda(f, into: &fixes)
    case NMEADecoder.gst: try gst(f, into: &fixes)
    default: statistics.skip("ignored sentence type")
    }
  }

  @inline(__always)
  static func isUpperLetter(_ b: UInt8) -> Bool { b &- 0x41 < 26 }

  // MARK: Epochs

  /// Reads the time field and makes its epoch the open one, closing the previous epoch.
  /// - Returns: false (after counting or throwing) when the time is empty or malformed.
  private mutating func enterEpoch(_ f: NMEAFields, timeField: Int, into fixes: inout [Fix])
    throws(TraceError) -> Bool
  {
    guard let time = f.timeOfDayMicros(timeField) else {
      if f.isEmpty(timeField) {
        statistics.skip("no time")
      } else {
        try reject("bad time", detail: f.text(timeField))
      }
      return false
    }
    if hasEpoch && epoch.timeOfDayMicros == time { return true }
    if let index = olderEpochs.firstIndex(where: { $0.timeOfDayMicros == time }) {
      // A late sentence of an earlier epoch: make that epoch current again.
      let resumed = olderEpochs.remove(at: index)
      let insertion =
        olderEpochs.firstIndex { $0.sequence > epoch.sequence } ?? olderEpochs.count
      olderEpochs.insert(epoch, at: insertion)
      epoch = resumed
      return true
    }
    // Sentences of one epoch may arrive after those of the next (out-of-order logs), so an
    // epoch stays open until `maximumOpenEpochs - 1` newer ones have opened.
    if hasEpoch {
      let insertion =
        olderEpochs.firstIndex { $0.sequence > epoch.sequence } ?? olderEpochs.count
      olderEpochs.insert(epoch, at: insertion)
    }
    if olderEpochs.count >= NMEADecoder.maximumOpenEpochs {
      close(olderEpochs.removeFirst(), into: &fixes)
    }
    epochSequence += 1
    epoch = NMEAEpoch(timeOfDayMicros: time, line: lineNumber, sequence: epochSequence)
    hasEpoch = true
    return true
  }

  /// Closes every open epoch in arrival order (end of input).
  mutating func closeAllEpochs(into fixes: inout [Fix]) {
    if hasEpoch {
      let insertion =
        olderEpochs.firstIndex { $0.sequence > epoch.sequence } ?? olderEpochs.count
      olderEpochs.insert(epoch, at: insertion)
      hasEpoch = false
    }
    for open in olderEpochs { close(open, into: &fixes) }
    olderEpochs.removeAll()
  }

  /// Turns the open epoch into a fix (or keeps it until a date is known).
  mutating func close(_ closing: NMEAEpoch, into fixes: inout [Fix]) {
    guard closing.hasPosition || closing.day != nil else { return }
    let before = fixes.count
    if let day = dates.day(for: closing.timeOfDayMicros, own: closing.day) {
      if dates.hasPending {
        dates.backFill(day: day, timeOfDay: closing.timeOfDayMicros, into: &fixes)
      }
      if let fix = closing.fix(day: day, source: source) { fixes.append(fix) }
    } else if let fix = closing.fix(day: 0, source: source) {
      dates.hold(fix, timeOfDay: closing.timeOfDayMicros)
    }
    if let rollover {
      for k in before..<fixes.count {
        guard let moved = rollover.corrected(fixes[k].time.timeIntervalSince1970) else { continue }
        fixes[k].time = Date(timeIntervalSince1970: moved)
        statistics.warn(NMEADecoder.rolloverWarning)
      }
    }
    statistics.fixes += fixes.count - before
  }

  /// Marks the open epoch as having no fix and counts the sentence.
  private mutating func noFix() {
    if hasEpoch { epoch.hasPosition = false }
    statistics.skip("no fix")
  }

  /// Reads latitude/longitude at `index`…`index + 3` into the open epoch.
  private mutating func position(_ f: NMEAFields, at index: Int) throws(TraceError) -> Bool {
    guard
      let latitude = f.degrees(
        index, negativeLetter: UInt8(ascii: "S"), positiveLetter: UInt8(ascii: "N")),
      let longitude = f.degrees(
        index + 2, negativeLetter: UInt8(ascii: "W"), positiveLetter: UInt8(ascii: "E"))
    else {
      noFix()
      return false
    }
    guard !latitude.isNaN, latitude.magnitude <= 90 else {
      try reject("bad latitude", detail: "\(f.text(index)),\(f.text(index + 1))")
      return false
    }
    guard !longitude.isNaN, longitude.magnitude <= 180 else {
      try reject("bad longitude", detail: "\(f.text(index + 2)),\(f.text(index + 3))")
      return false
    }
    epoch.latitude = latitude
    epoch.longitude = longitude
    epoch.hasPosition = true
    return true
  }

  /// `ddmmyy` with the century rule; nil when malformed.
  private mutating func date(_ f: NMEAFields, at index: Int) -> Int? {
    let r = f.range(index)
    guard r.count == 6, let day = f.twoDigits(r.lowerBound),
      let month = f.twoDigits(r.lowerBound + 2), let yy = f.twoDigits(r.lowerBound + 4),
      (1...31).contains(day), (1...12).contains(month)
    else { return nil }
    let year = (century ?? (yy >= 80 ? 1900 : 2000)) + Int(yy)
    return UTCTime.daysFromCivil(year: year, month: Int(month), day: Int(day))
  }

  // MARK: Sentences

  /// RMC: time, status, position, speed (knots), course, date, magnetic variation, mode
  /// (2.3), navigational status (4.1, ignored).
  private mutating func rmc(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 1, into: &fixes) else { return }
    if !f.isEmpty(9) {
      if let day = date(f, at: 9) {
        epoch.day = day
      } else {
        statistics.warn("bad date")
      }
    }
    // Field 13, the NMEA 4.1 navigational status, is not a validity flag: gpsd 3.22's
    // processRMC ignores it, and a Quectel EC2x sends `V` there on every sentence.
    let mode = f.byte(12)
    guard f.byte(2) == UInt8(ascii: "A"), mode != UInt8(ascii: "N") else {
      noFix()
      return
    }
    guard try position(f, at: 3) else { return }
    if let knots = f.double(7) {
      epoch.speedMetersPerSecond = knots * NMEADecoder.metersPerSecondPerKnot
    }
    if let course = f.double(8) { epoch.courseDegrees = course }
    if mode == UInt8(ascii: "D") || mode == UInt8(ascii: "R") || mode == UInt8(ascii: "F") {
      epoch.differential = true
    }
  }

  /// GGA: time, position, quality, satellites, HDOP, altitude (MSL), geoid separation.
  private mutating func gga(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 1, into: &fixes) else { return }
    let quality = f.int(6) ?? 0
    guard quality != 0 else {
      noFix()
      return
    }
    // gpsd 3.22's processGGA: fewer than 3 satellites in use (an empty field counts as 0, as
    // its `atoi`) is no fix, whatever the quality says; Hemisphere receivers send `00` with
    // quality 1 for seconds after power-up.
    guard (f.int(7) ?? 0) >= 3 else {
      if hasEpoch { epoch.hasPosition = false }
      statistics.skip("no fix (fewer than 3 satellites)")
      return
    }
    guard try position(f, at: 2) else { return }
    if quality == 2 || quality == 4 || quality == 5 { epoch.differential = true }
    if let satellites = f.int(7) { epoch.satellitesUsed = satellites }
    if let hdop = f.double(8) { epoch.hdop = hdop }
    if let altitude = f.double(9) {
      epoch.altitudeMeters = altitude
      epoch.hasAltitudeSolution = true
    }
  }

  /// GLL: position, time, status, mode (2.3).
  private mutating func gll(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 5, into: &fixes) else { return }
    guard f.byte(6) == UInt8(ascii: "A"), f.byte(7) != UInt8(ascii: "N") else {
      noFix()
      return
    }
    _ = try position(f, at: 1)
  }

  /// GNS: time, position, per-constellation mode letters, satellites, HDOP, altitude,
  /// navigation status (4.1).
  private mutating func gns(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 1, into: &fixes) else { return }
    var valid = false
    var differential = false
    for i in f.range(6) {
      let letter = f.bytes[i]
      if letter != UInt8(ascii: "N") { valid = true }
      if letter == UInt8(ascii: "D") || letter == UInt8(ascii: "R") || letter == UInt8(ascii: "F") {
        differential = true
      }
    }
    guard valid, f.byte(13) != UInt8(ascii: "V") else {
      noFix()
      return
    }
    guard try position(f, at: 2) else { return }
    if differential { epoch.differential = true }
    if let satellites = f.int(7) { epoch.satellitesUsed = satellites }
    if let hdop = f.double(8) { epoch.hdop = hdop }
    if let altitude = f.double(9) {
      epoch.altitudeMeters = altitude
      epoch.hasAltitudeSolution = true
    }
  }

  /// GSA: fix type (2D/3D) and HDOP for the open epoch. A GSA "no fix" does not cancel a
  /// position that RMC/GGA reported valid.
  private mutating func gsa(_ f: NMEAFields) {
    guard hasEpoch else {
      statistics.skip("no epoch open")
      return
    }
    switch f.int(2) {
    case 2: epoch.gsaMode = .twoD
    case 3: epoch.gsaMode = .threeD
    default: break
    }
    if let hdop = f.double(16) { epoch.hdop = hdop }
  }

  /// VTG: course (true) and speed, in the NMEA 2.x layout (`c,T,m,M,s,N,k,K,mode`) or the
  /// old one (`c,m,s,k`). Mode `N` (not valid) is ignored.
  private mutating func vtg(_ f: NMEAFields) {
    guard hasEpoch else {
      statistics.skip("no epoch open")
      return
    }
    let course: Double?
    let knots: Double?
    if f.byte(2) == UInt8(ascii: "T") {
      guard f.byte(9) != UInt8(ascii: "N") else {
        statistics.skip("no fix")
        return
      }
      course = f.double(1)
      knots = f.double(5)
    } else {
      course = f.double(1)
      knots = f.double(3)
    }
    if let course { epoch.courseDegrees = course }
    if let knots { epoch.speedMetersPerSecond = knots * NMEADecoder.metersPerSecondPerKnot }
  }

  /// ZDA: time, day, month, four-digit year (which also sets the century of later RMCs).
  private mutating func zda(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 1, into: &fixes) else { return }
    if f.isEmpty(2) && f.isEmpty(3) && f.isEmpty(4) { return }
    guard let day = f.int(2), let month = f.int(3), let year = f.int(4),
      (1...31).contains(day), (1...12).contains(month), (1900...2999).contains(year)
    else {
      try reject("bad date", detail: "\(f.text(2)),\(f.text(3)),\(f.text(4))")
      return
    }
    century = year / 100 * 100
    epoch.day = UTCTime.daysFromCivil(year: year, month: month, day: day)
  }

  /// GST: pseudorange error statistics; σ latitude and σ longitude give 2DRMS accuracy.
  private mutating func gst(_ f: NMEAFields, into fixes: inout [Fix]) throws(TraceError) {
    guard try enterEpoch(f, timeField: 1, into: &fixes) else { return }
    guard let sigmaLatitude = f.double(6), let sigmaLongitude = f.double(7) else { return }
    epoch.gstHorizontalMeters =
      2 * (sigmaLatitude * sigmaLatitude + sigmaLongitude * sigmaLongitude).squareRoot()
  }
}
