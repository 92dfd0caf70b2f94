import CommandLineSupport
import Foundation
import MissionReporting

extension ReportRenderer {
  /// Renders `report` into the file at `path`, as SVG or HTML by its extension, with the
  /// rules of every `-o` (`OutputFile`): replaced atomically, keeping its mode; never the
  /// database, a directory, a FIFO or a device (what `missiontrack report ID -o FILE` does).
  ///
  /// - Parameters:
  ///   - console: Where `-o -` writes.
  ///   - database: The `--db` path, never to be overwritten.
  /// - Returns: The format written.
  /// - Throws: `CLIError.usage` when the extension is neither `.svg` nor `.html`/`.htm`;
  ///   `CLIError.failure` naming the path when the file is refused or cannot be written.
  @discardableResult
  func write(
    _ report: MissionReport, toPath path: String, console: Console, database: String? = nil
  ) throws(CLIError) -> ReportFormat {
    guard let format = ReportFormat(path: path) else {
      throw .usage("-o FILE must end in .svg or .html, got '\(path)'")
    }
    try OutputFile.write(
      render(report, as: format), toPath: path, console: console, database: database)
    return format
  }
}
