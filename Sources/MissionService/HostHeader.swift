import Foundation

/// A `Host` header value read as RFC 9110 §7.2 defines it, `uri-host [ ":" port ]`: the host
/// of RFC 3986 §3.2.2 (an IP-literal in brackets, or a reg-name, which an IPv4 address in
/// dotted decimal also is) and optional port digits. The service's one reader of a Host value:
/// what does not parse is not a host and port, and is refused (400), so that no proxy in front
/// can read another host out of it than the one the loopback check saw.
struct HostHeader: Sendable, Equatable {
  /// The host part.
  enum Host: Sendable, Equatable {
    /// An IPv6 address (or an IPvFuture literal), without its brackets, lower-cased.
    case ipLiteral(String)
    /// A reg-name or IPv4 address, lower-cased (ASCII letters only: names are
    /// case-insensitive).
    case name(String)
  }

  let host: Host
  /// The port, when digits follow the colon (`host:` with none is valid and has none).
  let port: Int?

  /// The value parsed, or nil when it is not a host with an optional port. An empty host
  /// (which RFC 3986 allows for a reg-name) is refused: no client of this service sends one.
  init?(_ value: String) {
    let bytes = Array(value.utf8)
    let portStart: Int
    if bytes.first == UInt8(ascii: "[") {
      guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
      let literal = String(decoding: bytes[1..<close], as: UTF8.self).lowercased()
      guard Self.isIPv6(literal) || Self.isIPvFuture(Array(literal.utf8)) else { return nil }
      host = .ipLiteral(literal)
      portStart = close + 1
    } else {
      let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
      let name = bytes[..<end]
      guard !name.isEmpty, Self.isRegName(name) else { return nil }
      host = .name(String(decoding: name, as: UTF8.self).lowercased())
      portStart = end
    }
    let rest = bytes[portStart...]
    if rest.isEmpty {
      port = nil
      return
    }
    guard rest.first == UInt8(ascii: ":") else { return nil }
    let digits = rest.dropFirst()
    guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    if digits.isEmpty {
      port = nil
      return
    }
    // More than five digits is no TCP port; the count bounds the number before it is read.
    guard digits.count <= 5, let number = Int(String(decoding: digits, as: UTF8.self)),
      number <= 65_535
    else { return nil }
    port = number
  }

  /// Whether the host is a loopback address: `localhost`, `127.x.y.z` or `[::1]` (any
  /// spelling of it).
  var isLoopback: Bool {
    switch host {
    case .name(let name):
      var address = in_addr()
      return name == "localhost"
        // Bytes compared: with Foundation imported, `hasPrefix` is its substring search,
        // 1% of a server thread's time.
        || (name.utf8.starts(with: "127.".utf8) && inet_pton(AF_INET, name, &address) == 1)
    case .ipLiteral(let literal):
      var address = in6_addr()
      guard inet_pton(AF_INET6, literal, &address) == 1 else { return false }
      return withUnsafeBytes(of: &address) { bytes in
        bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
      }
    }
  }

  private static func isIPv6(_ text: String) -> Bool {
    var address = in6_addr()
    return inet_pton(AF_INET6, text, &address) == 1
  }

  /// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )` (RFC 3986 §3.2.2).
  private static func isIPvFuture(_ bytes: [UInt8]) -> Bool {
    guard bytes.first == UInt8(ascii: "v"), let dot = bytes.firstIndex(of: UInt8(ascii: "."))
    else { return false }
    let version = bytes[1..<dot]
    let rest = bytes[(dot + 1)...]
    return !version.isEmpty && version.allSatisfy(\.isHexDigit) && !rest.isEmpty
      && rest.allSatisfy { $0.isUnreserved || $0.isSubDelimiter || $0 == UInt8(ascii: ":") }
  }

  /// `*( unreserved / pct-encoded / sub-delims )` (RFC 3986 §3.2.2).
  private static func isRegName(_ bytes: ArraySlice<UInt8>) -> Bool {
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.endIndex, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit
        else { return false }
        index += 3
        continue
      }
      guard byte.isUnreserved || byte.isSubDelimiter else { return false }
      index += 1
    }
    return true
  }
}

extension UInt8 {
  /// `ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
  fileprivate var isUnreserved: Bool {
    (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self)
      || self == UInt8(ascii: "-") || self == UInt8(ascii: ".") || self == UInt8(ascii: "_")
      || self == UInt8(ascii: "~")
  }

  /// `"!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (RFC 3986 §2.2).
  fileprivate var isSubDelimiter: Bool {
    switch self {
    // ! $ & ' ( ) * + , ; =
    case 0x21, 0x24, 0x26...0x2C, 0x3B, 0x3D: true
    default: false
    }
  }

  fileprivate var isHexDigit: Bool {
    (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
  }
}
