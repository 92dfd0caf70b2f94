import Foundation
import Testing
import TextRules

@testable import Ingest

@Suite struct IngestReplyTests {
  private func text(_ reply: IngestReply) -> String { String(decoding: reply.body, as: UTF8.self) }

  // The booklet (docs/tech/http.md): "a status code 200 … an empty JSON payload array []. It
  // may, however, return an array of JSON objects … `cmd`"; the fields: docs/tech/json.md
  // (`_type=cmd` action setConfiguration, `_type=configuration` monitoring, locatorInterval).
  @Test func ownTracksAsksForMoveModeOnlyWhileTracked() throws {
    let tracked = IngestReply(acknowledging: .owntracks, tracked: true)
    #expect(tracked.status == 200 && tracked.contentType == "application/json")
    #expect(
      text(tracked)
        == #"[{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","monitoring":2,"locatorInterval":10}}]"#
    )
    let idle = IngestReply(acknowledging: .owntracks, tracked: false)
    #expect(
      text(idle)
        == #"[{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","monitoring":1,"locatorInterval":900}}]"#
    )
    guard case .array = try JSONParser.parse(idle.body).value else {
      Issue.record("not a JSON array")
      return
    }
  }

  // Overland README, "Response" and "Configuration by Server Response".
  @Test func overlandSaysOkAndSetsItsIntervals() throws {
    for tracked in [true, false] {
      let reply = IngestReply(acknowledging: .overland, tracked: tracked)
      let root = try JSONParser.parse(reply.body)
      guard case .string("ok")? = root["result"]?.value else {
        Issue.record("no result ok")
        return
      }
      guard case .string(let interval)? = root["set"]?["send_interval"]?.value,
        case .string(let mode)? = root["set"]?["main"]?["tracking_mode"]?.value
      else {
        Issue.record("no settings")
        return
      }
      #expect(interval == (tracked ? "10s" : "5m"))
      #expect(mode == (tracked ? "standard" : "significant"))
    }
  }

  @Test func anUnknownSenderIsAcknowledgedWithoutSteering() {
    #expect(text(IngestReply(acknowledging: .owntracks, tracked: nil)) == "[]")
    #expect(text(IngestReply(acknowledging: .overland, tracked: nil)) == #"{"result":"ok"}"#)
  }

  @Test func osmAndIsAnEmpty200AndFixLinesCount() {
    let osmAnd = IngestReply(acknowledging: .osmand, tracked: true)
    #expect(osmAnd.status == 200 && osmAnd.body.isEmpty && osmAnd.contentType == nil)
    let native = IngestReply(
      acknowledging: .native, tracked: false,
      outcome: IngestOutcome(accepted: 3, duplicates: 2, untracked: 1, rejected: 4))
    #expect(text(native) == #"{"accepted":3,"duplicates":2,"untracked":1,"rejected":4}"#)
  }
}

@Suite struct IngestSecretTests {
  @Test(arguments: [
    ("s3cret", "s3cret", true), ("s3cret", "s3cres", false), ("s3cre", "s3cret", false),
    ("", "", true), ("a", "", false), ("\u{e9}", "e\u{301}", false),
    (String(repeating: "x", count: 256) + "a", "a", false),
  ])
  func matchesOnlyTheSameBytes(presented: String, expected: String, same: Bool) {
    #expect(IngestSecret.matches(presented, expected) == same)
  }

  @Test func noSecretNeverMatches() {
    #expect(!IngestSecret.matches(nil, ""))
  }
}

@Suite struct IngestRequestTests {
  @Test func headersAreFoundInAnyCase() {
    let request = IngestRequest(headers: [("X-Limit-U", "a"), ("x-limit-u", "b")])
    #expect(request.header("x-LIMIT-u") == "a" && request.header("x-limit-d") == nil)
  }

  @Test(
    arguments: [
      ("Basic " + Data("u:p:w".utf8).base64EncodedString(), "p:w"),
      ("basic " + Data("u:".utf8).base64EncodedString(), ""),
      ("Bearer  tok en", "tok en"), ("BEARER x", "x"), ("Basic %%%", nil), ("Digest x", nil),
    ] as [(String, String?)])
  func theSecretIsBasicsPasswordOrTheBearerToken(authorization: String, secret: String?) {
    let request = IngestRequest(headers: [("Authorization", authorization)])
    #expect(request.presentedSecret == secret)
  }

  @Test func theQuerySecretIsTheLastResort() {
    let request = IngestRequest(query: [("secret", "a"), ("secret", "b")])
    #expect(request.presentedSecret == "b")
  }

  @Test func formDecodingFollowsTheURLStandard() {
    let pairs = FormURLEncoded.pairs(Array("a=1+2&&b=%41%zz%4&c&=v&d=%E2%82%AC%FF".utf8))
    #expect(pairs.map(\.name) == ["a", "b", "c", "", "d"])
    #expect(pairs.map(\.value) == ["1 2", "A%zz%4", "", "v", "\u{20AC}\u{FFFD}"])
  }
}
