#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif
internal import CCurl
import Synchronization

/// Every socket curl opens, opened and closed here (CURLOPT_OPENSOCKETFUNCTION and
/// CLOSESOCKETFUNCTION), so that shutting down can wake a transfer stalled on a node that never
/// answers at once: curl's progress callback, the other way to stop it, comes only about once
/// a second while nothing arrives, and exit waited for it.
enum CurlSockets {
    private static let open = Mutex<Set<Int32>>([])
    private static let closed = Atomic(false)

    /// curl's open-socket callback: the socket, close-on-exec (a `watch --exec` hook must not
    /// inherit it), and tracked; none once shutting down.
    static func open(_ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
        guard let address else { return CURL_SOCKET_BAD }
        return open.withLock { sockets in
            guard !closed.load(ordering: .acquiring) else { return CURL_SOCKET_BAD }
            let fd = socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
            if fd >= 0 { sockets.insert(fd) }
            return fd >= 0 ? fd : CURL_SOCKET_BAD
        }
    }

    /// curl's close-socket callback. Forgotten and closed under the lock, so `shutDownAll`
    /// never touches a number already reused for another file.
    static func close(_ fd: curl_socket_t) -> Int32 {
        open.withLock { sockets in
            sockets.remove(fd)
            return closeDescriptor(fd)
        }
    }

    /// Ends every open connection's traffic: a transfer waiting on one returns at once.
    static func shutDownAll() {
        open.withLock { sockets in
            closed.store(true, ordering: .releasing)
            for fd in sockets { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}

/// libc's close, out of the reach of `CurlSockets.close`'s name.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
