internal import CSDBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A message made here and sealed, so that a `BusReader` reads it as one a peer sent: any
/// arguments, with no bus running. sd-bus makes messages only on a bus that has started, so
/// each has a bus of its own started on one end of a socket pair that this holds the other
/// end of, and that nothing ever answers. For the fuzz target and the tests.
package struct PeerMessage: ~Copyable {
    /// A signal, or the answer to a call; of the notification service either way.
    package enum Kind: Sendable {
        case signal(member: String)
        case reply(to: String)
    }

    private let message: OpaquePointer
    private let bus: OpaquePointer
    /// The other end of the bus's socket.
    private let peer: Int32

    /// A message of `kind` holding `arguments`, appended as a call appends them.
    package init(_ kind: Kind, _ arguments: [BusValue]) throws(BusError) {
        if let failure = csdbus_load_failure() { throw BusError(String(cString: failure)) }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw BusError("no socket pair for a bus", status: -errno)
        }
        var made: OpaquePointer?
        let created = csd_bus_new(&made)
        guard created >= 0, let bus = made else {
            close(ends[0])
            close(ends[1])
            throw BusError("no bus could be made", status: created)
        }
        // Once set, the bus owns its end of the socket, and closes it as it goes.
        var status = csd_bus_set_fd(bus, ends[0], ends[0])
        if status < 0 { close(ends[0]) }
        if status >= 0 { status = csd_bus_start(bus) }
        var message: OpaquePointer?
        if status >= 0 { status = Self.make(kind, on: bus, &message) }
        if status >= 0, let message {
            for argument in arguments where status >= 0 { status = argument.append(to: message) }
            if status >= 0 { status = csd_bus_message_seal(message, 2, 0) }
        }
        guard status >= 0, let message else {
            _ = csd_bus_message_unref(message)
            _ = csd_bus_unref(bus)
            close(ends[1])
            throw BusError("a message of \(arguments.count) arguments could not be made", status: status)
        }
        (self.message, self.bus, self.peer) = (message, bus, ends[1])
    }

    private static func make(_ kind: Kind, on bus: OpaquePointer, _ message: inout OpaquePointer?) -> Int32 {
        // Any name serves a message no bus routes; the notification service's, as the tests read.
        let (name, path) = ("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
        switch kind {
        case .signal(let member):
            return csd_bus_message_new_signal(bus, &message, path, name, member)
        case .reply(let member):
            var call: OpaquePointer?
            var status = csd_bus_message_new_method_call(bus, &call, name, path, name, member)
            guard status >= 0, let call else { return status }
            defer { _ = csd_bus_message_unref(call) }
            status = csd_bus_message_seal(call, 1, 0)
            return status >= 0 ? csd_bus_message_new_method_return(call, &message) : status
        }
    }

    /// Reads the message from its first argument.
    package func read<Value, Failure>(_ body: (BusReader) throws(Failure) -> Value) throws(Failure) -> Value {
        try body(BusReader(message: message))
    }

    /// Frees the message and its bus; whether both are gone: the bus closes its end of the
    /// socket only as it goes, and the message holds the bus, so the end of the file here
    /// says nothing kept either.
    package consuming func free() -> Bool {
        Self.release(message, bus)
        let gone = Self.readsToEnd(peer)
        close(peer)
        discard self
        return gone
    }

    deinit {
        Self.release(message, bus)
        close(peer)
    }

    private static func release(_ message: OpaquePointer, _ bus: OpaquePointer) {
        _ = csd_bus_message_unref(message)
        // Not closed: a bus closed while the message held it would close its socket even so.
        _ = csd_bus_unref(bus)
    }

    /// Whether `socket` reaches its end, past what the bus wrote (its authentication), within
    /// 2 s. Not at once: a process another thread is spawning holds a copy of every descriptor
    /// from its fork to its exec, which closes the copy (close-on-exec), and the end comes then.
    private static func readsToEnd(_ socket: Int32) -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            if count == 0 { return true }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK, ContinuousClock.now < deadline else { return false }
            var readable = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&readable, 1, 20)
        }
    }
}
