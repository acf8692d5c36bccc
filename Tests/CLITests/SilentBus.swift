import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A session bus that never answers: a Unix socket that accepts every connection and holds it
/// open without writing a byte. What a client sees of a hung dbus-daemon, or of a socket that
/// is not a bus's.
final class SilentBus: Sendable {
    let folder: String
    let path: String
    private let listener: Int32
    private let held = Mutex<[Int32]>([])
    private let accepting = DispatchSemaphore(value: 0)

    /// `DBUS_SESSION_BUS_ADDRESS` for it.
    var address: String { "unix:path=" + path }

    /// How many connections it has accepted.
    var accepted: Int { held.withLock { $0.count } }

    init() throws {
        folder = NSTemporaryDirectory() + "silent-bus-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        path = folder + "/bus"
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard listener >= 0, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw DesktopFailure("no socket for \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }  // zeroed: the rest is its NUL
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            throw DesktopFailure("cannot listen at \(path): \(String(cString: strerror(errno)))")
        }
        // A thread of its own: accept blocks, and no cooperative thread may.
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection >= 0 {
                    _ = fcntl(connection, F_SETFD, FD_CLOEXEC)  // no child started meanwhile keeps it
                    held.withLock { $0.append(connection) }
                } else if errno != EINTR && errno != ECONNABORTED {
                    break  // shut down by stop()
                }
            }
            accepting.signal()
        }
    }

    /// Closes the socket and every connection it holds.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))  // on Linux this ends the accept under way
        accepting.wait()
        close(listener)
        for connection in held.withLock({ $0 }) { close(connection) }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
