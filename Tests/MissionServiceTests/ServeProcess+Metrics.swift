import ServiceTestSupport

extension ServeProcess {
  /// The value of the `/metrics` sample `name{labels}` now, or nil (no such sample, or no
  /// answer).
  func metric(_ sample: String) -> Int? {
    let text = (try? RawHTTP.request(port: port, "GET", "/metrics").text) ?? ""
    return PhoneFixtures.metric(text, sample)
  }
}
