import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The smallest HTTP/1.1 server an upload measurement needs: one thread per connection, each request's body (by
/// `Content-Length` or chunked) read in 64 KiB pieces, counted and thrown away, and answered with the count as text.
/// `MockServer` keeps every body it reads, up to 256 MiB, which a 1 GiB upload passes.
final class DiscardServer: Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        #else
            throw POSIXError(.ENOTSUP)
        #endif
    }

    /// Accepts connections on a thread of its own, for good.
    func start() {
        let listener = listener
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                Thread.detachNewThread { Self.serve(connection) }
            }
        }
    }

    private static func serve(_ fd: Int32) {
        var reader = Reader(fd: fd)
        defer { close(fd) }
        while let head = reader.head() {
            let lines = head.lowercased().components(separatedBy: "\r\n")
            var count = 0
            if lines.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
                while let line = reader.line(), let size = Int(line.split(separator: ";").first ?? "", radix: 16) {
                    if size == 0 {
                        while let trailer = reader.line(), !trailer.isEmpty {}
                        break
                    }
                    guard reader.skip(size), reader.skip(2) else { return }
                    count += size
                }
            } else if let field = lines.first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            {
                guard reader.skip(length) else { return }
                count = length
            }
            let text = "\(count)"
            let response = "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)"
            guard write(fd, response, response.utf8.count) == response.utf8.count else { return }
        }
    }

    /// Buffered reading of one connection, never holding more than one piece of a body.
    private struct Reader {
        let fd: Int32
        var buffer: [UInt8] = []

        mutating func fill() -> Bool {
            var piece = [UInt8](repeating: 0, count: 64 * 1024)
            let read = piece.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { return false }
            buffer.append(contentsOf: piece[..<read])
            return true
        }

        mutating func until(_ marker: [UInt8]) -> String? {
            while true {
                if let end = find(marker) {
                    let text = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeFirst(end + marker.count)
                    return text
                }
                guard buffer.count < 65_536, fill() else { return nil }
            }
        }

        mutating func head() -> String? { until([13, 10, 13, 10]) }
        mutating func line() -> String? { until([13, 10]) }

        mutating func skip(_ count: Int) -> Bool {
            var left = count
            while left > 0 {
                if buffer.isEmpty, !fill() { return false }
                let taken = min(left, buffer.count)
                buffer.removeFirst(taken)
                left -= taken
            }
            return true
        }

        func find(_ marker: [UInt8]) -> Int? {
            guard buffer.count >= marker.count else { return nil }
            for index in 0...(buffer.count - marker.count)
            where buffer[index..<index + marker.count].elementsEqual(marker) {
                return index
            }
            return nil
        }
    }
}
