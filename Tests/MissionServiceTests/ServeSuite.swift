import Testing

/// Every suite of `serve`'s end-to-end tests, one test at a time.
///
/// Each of them runs real processes and waits for them; run side by side, they would hold
/// the few threads the whole test run shares and starve the timing of other targets' tests.
@Suite(.serialized) enum ServeSuite {}
