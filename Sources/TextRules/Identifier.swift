import Foundation

/// The one rule for the ids people and files give: mission ids and worker ids (DESIGN §7).
///
/// An id is compared in Unicode NFC (an id typed on one machine and read from a file written
/// on another may spell "café" precomposed or with a combining accent: both name one
/// thing), is not blank, has no control character (a NUL would end it in a C string or a
/// request path, so it could be stored but never named again) and is at most
/// `maximumBytes` of UTF-8.
package enum Identifier {
  /// The longest id, in UTF-8 bytes (after normalization).
  package static let maximumBytes = 200

  /// `id` in Unicode Normalization Form C.
  /// - Complexity: O(n) in the id's length; ids that are already NFC ASCII return at once.
  package static func normalized(_ id: String) -> String {
    // ASCII is always NFC; most ids are ASCII, so skip Foundation for them.
    if id.utf8.allSatisfy({ $0 < 0x80 }) { return id }
    return id.precomposedStringWithCanonicalMapping
  }

  /// Why `id` is not a valid id, as a phrase ("must not be blank"), or nil when it is valid.
  /// Judges the normalized form.
  package static func problem(with id: String) -> String? {
    let id = normalized(id)
    if id.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return "must not be blank" }
    if id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      return "must not contain control characters"
    }
    if id.utf8.count > maximumBytes { return "must be at most \(maximumBytes) bytes of UTF-8" }
    return nil
  }
}
