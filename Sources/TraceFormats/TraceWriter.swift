import MissionTracking

/// Writes fixes in any of the trace formats the readers know, so a trace can be rewritten
/// in its own format (`missiontrack trace mutate`) or converted.
public enum TraceWriter {
  /// A whole document holding `fixes` in `format`: a GPX 1.1 track, an NMEA log or gpsd
  /// TPV lines. Reading it back gives the same fixes, within each format's precision (see
  /// `GPXWriter`, `NMEAWriter`, `GPSDJSONWriter`).
  public static func document(for fixes: some Sequence<Fix>, as format: TraceFormat) -> String {
    switch format {
    case .gpx: GPXWriter.document(for: fixes)
    case .nmea: NMEAWriter.document(for: fixes)
    case .gpsdJSON: GPSDJSONWriter.document(for: fixes)
    }
  }
}
