/// The file formats of `missiontrack report`: a bare SVG or an HTML page around it.
public enum ReportFormat: String, Sendable, CaseIterable {
  /// A standalone SVG 1.1 document.
  case svg
  /// A minimal HTML5 page holding the same SVG inline.
  case html

  /// The format named by `path`'s extension (`.svg`, `.html`, `.htm`, any case), or nil.
  public init?(path: String) {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "svg": self = .svg
    case "html", "htm": self = .html
    default: return nil
    }
  }
}
