internal import CSDBus
import Dispatch
import Synchronization

/// The user's session bus through sd-bus, on a serial queue of its own: sd-bus is not
/// thread-safe, and a call blocks until its answer, so every use of the connection is one
/// block on that queue. Signals are read when the connection's socket is readable, and after
/// every call (a call reads whatever arrives before its answer, so the socket may then be
/// quiet with signals already queued).
///
/// Any client of the bus may send a signal that says it is a service's, to everyone or to
/// this connection alone, so a service's signals are taken only from the connection that
/// answers its calls: the unique name its last answer came from.
// `connection`, `subscriptions` and `answerers` are touched only on `queue`
package final class SessionBus: @unchecked Sendable {
    /// A member of a matched signal and its arguments.
    package typealias SignalHandler = @Sendable (_ member: String, _ arguments: BusReader) -> Void

    /// Longest a call waits for its answer: a notification server that hangs holds up
    /// nothing longer than this. Calls sd-bus makes itself (AddMatch) wait as long.
    package static let callTimeout: Duration = .seconds(5)
    /// Longest the bus may take to authenticate a new connection and answer its Hello, which
    /// sd-bus alone would wait 90 s for: a bus that is hung, or a socket that is no bus's,
    /// holds up the start no longer than this.
    package static let connectTimeout: Duration = .seconds(5)

    private let queue = DispatchQueue(label: "adm.session-bus")
    private var connection: OpaquePointer?
    private var readable: (any DispatchSourceRead)?
    private var subscriptions: [(slot: OpaquePointer, handler: Unmanaged<Subscription>)] = []
    /// Each service called, by its well-known name: the unique name of the connection its
    /// last answer came from.
    private var answerers: [String: String] = [:]
    private let lost = Mutex<(@Sendable (BusError) -> Void)?>(nil)

    private final class Subscription {
        let service: String
        let handler: SignalHandler
        /// The bus holds the subscription, and lets go of it only as it goes itself.
        unowned let bus: SessionBus

        init(_ service: String, _ handler: @escaping SignalHandler, on bus: SessionBus) {
            (self.service, self.handler, self.bus) = (service, handler, bus)
        }

        /// Hands `message` to the handler if the service's connection sent it; on the queue.
        func deliver(_ message: OpaquePointer) {
            guard let member = csd_bus_message_get_member(message), let sender = csd_bus_message_get_sender(message),
                let answerer = bus.answerers[service], String(cString: sender) == answerer
            else { return }
            handler(String(cString: member), BusReader(message: message))
        }
    }

    /// Connects to the session bus at `address` (a D-Bus address, as
    /// `DBUS_SESSION_BUS_ADDRESS` holds).
    package static func connect(address: String) async throws(BusError) -> SessionBus {
        if let failure = csdbus_load_failure() { throw BusError(String(cString: failure)) }
        let bus = SessionBus()
        try await bus.onQueue { () throws(BusError) in
            var made: OpaquePointer?
            let created = csd_bus_new(&made)
            guard created >= 0, let connection = made else {
                throw BusError("no bus connection could be made", status: created)
            }
            do throws(BusError) { try start(connection, address: address) } catch {
                _ = csd_bus_close_unref(connection)  // not flushed: that would wait for the bus again
                throw error
            }
            bus.connection = connection
            let source = DispatchSource.makeReadSource(fileDescriptor: csd_bus_get_fd(connection), queue: bus.queue)
            // Weak: the source is the bus's, and a strong handler would keep both alive for good.
            source.setEventHandler { [weak bus] in bus?.process() }
            source.resume()
            bus.readable = source
        }
        return bus
    }

    /// Starts `connection` to `address` and waits, up to `connectTimeout`, until the bus has
    /// authenticated it and answered its Hello; on the caller's thread.
    private static func start(_ connection: OpaquePointer, address: String) throws(BusError) {
        var status = csd_bus_set_address(connection, address)
        if status >= 0 { status = csd_bus_set_bus_client(connection, 1) }
        if status >= 0 { status = csd_bus_set_method_call_timeout(connection, microseconds(callTimeout)) }
        if status >= 0 { status = csd_bus_start(connection) }
        let deadline = ContinuousClock.now + connectTimeout
        while status >= 0, csd_bus_is_ready(connection) <= 0 {
            let left = deadline - .now
            guard left > .zero else {
                throw BusError(
                    "the session bus at \(address) did not answer within \(connectTimeout.components.seconds) s: its dbus-daemon is hung, or what listens there is no bus"
                )
            }
            status = csd_bus_process(connection, nil)
            if status == 0 { status = csd_bus_wait(connection, microseconds(left)) }  // nothing to do until it answers
        }
        guard status >= 0 else { throw BusError("the session bus at \(address) cannot be reached", status: status) }
    }

    /// `duration` in whole microseconds, at least one (to sd-bus 0 means no timeout, or the
    /// default).
    private static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return max(1, UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
    }

    private init() {}

    deinit {
        // On the queue's thread or not, nothing else holds the bus now.
        readable?.cancel()
        for subscription in subscriptions {
            _ = csd_bus_slot_unref(subscription.slot)
            subscription.handler.release()
        }
        // Not flushed: every call waited for its answer, and a flush would wait for a bus that
        // may be hung. The bus drops the subscriptions with the connection.
        if let connection { _ = csd_bus_close_unref(connection) }
    }

    /// Called once, on the bus's queue, when the connection is lost.
    package func onLoss(_ handler: @escaping @Sendable (BusError) -> Void) { lost.withLock { $0 = handler } }

    /// Calls `member` and reads its answer with `read`, waiting at most `timeout` for it.
    package func call<Answer: Sendable>(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue],
        timeout: Duration = callTimeout, read: @escaping @Sendable (BusReader) throws(BusError) -> Answer
    ) async throws(BusError) -> Answer {
        try await onQueue { () throws(BusError) in
            defer { self.process() }
            guard let connection = self.connection else { throw BusError("the session bus connection was lost") }
            var message: OpaquePointer?
            let made = csd_bus_message_new_method_call(connection, &message, destination, path, interface, member)
            guard made >= 0, let message else { throw BusError("a call to \(member) could not be made", status: made) }
            defer { _ = csd_bus_message_unref(message) }
            for argument in arguments {
                let status = argument.append(to: message)
                guard status >= 0 else { throw BusError("an argument of \(member) could not be added", status: status) }
            }
            var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
            defer { csd_bus_error_free(&error) }
            var reply: OpaquePointer?
            let status = csd_bus_call(connection, message, Self.microseconds(timeout), &error, &reply)
            guard status >= 0, let reply else {
                if let name = error.name {
                    // The peer's own words, cut short: a server is not trusted with the log's length.
                    let text = error.message.map { String(String(cString: $0).prefix(300)) } ?? "no reason given"
                    let named = String(String(cString: name).prefix(100))
                    throw BusError("\(member) failed: \(text) (\(named))", name: named)
                }
                throw BusError("\(member) failed", status: status)
            }
            defer { _ = csd_bus_message_unref(reply) }
            // The bus puts the sender's unique name on every message it passes on.
            if let sender = csd_bus_message_get_sender(reply) { self.answerers[destination] = String(cString: sender) }
            return try read(BusReader(message: reply))
        }
    }

    /// Hands `handler` every signal of `interface` at `path` that `service` (a well-known
    /// name) sends, on the bus's queue: those from the connection that last answered a call to
    /// it, none before the first answer.
    package func subscribe(to service: String, path: String, interface: String, _ handler: @escaping SignalHandler)
        async throws(BusError)
    {
        try await onQueue { () throws(BusError) in
            guard let connection = self.connection else { throw BusError("the session bus connection was lost") }
            let box = Unmanaged.passRetained(Subscription(service, handler, on: self))
            var slot: OpaquePointer?
            // The rule's sender spares the bus sending what others broadcast; what is sent to
            // this connection alone comes whatever the rule, hence the check on delivery.
            let status = csd_bus_match_signal(
                connection, &slot, service, path, interface, nil,
                { message, userdata, _ in
                    if let message, let userdata {
                        Unmanaged<Subscription>.fromOpaque(userdata).takeUnretainedValue().deliver(message)
                    }
                    return 0
                }, box.toOpaque())
            guard status >= 0, let slot else {
                box.release()
                throw BusError("the signals of \(interface) could not be subscribed to", status: status)
            }
            self.subscriptions.append((slot, box))
        }
    }

    /// Dispatches what the connection has read; on the queue.
    private func process() {
        guard let connection else { return }
        while true {
            let status = csd_bus_process(connection, nil)
            if status > 0 { continue }
            if status == 0 { return }
            readable?.cancel()
            readable = nil
            self.connection = nil
            _ = csd_bus_close_unref(connection)
            let failure = BusError("the session bus connection was lost", status: status)
            lost.withLock { $0 }?(failure)
            return
        }
    }

    private func onQueue<Value: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> Value)
        async throws(BusError) -> Value
    {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Value, BusError>, Never>) in
            queue.async {
                do throws(BusError) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
