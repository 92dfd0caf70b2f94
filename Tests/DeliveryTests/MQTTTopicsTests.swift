import Testing

@testable import Delivery

@Suite struct MQTTTopicsTests {
  @Test func theTopicsOfDesignSection9() throws {
    let topics = try MQTTTopics()
    #expect(topics.status == "missiontrack/status")
    #expect(topics.missionEvents("M-17") == "missiontrack/missions/M-17/events")
    #expect(topics.missionState("M-17") == "missiontrack/missions/M-17/state")
    #expect(topics.workerPosition("anna") == "missiontrack/workers/anna/position")
    #expect(try MQTTTopics(prefix: "site/a").status == "site/a/status")
  }

  /// An id can neither add a level nor act as a wildcard; `%` is escaped so decoding is
  /// exact; every other character (spaces, non-ASCII, `$`) stays.
  @Test(arguments: [
    ("a/b", "a%2Fb"), ("+", "%2B"), ("#", "%23"), ("50%", "50%25"), ("a\0b", "a%00b"),
    ("%2F", "%252F"), ("Storgatan 12 · å", "Storgatan 12 · å"), ("$SYS", "$SYS"),
  ])
  func idsAreEscapedIntoOneLevel(id: String, level: String) throws {
    #expect(MQTTTopics.level(id) == level)
    #expect(try MQTTTopics().missionEvents(id) == "missiontrack/missions/\(level)/events")
  }

  @Test(arguments: ["", "a/+", "#", "a\0b", "$SYS", "/a", "a/"])
  func aBadPrefixIsRefused(prefix: String) {
    #expect(throws: DeliveryError.self) { try MQTTTopics(prefix: prefix) }
  }

  @Test(arguments: [
    ("mqtt://127.0.0.1:18830", "127.0.0.1", 18_830), ("mqtt://broker.local", "broker.local", 1_883),
    ("mqtt://broker:1/", "broker", 1), ("mqtt://[::1]:2000", "::1", 2_000),
    ("mqtt://[::1]", "::1", 1_883),
  ])
  func brokerURLsParse(url: String, host: String, port: Int) throws {
    #expect(try MQTTBrokerAddress(url: url) == MQTTBrokerAddress(host: host, port: port))
  }

  @Test(arguments: [
    ("http://broker:1883", "not mqtt://"), ("mqtts://broker:8883", "TLS (mqtts) is not supported"),
    ("mqtt://", "no host"), ("mqtt://:1883", "no host"), ("mqtt://b:0", "port"),
    ("mqtt://b:65536", "port"), ("mqtt://b:x", "port"), ("mqtt://b:1883/topic", "path"),
    ("mqtt://u:p@b:1883", "user info"), ("mqtt://[::1:1883", "]"), ("mqtt://a b:1", "space"),
  ])
  func badBrokerURLsSayWhatIsWrongInOneLine(url: String, reason: String) {
    #expect {
      try MQTTBrokerAddress(url: url)
    } throws: { error in
      let text = String(describing: error)
      return text.contains(reason) && text.contains(url) && !text.contains("\n")
    }
  }
}
