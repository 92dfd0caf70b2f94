import Foundation

/// The C layer of the raw NMEA source: opens a path (tty, named pipe, regular file, or `-` for
/// standard input), puts a tty into raw mode at a baud rate with termios, and reads without
/// blocking. Every `open`/`termios`/`read` call of the source lives here.
///
/// Not thread-safe: one reader thread owns an instance from `open` to `close`.
final class SerialPort: LiveLink {
  /// What the path turned out to be; decides what end of input means.
  enum Kind: Sendable, Equatable {
    /// A terminal (serial port, USB serial, pseudo-terminal): configured with termios; end of
    /// input or a read error means the device went away, so the source reopens it.
    case terminal
    /// A named pipe: end of input (every writer closed) ends the source.
    case pipe
    /// Standard input (`-`): end of input ends the source; never closed by the source.
    case standardInput
    /// Anything else that can be read (a regular file, a character device that is not a
    /// terminal): read to the end, which ends the source.
    case other
  }

  /// Baud rates the source accepts and their termios constants.
  static let baudRates: [(rate: Int, speed: speed_t)] = [
    (4800, speed_t(B4800)), (9600, speed_t(B9600)), (19_200, speed_t(B19200)),
    (38_400, speed_t(B38400)), (57_600, speed_t(B57600)), (115_200, speed_t(B115200)),
    (230_400, speed_t(B230400)), (460_800, speed_t(B460800)), (921_600, speed_t(B921600)),
  ]

  /// The termios constant for `rate`, or nil when it is not a supported standard rate.
  static func speed(forBaud rate: Int) -> speed_t? {
    baudRates.first { $0.rate == rate }?.speed
  }

  /// The path given (`-` for standard input).
  let path: String
  /// The file descriptor, valid until `close()`.
  let descriptor: Int32
  /// What the path is.
  let kind: Kind
  /// The line speed of a terminal after configuration, in baud (nil when not a terminal or
  /// not a standard rate).
  private(set) var baud: Int?
  private var isOpen = true

  /// A terminal that ends went away (unplugged) and is reopened; pipes, standard input and
  /// files simply end.
  var endsAtEndOfInput: Bool { kind != .terminal }
  let hangUpReason = "the device hung up"
  let endOfInputReason = "end of input (device closed or unplugged)"

  private init(path: String, descriptor: Int32, kind: Kind) {
    self.path = path
    self.descriptor = descriptor
    self.kind = kind
  }

  deinit { close() }

  /// Opens `path` for reading without blocking; a terminal is switched to raw mode (no echo,
  /// no line editing, no signals, 8N1, `CLOCAL | CREAD`, `VMIN = 1`, `VTIME = 0`) at `baud`
  /// (or its current speed when nil) and input queued before configuration is discarded.
  /// - Throws: `LinkOpenFailure`.
  static func open(path: String, baud: Int?) throws(LinkOpenFailure) -> SerialPort {
    if path == "-" {
      return SerialPort(path: path, descriptor: STDIN_FILENO, kind: .standardInput)
    }
    // O_NONBLOCK: opening a named pipe must not wait for a writer, and opening a tty must not
    // wait for carrier detect.
    let fd = Glibc.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      throw LinkOpenFailure(
        reason: "cannot open: \(SerialPort.message(code))",
        isTransient: [ENOENT, ENODEV, ENXIO, EIO, EBUSY, EAGAIN, EINTR].contains(code))
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      Glibc.close(fd)
      throw LinkOpenFailure(reason: "cannot stat: \(SerialPort.message(code))", isTransient: true)
    }
    let type = info.st_mode & S_IFMT
    if type == S_IFDIR {
      Glibc.close(fd)
      throw LinkOpenFailure(reason: "is a directory", isTransient: false)
    }
    if type == S_IFIFO {
      return SerialPort(path: path, descriptor: fd, kind: .pipe)
    }
    guard type == S_IFCHR, isatty(fd) == 1 else {
      return SerialPort(path: path, descriptor: fd, kind: .other)
    }
    let port = SerialPort(path: path, descriptor: fd, kind: .terminal)
    try port.configureTerminal(baud: baud)
    return port
  }

  private func configureTerminal(baud: Int?) throws(LinkOpenFailure) {
    var settings = termios()
    guard tcgetattr(descriptor, &settings) == 0 else {
      throw LinkOpenFailure(
        reason: "cannot read terminal settings: \(SerialPort.message(errno))", isTransient: true)
    }
    cfmakeraw(&settings)
    settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
    settings.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
    withUnsafeMutableBytes(of: &settings.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    if let baud {
      guard let speed = SerialPort.speed(forBaud: baud) else {
        throw LinkOpenFailure(reason: "unsupported baud rate \(baud)", isTransient: false)
      }
      guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0 else {
        throw LinkOpenFailure(
          reason: "cannot set \(baud) baud: \(SerialPort.message(errno))", isTransient: false)
      }
    }
    guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
      throw LinkOpenFailure(
        reason: "cannot configure the terminal: \(SerialPort.message(errno))", isTransient: true)
    }
    // tcsetattr succeeds when any one change took effect: read back what the driver kept.
    var applied = termios()
    guard tcgetattr(descriptor, &applied) == 0 else {
      throw LinkOpenFailure(
        reason: "cannot read terminal settings: \(SerialPort.message(errno))", isTransient: true)
    }
    let speed = cfgetispeed(&applied)
    self.baud = SerialPort.baudRates.first { $0.speed == speed }?.rate
    if let baud, self.baud != baud {
      throw LinkOpenFailure(
        reason: "the device did not accept \(baud) baud", isTransient: false)
    }
    // Bytes that arrived before the line was configured may have been read at the wrong
    // speed or in cooked mode: drop them.
    tcflush(descriptor, TCIFLUSH)
  }

  /// Reads what is available into `buffer`.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead {
    while true {
      let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if n > 0 { return .bytes(n) }
      if n == 0 { return .endOfInput }
      let code = errno
      switch code {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: return .failed("read failed: \(SerialPort.message(code))")
      }
    }
  }

  /// Closes the descriptor (standard input stays open). Idempotent.
  func close() {
    guard isOpen else { return }
    isOpen = false
    if kind != .standardInput { Glibc.close(descriptor) }
  }

  /// `strerror` text for an errno value.
  static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
