/// A plain-text table for people: a header row and left-aligned columns separated by two
/// spaces (numeric columns right-aligned), sized to the widest cell.
///
/// Cells are shown through `String.terminalSafe`: a control character in a title (an escape
/// sequence, a line break) is printed escaped, so it can neither drive the terminal nor
/// break a row.
struct TextTable {
  /// Column titles.
  var header: [String]
  /// Indexes of columns aligned right (numbers).
  var rightAligned: Set<Int> = []
  /// The rows, each with one cell per column.
  var rows: [[String]] = []

  /// The table's lines (header first), without trailing spaces.
  var lines: [String] {
    let all = ([header] + rows).map { row in row.map(\.terminalSafe) }
    var widths = Array(repeating: 0, count: header.count)
    for row in all {
      for (i, cell) in row.enumerated() where i < widths.count {
        widths[i] = max(widths[i], cell.count)
      }
    }
    return all.map { row in
      var line = ""
      for (i, cell) in row.enumerated() where i < widths.count {
        let pad = String(repeating: " ", count: widths[i] - cell.count)
        if i > 0 { line += "  " }
        line += rightAligned.contains(i) ? pad + cell : cell + pad
      }
      while line.last == " " { line.removeLast() }
      return line
    }
  }
}
