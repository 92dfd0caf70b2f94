import Testing

@testable import MissionService

/// `HostHeader`, the one reader of a Host value: RFC 3986 host and optional port, nothing
/// else.
struct HostHeaderTests {
  @Test(arguments: [
    "[::1]attacker.example", "[::1", "[::1]:80evil", "localhost:evil.example", "", ":80",
    "a b", "host:80:81", "[127.0.0.1]", "[::1]]", "h%zz", "h%4", "example.com:65536",
    "example.com:123456", "[fe80::1%25eth0]", "exa/mple", "user@host", "[v1.]", "[vz.x]",
  ])
  func whatIsNotAHostAndPortIsRefused(value: String) {
    #expect(HostHeader(value) == nil, "\(value)")
  }

  @Test func hostsAndPortsAreReadWithTheirLoopbackness() {
    let cases: [(String, Bool, Int?)] = [
      ("127.0.0.1", true, nil), ("127.0.0.1:8947", true, 8947), ("LOCALHOST", true, nil),
      ("localhost:", true, nil), ("[::1]", true, nil), ("[::1]:80", true, 80),
      ("[0:0:0:0:0:0:0:1]:1", true, 1), ("127.1.2.3:65535", true, 65_535),
      ("127.evil.example", false, nil), ("evil.example:8947", false, 8947),
      ("127.1", false, nil), ("[::2]", false, nil), ("[v1.fe]:9", false, 9),
      ("ex%41mple.com", false, nil), ("a-b_c~d!$&'()*+,;=", false, nil),
    ]
    for (value, loopback, port) in cases {
      let host = HostHeader(value)
      #expect(host != nil, "\(value)")
      #expect(host?.isLoopback == loopback, "\(value)")
      #expect(host?.port == port, "\(value)")
    }
  }

  @Test func aListenAddressIsLoopbackByTheSameRule() {
    let loopback = ["127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "0::1"]
    let other = ["0.0.0.0", "::", "10.1.2.3", "::ffff:127.0.0.1", "127.0.0.1.5", "::2"]
    for host in loopback + other {
      var configuration = ServiceConfiguration()
      configuration.host = host
      #expect(configuration.listensOnLoopback == loopback.contains(host), "\(host)")
    }
  }
}
