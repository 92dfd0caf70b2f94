import Foundation
import TextRules

/// The one rule for comparing mission ids: Unicode NFC (canonical composition), the rule of
/// `Identifier`, which worker ids share.
///
/// An id typed on one machine and imported from a file written on another may spell "café"
/// with a precomposed `é` (NFC) or as `e` plus a combining accent (NFD, as macOS file names
/// and some editors produce). Both are the same text to a person; SQLite compares bytes.
/// The store therefore keeps ids in NFC and normalises every id it is given, on import,
/// insert and lookup, so both spellings name one mission.
package enum MissionID {
  /// `id` in Unicode Normalization Form C.
  /// - Complexity: O(n) in the id's length; ids that are already NFC ASCII return at once.
  package static func normalized(_ id: String) -> String { Identifier.normalized(id) }
}
