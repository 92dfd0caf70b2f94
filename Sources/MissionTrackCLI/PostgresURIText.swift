import Foundation

/// A PostgreSQL connection URI as the CLI shows it: never with its password, which libpq
/// may also quote back in an error about the URI itself.
struct PostgresURIText {
  /// The URI as given.
  let uri: String

  /// The URI `uri`.
  init(_ uri: String) { self.uri = uri }

  /// The passwords as written in the URI's user part (`USER:PASSWORD@`) and its
  /// `password=` parameter (none, one or both).
  private var passwords: [String] {
    var found: [String] = []
    guard let scheme = uri.range(of: "://") else { return found }
    let afterScheme = uri[scheme.upperBound...]
    let parameterStart = afterScheme.firstIndex(of: "?") ?? afterScheme.endIndex
    let authority = afterScheme[..<parameterStart]
    if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
      let password = authority[authority.index(after: colon)..<at]
      if !password.isEmpty { found.append(String(password)) }
    }
    for parameter in afterScheme[parameterStart...].dropFirst().split(separator: "&") {
      let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      if pair.count == 2, pair[0] == "password", !pair[1].isEmpty { found.append(String(pair[1])) }
    }
    return found
  }

  /// The URI with its password replaced by `***`, escaped for a terminal.
  var shown: String { redacting(uri).terminalSafe }

  /// `text` with every occurrence of the URI's password replaced by `***`.
  func redacting(_ text: String) -> String {
    passwords.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
  }
}
