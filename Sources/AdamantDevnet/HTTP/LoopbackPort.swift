import CMicroHTTPD
import Foundation

/// A port on 127.0.0.1 held for a server's whole life. A socket bound to it that never listens
/// keeps every other server off the port, so while the server is stopped (a refused node)
/// connecting is refused and nobody else can answer in its place; serving adds a listening
/// socket on the same port.
final class LoopbackPort: Sendable {
    let number: UInt16
    private let reservation: Int32

    init() throws(HTTPServer.StartError) {
        let socket = adm_loopback_socket(0, 0)
        guard socket >= 0 else { throw .cannotListen(port: 0, reason: Self.lastError) }
        let number = adm_socket_port(socket)
        guard number != 0 else {
            let reason = Self.lastError
            close(socket)
            throw .cannotListen(port: 0, reason: reason)
        }
        self.number = number
        reservation = socket
    }

    deinit { close(reservation) }

    /// A new socket listening on the port, for one run of the server.
    func listeningSocket() throws(HTTPServer.StartError) -> Int32 {
        let socket = adm_loopback_socket(number, 1)
        guard socket >= 0 else { throw .cannotListen(port: number, reason: Self.lastError) }
        return socket
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
