import CommandLineSupport
import Foundation
import MissionTracking
import Testing
import TextRules

@testable import MissionTrackCLI

/// Numbers, ids, `--` and terminal text on the command line (issue 14: "Ids", "Values",
/// "Terminal output").
@Suite struct CommandLineValueTests {
  @Test(arguments: [
    "0x10", "0X1p4", "inf", "-infinity", "nan", "NaN", "1e999", "-1e400", "",
    " 1", "1 ", "1,5", "--1", "+-1", ".", "e5", "1e", "1e+", "١٢",
  ])
  func nonDecimalNumbersAreRefused(text: String) {
    #expect(Double(decimalText: text) == nil)
    var arguments = ArgumentList(["--lat", text])
    #expect(throws: CLIError.self) { try arguments.double("--lat") }
  }

  @Test(arguments: [
    ("16", 16.0), ("-73.9", -73.9), ("+59.5", 59.5), (".5", 0.5), ("17.", 17.0),
    ("1e3", 1000.0), ("-2.5E-1", -0.25), ("0", 0.0),
  ])
  func decimalNumbersAreRead(text: String, value: Double) {
    #expect(Double(decimalText: text) == value)
  }

  @Test func aHexLatitudeIsAUsageError() async {
    let console = Console.capture()
    let status = await MissionTrackTool.run(
      ["nearby", "--lat", "0x10", "--lon", "0", "--db", "/nonexistent/x.sqlite"],
      console: console)
    #expect(status == 64)
    #expect(console.capturedError == "missiontrack nearby: --lat expects a number, got '0x10'\n")
    let distance = Console.capture()
    let other = await MissionTrackTool.run(
      ["distance", "--from", "0x10,0", "--to", "1,1"], console: distance)
    #expect(other == 64)
  }

  @Test func doubleDashEndsTheOptions() throws {
    var arguments = ArgumentList(["--json", "--", "-17", "--db", "-"])
    let json = arguments.flag("--json")
    let db = try arguments.option("--db")
    #expect(json && db == nil)
    let rest = try arguments.positionals()
    #expect(rest == ["-17", "--db", "-"])
  }

  @Test func aMissionIDIsNormalisedToNFC() throws {
    var arguments = ArgumentList(["--", "cafe\u{301}"])
    let id = try arguments.missionID()
    #expect(Array(id.utf8) == Array("caf\u{E9}".utf8))
    var none = ArgumentList([])
    #expect(throws: CLIError.usage("which mission ID?")) { try none.missionID() }
  }

  @Test func terminalTextEscapesControlsAndKeepsLetters() {
    #expect("Storgatan 12 · café ✓".terminalSafe == "Storgatan 12 · café ✓")
    #expect("a\nb\tc\r".terminalSafe == #"a\nb\tc\r"#)
    #expect("\u{1B}]0;pwned\u{7}\u{1B}[2J".terminalSafe == #"\x1B]0;pwned\x07\x1B[2J"#)
    #expect("\u{9B}2J\u{7F}".terminalSafe == #"\x9B2J\x7F"#)
    #expect("abc\u{202E}fed".terminalSafe == #"abc\u{202E}fed"#)
  }

  @Test func aTableRowStaysOneLineWhateverTheTitle() {
    var table = TextTable(header: ["ID", "TITLE"])
    table.rows = [["a", "two\nlines \u{1B}[2J"], ["b", "plain"]]
    let lines = table.lines
    #expect(lines.count == 3)
    #expect(lines[1] == #"a   two\nlines \x1B[2J"#)
    #expect(!lines.joined().contains("\u{1B}"))
  }
}
