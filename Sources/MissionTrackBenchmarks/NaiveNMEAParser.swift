import CommandLineSupport
import Foundation

/// The naive baseline: how one would first write an NMEA reader with `String` APIs.
enum NaiveNMEAParser {
  /// Reads the file in 1 MB chunks, splits lines and fields as `String`s and counts the
  /// epochs (RMC/GGA with the same time) that have a valid position.
  static func countFixes(path: String) throws -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw CLIError.failure("\(path): cannot open")
    }
    defer { try? handle.close() }
    var fixes = 0
    var lastTime = ""
    var pending = ""
    var latitudeSum = 0.0
    while true {
      let data = handle.readData(ofLength: 1 << 20)
      if data.isEmpty { break }
      let text = pending + String(decoding: data, as: UTF8.self)
      var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      pending = String(lines.removeLast())
      for line in lines {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("$"), let star = trimmed.lastIndex(of: "*") else { continue }
        let fields = trimmed[trimmed.startIndex..<star].split(
          separator: ",", omittingEmptySubsequences: false)
        guard fields.count > 6 else { continue }
        let type = fields[0].suffix(3)
        let valid: Bool
        let latitudeIndex: Int
        if type == "RMC" {
          valid = fields[2] == "A"
          latitudeIndex = 3
        } else if type == "GGA" {
          valid = fields[6] != "0"
          latitudeIndex = 2
        } else {
          continue
        }
        guard valid, let ddmm = Double(fields[latitudeIndex]),
          let lon = Double(fields[latitudeIndex + 2])
        else { continue }
        latitudeSum += (ddmm / 100).rounded(.down) + ddmm.truncatingRemainder(dividingBy: 100) / 60
        latitudeSum += lon * 0
        let time = String(fields[1])
        if time != lastTime {
          fixes += 1
          lastTime = time
        }
      }
    }
    precondition(latitudeSum.isFinite)
    return fixes
  }
}
