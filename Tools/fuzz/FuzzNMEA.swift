// libFuzzer entry point for the NMEA (and gpsd JSON) decoders. Built by Tools/fuzz/run-nmea,
// which compiles it together with the decoder sources; not part of the SwiftPM package.
import MissionTracking

/// Feeds the input to both decoders in two chunks split at an input-dependent offset (so the
/// partial-line carry is exercised), in lenient and strict mode, and checks the invariants
/// every fix must hold: a finite, in-range position.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  let split = size == 0 ? 0 : Int(data[0]) % (size + 1)
  for strict in [false, true] {
    var nmea = NMEADecoder(strict: strict)
    var fixes: [Fix] = []
    do {
      try nmea.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<split]), into: &fixes)
      try nmea.decode(UnsafeRawBufferPointer(rebasing: bytes[split..<size]), into: &fixes)
      try nmea.finish(into: &fixes)
    } catch {}
    check(fixes)
    precondition(nmea.statistics.fixes == fixes.count || strict)
    var json = GPSDJSONDecoder(strict: strict)
    fixes.removeAll()
    do {
      try json.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<split]), into: &fixes)
      try json.decode(UnsafeRawBufferPointer(rebasing: bytes[split..<size]), into: &fixes)
      try json.finish(into: &fixes)
    } catch {}
    check(fixes)
  }
  return 0
}

private func check(_ fixes: [Fix]) {
  for fix in fixes {
    let c = fix.coordinate
    precondition(c.latitude.isFinite && c.latitude.magnitude <= 90, "latitude \(c.latitude)")
    precondition(c.longitude.isFinite && c.longitude.magnitude <= 180, "longitude \(c.longitude)")
    precondition(fix.time.timeIntervalSince1970.isFinite)
  }
}
