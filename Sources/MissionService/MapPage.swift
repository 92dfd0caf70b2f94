/// The live map page served at `/`, with its script and style sheet (separate resources,
/// so that `Content-Security-Policy: default-src 'self'` holds).
///
/// Not built yet: this placeholder says so plainly; the page comes with its own change.
enum MapPage {
  static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>MissionTrack</title>
    <link rel="stylesheet" href="/map.css"></head>
    <body><p>The live map page is not built yet. The API is under /v1.</p></body></html>
    """
  static let script = ""
  static let style = "body { font-family: sans-serif; }"
}
