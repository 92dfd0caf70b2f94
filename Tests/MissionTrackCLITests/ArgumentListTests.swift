import Testing

@testable import CommandLineSupport
@testable import MissionTrackCLI

/// Flag parsing: what a command sees of its command line.
///
/// (Results are bound to constants before `#expect`: the macro cannot call mutating methods.)
@Suite struct ArgumentListTests {
  @Test func flagsAreTakenWhereverTheyStand() throws {
    var arguments = ArgumentList(["a", "--json", "b"])
    let first = arguments.flag("--json")
    let second = arguments.flag("--json")
    let absent = arguments.flag("--quiet")
    #expect(first && !second && !absent)
    let rest = try arguments.positionals()
    #expect(rest == ["a", "b"])
  }

  @Test func optionsTakeTheNextWordOrTheTextAfterEquals() throws {
    var arguments = ArgumentList(["--radius", "500", "--state=open", "--title="])
    let radius = try arguments.option("--radius")
    let state = try arguments.option("--state")
    let title = try arguments.option("--title")
    let again = try arguments.option("--radius")
    #expect(radius == "500")
    #expect(state == "open")
    #expect(title == "")
    #expect(again == nil)
    try arguments.finish()
  }

  @Test func valuesMayStartWithADash() throws {
    var arguments = ArgumentList(["--lon", "-73.9", "--lat=-40.5", "--name", "-"])
    let lon = try arguments.double("--lon")
    let lat = try arguments.double("--lat")
    let name = try arguments.option("--name")
    #expect(lon == -73.9)
    #expect(lat == -40.5)
    #expect(name == "-")
    try arguments.finish()
  }

  @Test func aLoneDashIsAPositional() throws {
    var arguments = ArgumentList(["-"])
    let rest = try arguments.positionals()
    #expect(rest == ["-"])
  }

  @Test func aFlagLastWithoutItsValueIsAUsageError() {
    var arguments = ArgumentList(["file", "--radius"])
    #expect(throws: CLIError.usage("--radius needs a value")) { try arguments.option("--radius") }
  }

  @Test func anUnknownFlagIsAUsageErrorNamingIt() throws {
    var arguments = ArgumentList(["--radius", "5", "--colour", "red", "file"])
    _ = try arguments.option("--radius")
    #expect(throws: CLIError.usage("unknown option '--colour'")) { try arguments.positionals() }
    var short = ArgumentList(["-x"])
    #expect(throws: CLIError.usage("unknown option '-x'")) { try short.finish() }
    #expect(CLIError.usage("x").exitStatus == 64)
    #expect(CLIError.failure("x").exitStatus == 1)
  }

  @Test func finishRejectsLeftoverWords() throws {
    var arguments = ArgumentList(["extra", "words"])
    #expect(throws: CLIError.usage("unexpected argument 'extra'")) { try arguments.finish() }
    var empty = ArgumentList([])
    try empty.finish()
  }

  @Test func repeatedOptionsComeBackInCommandLineOrder() throws {
    var arguments = ArgumentList(["--trace", "a.gpx", "--trace=b.nmea", "--trace", "c.log"])
    let traces = try arguments.options("--trace")
    #expect(traces == ["a.gpx", "b.nmea", "c.log"])
    try arguments.finish()
  }

  @Test func anOptionWithAPrefixOfAnotherNameIsNotConfused() throws {
    var arguments = ArgumentList(["--radius-max=9", "--radius", "3"])
    let radius = try arguments.option("--radius")
    let maximum = try arguments.option("--radius-max")
    #expect(radius == "3")
    #expect(maximum == "9")
  }

  @Test func numbersAreCheckedAndBounded() throws {
    var arguments = ArgumentList(["--k", "5", "--radius", "1e3", "--speed", "fast"])
    let k = try arguments.int("--k", in: 1...100)
    let radius = try arguments.double("--radius", in: 0...20_000_000)
    #expect(k == 5)
    #expect(radius == 1000)
    #expect(throws: CLIError.usage("--speed expects a number, got 'fast'")) {
      try arguments.double("--speed")
    }
    var bad = ArgumentList(["--k", "0", "--n", "2.5", "--r", "nan", "--s", "-1"])
    #expect(throws: CLIError.usage("--k must be in 1...100, got '0'")) {
      try bad.int("--k", in: 1...100)
    }
    #expect(throws: CLIError.usage("--n expects a whole number, got '2.5'")) { try bad.int("--n") }
    #expect(throws: CLIError.usage("--r expects a number, got 'nan'")) { try bad.double("--r") }
    #expect(throws: CLIError.usage("--s must be in 0.0...10.0, got '-1'")) {
      try bad.double("--s", in: 0...10)
    }
    let absent = try bad.int("--absent")
    #expect(absent == nil)
  }

  @Test func helpIsFoundInEitherSpelling() {
    var long = ArgumentList(["x", "--help"])
    var short = ArgumentList(["-h"])
    var none = ArgumentList(["x"])
    let results = (long.wantsHelp(), short.wantsHelp(), none.wantsHelp())
    #expect(results == (true, true, false))
  }

  @Test func aSubcommandWordIsTakenFromTheFront() throws {
    var arguments = ArgumentList(["import", "file.csv", "--json"])
    let word = try arguments.positionalsPrefix(1)
    let json = arguments.flag("--json")
    let rest = try arguments.positionals()
    #expect(word == ["import"])
    #expect(json)
    #expect(rest == ["file.csv"])
    var flagFirst = ArgumentList(["--json", "import"])
    let none = try flagFirst.positionalsPrefix(1)
    #expect(none.isEmpty)
  }
}
