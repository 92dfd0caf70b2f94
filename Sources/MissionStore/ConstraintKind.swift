/// Which kind of schema constraint a row broke (`StoreError.constraint`).
package enum ConstraintKind: Sendable, Equatable {
  /// A second row with a stored primary key.
  case primaryKey
  /// A second row with a key a UNIQUE index holds.
  case unique
  /// A value a CHECK refuses.
  case check
  /// NULL in a NOT NULL column.
  case notNull
  /// A reference to a row that does not exist.
  case foreignKey
  /// Another kind (a trigger's RAISE, …).
  case other
}
