// The body of `GET /events/N`: N MiB of `text/event-stream`, the same bytes on every run, in the mix a streamed model
// API or a change feed sends. Most events are one `data` line of JSON, 50 to 500 bytes long; one in eight has two to
// five `data` lines; one in four carries an `id`, one in six an `event` type, and one in forty is preceded by a
// `: keep-alive` comment. About one value in ten holds non-ASCII text. Lines end in LF. The body ends at the end of
// the first event that reaches N MiB.

/// A small deterministic generator (xorshift64*), so that every run serves the same stream.
struct StreamRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A number in `range`.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Whether a one-in-`n` chance came up.
    mutating func oneIn(_ n: Int) -> Bool { next() % UInt64(n) == 0 }
}

/// Builds the event stream of at least `size` bytes.
func makeEventStream(size: Int) -> [UInt8] {
    var random = StreamRandom(seed: 19)
    var body: [UInt8] = []
    body.reserveCapacity(size + 4096)
    var sequence = 0
    while body.count < size {
        sequence += 1
        if random.oneIn(40) { body += Array(": keep-alive\n".utf8) }
        if random.oneIn(4) { body += Array("id: \(sequence)\n".utf8) }
        if random.oneIn(6) { body += Array("event: \(random.oneIn(2) ? "delta" : "status")\n".utf8) }
        if random.oneIn(8) {
            for line in 0..<random.next(in: 2...5) {
                body += Array("data: ".utf8)
                appendText(to: &body, length: random.next(in: 14...114), random: &random)
                if line == 0 { body += Array(" (seq \(sequence))".utf8) }
                body.append(0x0A)
            }
        } else {
            body += Array("data: ".utf8)
            appendJSON(to: &body, sequence: sequence, lineLength: random.next(in: 50...500), random: &random)
            body.append(0x0A)
        }
        body.append(0x0A)
    }
    return body
}

/// A JSON object whose `data: ` line is about `lineLength` bytes long (never shorter than its fixed fields).
private func appendJSON(to body: inout [UInt8], sequence: Int, lineLength: Int, random: inout StreamRandom) {
    let head = Array(#"{"id":"evt_\#(sequence)","object":"chunk","index":\#(sequence % 7),"delta":{"text":""#.utf8)
    let tail = Array(#""},"done":false}"#.utf8)
    body += head
    appendText(to: &body, length: max(1, lineLength - 6 - head.count - tail.count), random: &random)
    body += tail
}

/// Words separated by spaces, `length` bytes long or up to a word longer; no quote, backslash or line break, so that
/// it is valid inside a JSON string.
private func appendText(to body: inout [UInt8], length: Int, random: inout StreamRandom) {
    let plain = ["the", "stream", "of", "tokens", "arrives", "as", "server", "sent", "events", "and", "each", "one"]
    let accented = ["café", "naïve", "über", "déjà", "señor", "façade", "—", "→", "日本"]
    let withAccents = random.oneIn(10)
    var written = 0
    while written < length {
        let word =
            withAccents && random.oneIn(3)
            ? accented[random.next(in: 0...accented.count - 1)] : plain[random.next(in: 0...plain.count - 1)]
        if written > 0 {
            body.append(0x20)
            written += 1
        }
        body += Array(word.utf8)
        written += word.utf8.count
    }
}
