/// The MQTT topics of DESIGN §9 under one prefix (default `missiontrack`):
///
/// | topic | QoS, retained | payload |
/// |---|---|---|
/// | `PREFIX/missions/{id}/events` | 1, no | each event's JSON with `seq` |
/// | `PREFIX/missions/{id}/state` | 1, yes | the mission object |
/// | `PREFIX/workers/{id}/position` | 1, yes while tracked | the last fix; empty clears it |
/// | `PREFIX/status` | 1, yes | `online`, or `offline` (the last will) |
///
/// Ids become one topic level each, escaped so no id can add a level or act as a wildcard:
/// `%` → `%25`, `/` → `%2F`, `+` → `%2B`, `#` → `%23`, NUL → `%00` (percent-encoding, so a
/// subscriber decodes the level with any URL decoder; every other character is kept, so a
/// plain id is its own level: `missions/M-17/events`). Ids never contain NUL (the id rules
/// refuse control characters); it is escaped anyway so no topic is ever cut short.
package struct MQTTTopics: Sendable, Equatable {
  /// The first level(s) of every topic, without a trailing `/`.
  package let prefix: String

  /// Topics under `prefix`.
  /// - Throws: `DeliveryError.badTopic` when the prefix is empty, has `+`, `#` or NUL,
  ///   starts with `$` (reserved for the broker) or `/`, or ends with `/`.
  package init(prefix: String = "missiontrack") throws(DeliveryError) {
    func bad(_ why: String) -> DeliveryError {
      .badTopic("bad MQTT topic prefix '\(prefix)': \(why)")
    }
    guard !prefix.isEmpty else { throw bad("it is empty") }
    guard !prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) else {
      throw bad("MQTT wildcards (+, #) and NUL are not allowed")
    }
    guard !prefix.hasPrefix("$") else { throw bad("topics starting with $ are the broker's") }
    guard !prefix.hasPrefix("/"), !prefix.hasSuffix("/") else {
      throw bad("it must not start or end with /")
    }
    self.prefix = prefix
  }

  /// `PREFIX/status`: `online` or `offline`, retained; the last will.
  package var status: String { prefix + "/status" }

  /// `PREFIX/missions/{id}/events`: each event of the mission.
  package func missionEvents(_ missionID: String) -> String {
    "\(prefix)/missions/\(Self.level(missionID))/events"
  }

  /// `PREFIX/missions/{id}/state`: the mission object, retained.
  package func missionState(_ missionID: String) -> String {
    "\(prefix)/missions/\(Self.level(missionID))/state"
  }

  /// `PREFIX/workers/{id}/position`: the worker's last fix, retained while tracked.
  package func workerPosition(_ workerID: String) -> String {
    "\(prefix)/workers/\(Self.level(workerID))/position"
  }

  /// `id` as one topic level: `%`, `/`, `+`, `#` and NUL percent-encoded.
  package static func level(_ id: String) -> String {
    guard id.unicodeScalars.contains(where: { "%/+#\0".unicodeScalars.contains($0) }) else {
      return id
    }
    var out = ""
    for scalar in id.unicodeScalars {
      switch scalar {
      case "%": out += "%25"
      case "/": out += "%2F"
      case "+": out += "%2B"
      case "#": out += "%23"
      case "\0": out += "%00"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
