/// gpsd at `host:port` as a `LiveEndpoint`: libgps connects and watches, `GPSDJSONDecoder`
/// decodes.
struct GPSDEndpoint: LiveEndpoint {
  var host: String
  var port: Int
  var device: String?

  var receiverName: String { "gpsd at \(GPSDFixSource.endpointText(host: host, port: port))" }
  var outageSubject: String { "gpsd" }

  func open() throws(LinkOpenFailure) -> GPSDConnection {
    try GPSDConnection.open(host: host, port: port, device: device)
  }

  func connectedDetail(for link: GPSDConnection) -> String {
    receiverName + (device.map { " watching \($0)" } ?? "")
  }

  func openFailureDetail(_ reason: String) -> String {
    "cannot connect to \(receiverName): \(reason)"
  }

  func makeDecoder() -> GPSDLiveDecoder { GPSDLiveDecoder(receiver: receiverName) }
}
