import Foundation
@_spi(Benchmarks) import SimpleNetworking

#if BENCH_EVENTSOURCE
    import EventSource
#endif

/// How an `events-*` phase reads `GET /events/N`, always through the library's response stream, so that the
/// transport's cost is the same for each and only what is done with the bytes differs.
enum EventStreamReading: String {
    /// `chunks()` alone: the pieces are counted.
    case chunks = "events-chunks"
    /// `bytes()` alone: every byte is counted.
    case bytes = "events-bytes"
    /// `chunks()` with each piece fed to the library's event-stream parser.
    case parse = "events-parse"
    /// `chunks()` with each byte fed to mattt/EventSource's parser (`EventSource.Parser`), as its own byte sequence
    /// does, asking for its events at each line end.
    case mattt = "events-mattt"
}

/// What one read of an event stream counted and how long it took.
struct EventStreamFigures {
    var bytes = 0
    var events = 0
    /// The bytes of all the events' data, so that two parsers can be seen to agree.
    var dataBytes = 0
    var seconds = 0.0
    /// RSS in MB before the request and after each tenth of the body.
    var residentMB: [Double] = []
    /// Peak RSS in MB of the process.
    var peakMB = 0.0

    /// The phase's line of `key=value` figures.
    func line(_ reading: EventStreamReading) -> String {
        let rss = residentMB.map { String(format: "%.1f", $0) }.joined(separator: ",")
        var figures = "\(reading.rawValue) seconds=\(String(format: "%.3f", seconds)) bytes=\(bytes)"
        figures += " mibps=\(String(format: "%.1f", Double(bytes) / 1_048_576 / seconds))"
        if reading == .parse || reading == .mattt {
            figures += " events=\(events) eps=\(Int(Double(events) / seconds)) data_bytes=\(dataBytes)"
        }
        return figures + " rss_mb=\(rss) peak_above_start_mb=\(String(format: "%.1f", peakMB - residentMB[0]))"
    }
}

/// Records RSS each time the count of bytes read passes another tenth of the expected size.
struct ResidentSampler {
    private let step: Int
    private var next: Int
    private(set) var samples = [memoryMB("VmRSS")]

    init(expected: Int) {
        step = max(1, expected / 10)
        next = step
    }

    mutating func passed(_ count: Int) {
        while count >= next {
            samples.append(memoryMB("VmRSS"))
            next += step
        }
    }
}

extension LibraryClient {
    /// Reads `GET /events/N` in the given way and returns what it counted.
    func readEventStream(mebibytes: Int, port: Int, as reading: EventStreamReading) async throws -> EventStreamFigures {
        guard let url = URL(string: "http://127.0.0.1:\(port)/events/\(mebibytes)") else { throw BenchError.status }
        let request = api.request(.get, url: url).timeout(600)
        var figures = EventStreamFigures()
        var sampler = ResidentSampler(expected: mebibytes << 20)
        let start = Date()
        switch reading {
        case .chunks:
            for try await piece in request.chunks() {
                figures.bytes += piece.count
                sampler.passed(figures.bytes)
            }
        case .bytes:
            var count = 0
            for try await _ in request.bytes() {
                count += 1
                if count & 0xFFFF == 0 { sampler.passed(count) }
            }
            figures.bytes = count
        case .parse:
            var parser = ServerSentEvent.ChunkParser(maximumEventSize: 1 << 20)
            var (events, dataBytes) = (0, 0)
            for try await piece in request.chunks() {
                try parser.feed(piece) { event in
                    events += 1
                    dataBytes += event.data.utf8.count
                }
                figures.bytes += piece.count
                sampler.passed(figures.bytes)
            }
            parser.finish()
            (figures.events, figures.dataBytes) = (events, dataBytes)
        case .mattt:
            #if BENCH_EVENTSOURCE
                let parser = EventSource.Parser()
                for try await piece in request.chunks() {
                    for byte in piece {
                        await parser.consume(byte)
                        // Its events are complete only at a line end.
                        guard byte == 0x0A || byte == 0x0D else { continue }
                        while let event = await parser.getNextEvent() {
                            figures.events += 1
                            figures.dataBytes += event.data.utf8.count
                        }
                    }
                    figures.bytes += piece.count
                    sampler.passed(figures.bytes)
                }
                await parser.finish()
                while let event = await parser.getNextEvent() {
                    figures.events += 1
                    figures.dataBytes += event.data.utf8.count
                }
            #else
                print("bench-client: built without mattt/EventSource (bash Benchmarks/run --events builds with it)")
                exit(2)
            #endif
        }
        figures.seconds = Date().timeIntervalSince(start)
        sampler.passed(figures.bytes)
        figures.residentMB = sampler.samples
        figures.peakMB = memoryMB("VmHWM")
        return figures
    }
}
