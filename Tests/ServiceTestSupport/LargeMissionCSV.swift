/// A mission CSV of just under 16 MiB (the service's body limit): missions `big-0`, `big-1`,
/// … for tests that stop an import on its way.
public struct LargeMissionCSV {
  /// The file's bytes.
  public let bytes: [UInt8]
  /// The first and the last mission id.
  public let ids: [String]

  /// The CSV, with `extraColumns` empty columns in each row (each a field of its own for the
  /// split, and an unknown field kept verbatim for the validation).
  public init(extraColumns: Int = 0) {
    let extra = (0..<extraColumns).map { ",c\($0)" }.joined()
    let empty = String(repeating: ",", count: extraColumns)
    var csv = Array("id,lat,lon\(extra)\n".utf8)
    csv.reserveCapacity(16 << 20)
    var index = 0
    while csv.count < (16 << 20) - 64 - extraColumns {
      let lat = Double(index % 1_000_000) / 1_000_000 * 10 + 55
      csv.append(contentsOf: "big-\(index),\(lat),\(17 + Double(index % 997) / 997)\(empty)\n".utf8)
      index += 1
    }
    bytes = csv
    ids = ["big-0", "big-\(index - 1)"]
  }
}
