#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own for work that blocks (`curl_easy_perform`, `dlopen`, a signal pipe,
/// `waitid`), which must never hold one of the cooperative pool's few threads. None is joined:
/// the commands end with `_exit`, which ends every thread wherever it is.
package enum DetachedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; false when none could be made.
    @discardableResult
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { opaque in
                Unmanaged<Body>.fromOpaque(opaque!).takeRetainedValue().run()
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
