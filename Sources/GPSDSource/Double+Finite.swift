extension Double {
  /// The value, or `nil` for NaN and infinities.
  var finiteOrNil: Double? { isFinite ? self : nil }
}
