#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// Detached threads for curl's blocking calls. The commands end with `_exit`, which ends them
/// wherever they are, so none is ever joined.
final class CurlThreads: Sendable {
    static let shared = CurlThreads()

    /// Runs `body` on a new detached thread; false when none could be made.
    func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { opaque in
            Unmanaged<ThreadBody>.fromOpaque(opaque!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            box.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

/// A thread's work, handed to `pthread_create` through an opaque pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
