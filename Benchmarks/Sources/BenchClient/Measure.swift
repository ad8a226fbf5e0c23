import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's CPU time so far, user and system, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// A line of `/proc/self/status` in MB, such as `VmRSS` (resident now) or `VmHWM` (peak resident); 0 where there is
/// no such file.
func memoryMB(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return kilobytes / 1024
    }
    return 0
}

/// How many connections the benchmark server has accepted, asked over a connection of its own (which the server counts
/// before answering): bench-server answers the number, nginx its stub_status page.
func acceptedConnections(port: Int) -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return -1 }
    defer { Glibc.close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return -1 }
    let request = Array("GET /accepts HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { Glibc.write(socket, $0.baseAddress, $0.count) }
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        reply += chunk[0..<count]
    }
    let text = String(decoding: reply, as: UTF8.self)
    guard let range = text.range(of: "\r\n\r\n") else { return -1 }
    let body = text[range.upperBound...]
    if let count = Int(body) { return count }
    // nginx's stub_status: "server accepts handled requests" and, on the next line, the three counts.
    let lines = body.split(separator: "\n")
    guard let index = lines.firstIndex(where: { $0.hasPrefix("server accepts") }), index + 1 < lines.count else {
        return -1
    }
    return lines[index + 1].split(separator: " ").first.flatMap { Int($0) } ?? -1
}
