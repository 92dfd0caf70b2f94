extension MissionDatabase {
  /// Writes of at least this many missions may rebuild the secondary indexes (see
  /// `withBulkLoadLocked`).
  static let bulkLoadMinimum = 10_000

  /// The indexes of `missions` that a bulk load drops and builds again: those that can
  /// refuse no row, so every bad row is still refused as it is written, with its line.
  /// (`missions_one_tracked`, a unique index, stays.)
  static let rebuiltIndexes = ["missions_by_cell", "missions_by_deadline"]

  /// Runs `body`, which writes `count` missions inside the caller's transaction, and when
  /// they are many — at least `bulkLoadMinimum` and at least a quarter of the stored
  /// missions — drops `rebuiltIndexes` first and creates them again from their stored
  /// definitions afterwards.
  ///
  /// Building an index sorts its keys once; keeping it up to date inserts each key at a
  /// random place, and once the index outgrows the page cache every such insert writes a
  /// page out: for a million missions 1.9 s against 6 s. The transaction makes it all or
  /// nothing: if `body` throws, the rollback restores the indexes.
  /// - Complexity: O(n log n) for the n missions stored afterwards when rebuilding.
  func withBulkLoadLocked<T>(
    adding count: Int, _ connection: SQLiteConnection, _ body: () throws -> T
  ) throws -> T {
    guard count >= Self.bulkLoadMinimum else { return try body() }
    let stored = try connection.integer("SELECT count(*) FROM missions") ?? 0
    guard Int64(count) >= stored / 4 else { return try body() }
    let select = try connection.prepare(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'missions'")
    var definitions: [(name: String, sql: String)] = []
    while try select.step() {
      guard let name = try select.string("name"), Self.rebuiltIndexes.contains(name),
        let sql = try select.string("sql")
      else { continue }
      definitions.append((name, sql))
    }
    select.finalize()
    // The names are our own constants, never input.
    for definition in definitions { try connection.execute("DROP INDEX \(definition.name)") }
    let result = try body()
    for definition in definitions { try connection.execute(definition.sql) }
    return result
  }
}
