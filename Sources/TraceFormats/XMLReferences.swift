/// Replacing the references in what the GPX reader reads: the five predefined entities and
/// character references, never an entity looked up in a DTD.
enum XMLReferences {
  /// Calls `body` with `raw`, or with its copy with references replaced when it holds one, or
  /// with nil when a reference is not one of the predefined or character references.
  static func withUnescaped<R>(
    _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) -> R
  ) -> R {
    guard raw.contains(0x26) else { return body(raw) }
    guard let decoded = unescaped(raw) else { return body(nil) }
    return decoded.withUnsafeBufferPointer { body($0) }
  }

  /// The value with character and predefined entity references replaced; nil for any other
  /// reference (no entity is ever looked up in a DTD).
  static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
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
      if XMLTokenizer.equals(name, "lt") {
        out.append(0x3C)
      } else if XMLTokenizer.equals(name, "gt") {
        out.append(0x3E)
      } else if XMLTokenizer.equals(name, "amp") {
        out.append(0x26)
      } else if XMLTokenizer.equals(name, "quot") {
        out.append(0x22)
      } else if XMLTokenizer.equals(name, "apos") {
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
