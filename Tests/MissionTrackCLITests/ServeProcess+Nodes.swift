import Foundation
import ServiceTestSupport

extension ServeProcess {
  /// Two `serve` nodes on database `uri` (DESIGN §10), each feeding a receiver worker of
  /// its own (`rig-a`, `rig-b`: one tracker per worker), their standard errors in `box`
  /// as TAG-a.err and TAG-b.err. Each stops when released.
  static func twoNodes(on uri: String, in box: CLISandbox, tag: String) throws
    -> (ServeProcess, ServeProcess)
  {
    let nodeA = try ServeProcess(
      ["--db", uri, "--worker", "rig-a"], in: box.directory, tag: "\(tag)-a")
    let nodeB = try ServeProcess(
      ["--db", uri, "--worker", "rig-b"], in: box.directory, tag: "\(tag)-b")
    return (nodeA, nodeB)
  }
}
