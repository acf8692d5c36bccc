import AdamantNodes

/// Run in order after the command and before `exit`, so that nothing (a worker thread, a
/// library's shared state) is still busy while exit handlers tear the process down.
enum BeforeExit {
    static let actions: [@Sendable () -> Void] = [
        CurlTransport.shutdown,  // curl's threads must be gone before exit() tears OpenSSL down
    ]
}
