import TextRules

extension WorkerDevice {
  /// The devices as a JSON array for people and programs, never with a secret:
  /// `[{"protocol","device_id","has_secret"}]` (`workers list --json`, `/v1/workers`).
  package static func publicJSONArray(_ devices: [WorkerDevice]) -> String {
    let objects = devices.map { device in
      var object = JSONObjectWriter()
      object.add("protocol", device.ingestProtocol.rawValue)
      object.add("device_id", device.deviceID)
      object.add("has_secret", device.secret != nil)
      return object.result
    }
    return "[" + objects.joined(separator: ",") + "]"
  }
}
