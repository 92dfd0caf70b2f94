extension Duration {
  /// The duration in seconds as a `Double`.
  var seconds: Double {
    let (whole, attoseconds) = components
    return Double(whole) + Double(attoseconds) * 1e-18
  }
}
