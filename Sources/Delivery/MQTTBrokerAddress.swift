/// Where the MQTT broker listens, from `mqtt://HOST[:PORT]` (port 1883 when absent).
package struct MQTTBrokerAddress: Sendable, Equatable {
  /// The host name or address (an IPv6 address without its brackets).
  package var host: String
  /// The TCP port.
  package var port: Int

  /// A broker at `host:port`.
  package init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// The address in `url`: `mqtt://HOST[:PORT][/]`; `[…]` around an IPv6 address.
  /// - Throws: `DeliveryError.badBrokerURL` naming the URL and what is wrong (another
  ///   scheme, no host, a port that is not 1–65535, a path, user info).
  package init(url: String) throws(DeliveryError) {
    func bad(_ why: String) -> DeliveryError {
      .badBrokerURL("bad MQTT broker URL '\(url)': \(why) (expected mqtt://HOST:PORT)")
    }
    guard url.hasPrefix("mqtt://") else {
      throw bad(url.hasPrefix("mqtts://") ? "TLS (mqtts) is not supported" : "not mqtt://")
    }
    var rest = Substring(url.dropFirst("mqtt://".count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains("/") else { throw bad("a path is not allowed") }
    guard !rest.contains("@") else { throw bad("user info is not supported") }
    var portText: Substring?
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw bad("no ] after the IPv6 address") }
      host = String(rest[rest.index(after: rest.startIndex)..<close])
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw bad("text after the IPv6 address") }
        portText = after.dropFirst()
      }
    } else if let colon = rest.firstIndex(of: ":") {
      host = String(rest[..<colon])
      portText = rest[rest.index(after: colon)...]
    } else {
      host = String(rest)
    }
    guard !host.isEmpty else { throw bad("no host") }
    guard !host.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "%" }) else {
      throw bad("the host has a space or a control character")
    }
    if let portText {
      guard portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65_535).contains(port)
      else { throw bad("the port must be a number from 1 to 65535") }
      self.port = port
    } else {
      port = 1_883
    }
  }

  /// `mqtt://HOST:PORT`, for messages.
  package var url: String {
    host.contains(":") ? "mqtt://[\(host)]:\(port)" : "mqtt://\(host):\(port)"
  }
}
