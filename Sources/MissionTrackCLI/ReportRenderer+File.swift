import Foundation
import MissionReporting

extension ReportRenderer {
  /// Renders `report` into the file at `path`, as SVG or HTML by its extension, replacing
  /// the file atomically (what `missiontrack report ID -o FILE` does).
  ///
  /// - Returns: The format written.
  /// - Throws: `CLIError.usage` when the extension is neither `.svg` nor `.html`/`.htm`;
  ///   `CLIError.failure` naming the path when the file cannot be written.
  @discardableResult
  func write(_ report: MissionReport, toPath path: String) throws(CLIError) -> ReportFormat {
    guard let format = ReportFormat(path: path) else {
      throw .usage("-o FILE must end in .svg or .html, got '\(path)'")
    }
    do {
      try Data(render(report, as: format).utf8).write(
        to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw .failure("cannot write '\(path)': \(error.localizedDescription)")
    }
    return format
  }
}
