import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An SVG document read back with Foundation's `XMLParser`: every element with its attributes
/// and direct text, and whether the parser really reached the closing `</svg>`.
package struct ParsedSVG {
  /// One element: its name, attributes, direct text and where it sits.
  package struct Element {
    package var name: String
    package var attributes: [String: String]
    package var text: String
    /// Names of the enclosing elements, outermost first.
    package var ancestors: [String]
    /// Class attributes of the enclosing elements.
    package var ancestorClasses: [String]
  }

  /// Every element in document order.
  package var elements: [Element] = []
  /// Why parsing failed, or nil.
  package var error: String?
  /// True only when the root `svg` element was closed and the document ended: on Linux
  /// `XMLParser` may report success on truncated input, so this is checked separately.
  package var complete = false

  /// Parses `text` as XML.
  package init(_ text: String) {
    let delegate = Delegate()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = delegate
    let ok = parser.parse()
    elements = delegate.elements
    complete =
      ok && parser.parserError == nil && delegate.closedRoot && delegate.endedDocument
      && delegate.stack.isEmpty
    if !ok { error = parser.parserError.map { "\($0)" } ?? "parse failed" }
    if ok && !complete { error = "document ended early (root closed: \(delegate.closedRoot))" }
  }

  /// Elements named `name` whose class list contains `cssClass` (when given).
  package func elements(_ name: String, class cssClass: String? = nil) -> [Element] {
    elements.filter { element in
      guard element.name == name else { return false }
      guard let cssClass else { return true }
      return (element.attributes["class"] ?? "").split(separator: " ").contains(Substring(cssClass))
    }
  }

  /// Elements anywhere whose class list contains `cssClass`.
  package func withClass(_ cssClass: String) -> [Element] {
    elements.filter {
      ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(cssClass))
    }
  }

  /// The `points` attribute parsed into pairs.
  package static func points(_ attribute: String?) -> [(x: Double, y: Double)] {
    (attribute ?? "").split(separator: " ").compactMap { pair in
      let parts = pair.split(separator: ",")
      guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else {
        return nil
      }
      return (x, y)
    }
  }

  private final class Delegate: NSObject, XMLParserDelegate {
    var elements: [Element] = []
    var stack: [Int] = []
    var closedRoot = false
    var endedDocument = false

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      let ancestors = stack.map { elements[$0].name }
      let classes = stack.compactMap { elements[$0].attributes["class"] }
      elements.append(
        Element(
          name: elementName, attributes: attributes, text: "", ancestors: ancestors,
          ancestorClasses: classes))
      stack.append(elements.count - 1)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      stack.removeLast()
      if elementName == "svg" && stack.isEmpty { closedRoot = true }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if let top = stack.last { elements[top].text += string }
    }

    func parserDidEndDocument(_ parser: XMLParser) { endedDocument = true }
  }
}
