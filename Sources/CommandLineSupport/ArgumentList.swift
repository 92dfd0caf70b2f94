import Foundation
import TextRules

/// The command line after the command's name, consumed flag by flag.
///
/// A command takes the options it knows (`--radius 500` or `--radius=500`), then calls
/// `positionals()`, which fails with a usage error on any `--flag` nobody took. Values may
/// start with `-` (e.g. `--lon -73.9`); a lone `-` is a positional meaning standard input.
/// A `--` ends the options: every word after it is positional, so a mission id may start
/// with `-` (`missiontrack missions show -- -17`).
package struct ArgumentList: Sendable {
  private var items: [String]
  /// The words after `--`: positional whatever they look like.
  private var trailing: [String]

  /// Wraps the arguments that follow the command name.
  package init(_ arguments: [String]) {
    if let end = arguments.firstIndex(of: "--") {
      items = Array(arguments[..<end])
      trailing = Array(arguments[(end + 1)...])
    } else {
      items = arguments
      trailing = []
    }
  }

  /// Whether `--help` or `-h` was given (and removes it).
  package mutating func wantsHelp() -> Bool { flag("--help") || flag("-h") }

  /// Removes `name` if present and tells whether it was.
  package mutating func flag(_ name: String) -> Bool {
    guard let index = items.firstIndex(of: name) else { return false }
    items.remove(at: index)
    return true
  }

  /// Removes `name VALUE` (or `name=VALUE`) and returns the value, or nil when absent.
  /// - Throws: `CLIError.usage` when the flag is last with no value.
  package mutating func option(_ name: String) throws(CLIError) -> String? {
    // The first occurrence in either spelling, so that repeated options keep their order.
    guard let index = items.firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) else {
      return nil
    }
    if items[index] != name {
      let value = String(items[index].dropFirst(name.count + 1))
      items.remove(at: index)
      return value
    }
    guard index + 1 < items.count else { throw .usage("\(name) needs a value") }
    let value = items[index + 1]
    items.removeSubrange(index...(index + 1))
    return value
  }

  /// Every value of a repeatable option, in order.
  package mutating func options(_ name: String) throws(CLIError) -> [String] {
    var values: [String] = []
    while let value = try option(name) { values.append(value) }
    return values
  }

  /// Every value of repeatable option `name`, in order, each with the value of option
  /// `follower` given after it and before the next `name` (nil when none): the
  /// `--device A --secret-file F --device B` of `workers add`.
  /// - Throws: `CLIError.usage` when a value is missing, `follower` comes before any `name`,
  ///   or twice for one.
  package mutating func optionGroups(_ name: String, followedBy follower: String)
    throws(CLIError) -> [(value: String, follower: String?)]
  {
    var groups: [(value: String, follower: String?)] = []
    while let index = items.firstIndex(where: {
      $0 == name || $0.hasPrefix(name + "=") || $0 == follower || $0.hasPrefix(follower + "=")
    }) {
      let isFollower = items[index] == follower || items[index].hasPrefix(follower + "=")
      let flag = isFollower ? follower : name
      guard let value = try option(flag) else { break }
      if !isFollower {
        groups.append((value, nil))
      } else if let last = groups.indices.last, groups[last].follower == nil {
        groups[last].follower = value
      } else {
        throw .usage("\(follower) belongs after a \(name) (one for each)")
      }
    }
    return groups
  }

  /// A finite decimal number option (see `Double(decimalText:)`: no hex, `inf`, `nan` or
  /// overflow); `range` bounds it when given.
  package mutating func double(
    _ name: String, in range: ClosedRange<Double>? = nil
  ) throws(CLIError) -> Double? {
    guard let text = try option(name) else { return nil }
    guard let value = Double(decimalText: text) else {
      throw .usage("\(name) expects a number, got '\(text)'")
    }
    if let range, !range.contains(value) {
      throw .usage(
        "\(name) must be in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
    }
    return value
  }

  /// An integer option; `range` bounds it when given.
  package mutating func int(_ name: String, in range: ClosedRange<Int>? = nil) throws(CLIError)
    -> Int?
  {
    guard let text = try option(name) else { return nil }
    guard let value = Int(text) else {
      throw .usage("\(name) expects a whole number, got '\(text)'")
    }
    if let range, !range.contains(value) {
      throw .usage(
        "\(name) must be in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
    }
    return value
  }

  /// What is left after the options were taken: the positional arguments.
  /// - Throws: `CLIError.usage` naming the first unknown flag.
  package mutating func positionals() throws(CLIError) -> [String] {
    if let unknown = items.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
      throw .usage("unknown option '\(unknown)'")
    }
    defer {
      items = []
      trailing = []
    }
    return items + trailing
  }

  /// Fails unless every argument was taken: for commands without positionals.
  package mutating func finish() throws(CLIError) {
    let rest = try positionals()
    if let extra = rest.first { throw .usage("unexpected argument '\(extra)'") }
  }
}

extension ArgumentList {
  /// Removes and returns up to `count` leading words that are not flags (a sub-command such
  /// as `import` in `missions import FILE`).
  package mutating func positionalsPrefix(_ count: Int) throws(CLIError) -> [String] {
    var taken: [String] = []
    while taken.count < count, let first = items.first, !first.hasPrefix("-") {
      taken.append(first)
      items.removeFirst()
    }
    return taken
  }
}

extension ArgumentList {
  /// A `YYYY-MM-DD` option, as midnight UTC of that day.
  package mutating func day(_ name: String) throws(CLIError) -> Date? {
    guard let text = try option(name) else { return nil }
    guard let parsed = UTCTime.parse(text + "T00:00:00Z") else {
      throw .usage("\(name) expects YYYY-MM-DD, got '\(text)'")
    }
    return parsed.date
  }
}
