import TextRules

extension Mission {
  /// The mission as one JSON object, for `missions list --json`, `missions show --json` and
  /// the HTTP service:
  /// `{"id","lat","lon","state","title","reward","currency","address","radius_m","deadline",
  /// "worker_id"}` (absent reward, currency, address, deadline and worker are omitted).
  package var jsonObject: String { jsonWriter().result }

  /// `jsonObject` as a writer, for callers that add fields (`distance_m`).
  package func jsonWriter() -> JSONObjectWriter {
    var json = JSONObjectWriter()
    addMembers(to: &json)
    return json
  }

  /// `jsonObject` as UTF-8 without its closing brace (see `JSONObjectWriter.openBytes`).
  package var openJSONBytes: [UInt8] { jsonWriter().openBytes }

  // In place: a writer passed by value and then mutated would copy the caller's buffer.
  private func addMembers(to json: inout JSONObjectWriter) {
    json.add("id", id)
    json.add("lat", coordinate.latitude)
    json.add("lon", coordinate.longitude)
    json.add("state", state.rawValue)
    json.add("title", title)
    json.addIfPresent("reward", reward)
    json.addIfPresent("currency", currency)
    json.addIfPresent("address", address)
    json.add("radius_m", geofenceRadiusMeters)
    json.addIfPresent("deadline", deadline.map { UTCTime.format($0) })
    json.addIfPresent("worker_id", workerID)
  }
}
