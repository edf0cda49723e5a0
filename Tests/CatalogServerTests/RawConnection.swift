import Foundation
import Testing

/// A TCP connection to the server on 127.0.0.1, byte for byte: what a test needs to send what
/// URLSession would not (a head a byte at a time, a huge header, nothing at all) and to read
/// a response as it arrives.
final class RawConnection: @unchecked Sendable { // one thread may send while another reads: send touches no state
    private var socket: Int32
    private(set) var received: [UInt8] = []
    private(set) var closedByServer = false

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000) // each read waits at most this long
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if socket >= 0 { close(socket) } }

    /// Sends all of `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Resets the connection: closed with `SO_LINGER` 0, which sends an RST, not a FIN (a client
    /// gone without a word). Nothing can be sent or read after it.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(socket)
        socket = -1
    }

    /// Closes the client's side (a FIN), reading on: what `curl` and others do after a request.
    func closeWriting() { shutdown(socket, Int32(SHUT_WR)) }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// Whether the server has closed the connection (looked at without waiting).
    var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return closedByServer || count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Reads until `predicate` holds for what arrived (or the server closed), for at most
    /// `limit`; whether it held.
    @discardableResult
    func waitFor(_ limit: Duration = .seconds(20), _ predicate: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !predicate(text) {
            if closedByServer || ContinuousClock.now > deadline { return predicate(text) }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closedByServer = true }
            if count > 0 { received += buffer[..<count] }
        }
        return true
    }

    /// Reads one whole response (by its Content-Length) and parses it.
    func response(_ limit: Duration = .seconds(20)) throws -> RawResponse {
        waitFor(limit) { RawResponse(parsing: $0) != nil }
        let response = try #require(RawResponse(parsing: text), "no whole response in: \(text.prefix(300))")
        received.removeFirst(min(received.count, response.length))
        return response
    }

    /// One request on a new connection that the server closes after it.
    static func request(port: Int, _ path: String, method: String = "GET", headers: [String: String] = [:], body: String = "")
        throws -> RawResponse {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\n" + (headers["Host"] == nil ? "Host: 127.0.0.1:\(port)\r\n" : "") + "Connection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.utf8.count)\r\n" }
        connection.send(head + "\r\n" + body)
        return try connection.response()
    }
}

/// A response as it came off the wire.
struct RawResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: String
    /// Bytes it took on the connection.
    let length: Int

    /// nil until `text` holds a whole response.
    init?(parsing text: String) {
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        let bodyBytes = Array(text[end.upperBound...].utf8)
        guard bodyBytes.count >= length else { return nil }
        self.status = status
        self.headers = headers
        body = String(decoding: bodyBytes.prefix(length), as: UTF8.self)
        self.length = text[..<end.upperBound].utf8.count + length
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
