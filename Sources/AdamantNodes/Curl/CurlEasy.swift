import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libcurl easy handle, with a multi handle of its own to run it on. Reusing it keeps
/// connections, the DNS cache and TLS sessions alive between requests (keep-alive): they are
/// the multi handle's. Unchecked: one thread at a time uses it, the worker that checked it out
/// of `CurlHandles`.
final class CurlEasy: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let multi: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let getHeaders: UnsafeMutablePointer<curl_slist>
    private let postHeaders: UnsafeMutablePointer<curl_slist>

    /// A handle, or why libcurl could not give one.
    static func make() -> Result<CurlEasy, TransportError> {
        if let failure = ccurl_load_failure() { return .failure(.failed(String(cString: failure))) }
        return CurlEasy().map(Result.success) ?? .failure(.failed("libcurl could not create a handle (out of memory)"))
    }

    private init?() {
        // "Expect:" stops curl from pausing for a 100-continue before larger bodies. Each list
        // is its own: curl_slist_append extends a list in place.
        guard let handle = ccurl_easy_init() else { return nil }
        guard let multi = ccurl_multi_init() else {
            ccurl_easy_cleanup(handle)
            return nil
        }
        let getHeaders = Self.headerList(["Accept: application/json"])
        let postHeaders = Self.headerList(["Accept: application/json", "Content-Type: application/json", "Expect:"])
        guard let getHeaders, let postHeaders else {
            ccurl_slist_free_all(getHeaders)
            ccurl_slist_free_all(postHeaders)
            ccurl_multi_cleanup(multi)
            ccurl_easy_cleanup(handle)
            return nil
        }
        self.handle = handle
        self.multi = multi
        self.getHeaders = getHeaders
        self.postHeaders = postHeaders
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    }

    /// nil when libcurl runs out of memory (curl_slist_append returns NULL, keeping the list).
    private static func headerList(_ lines: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = ccurl_slist_append(list, line) else {
                ccurl_slist_free_all(list)
                return nil
            }
            list = longer
        }
        return list
    }

    deinit {
        ccurl_multi_cleanup(multi)  // closes the connections; the easy handle is in it only during a transfer
        ccurl_easy_cleanup(handle)
        ccurl_slist_free_all(getHeaders)
        ccurl_slist_free_all(postHeaders)
        errorBuffer.deallocate()
    }

    /// Runs the exchange on the calling thread; blocks until it ends.
    func perform(_ request: HTTPRequest, sizeLimit: Int, cancellation: CancellationFlag) -> Result<
        HTTPAnswer, TransportError
    > {
        ccurl_easy_reset(handle)  // clears options, keeps live connections
        errorBuffer[0] = 0
        let sink = TransferSink(limit: sizeLimit, cancellation: cancellation)
        defer { withExtendedLifetime(sink) {} }  // curl holds an unretained pointer to it
        do throws(TransportError) {
            try configure(for: request, sink: sink)
        } catch {
            return .failure(error)
        }
        let code = cancellation.whileRunning(on: CurlMulti(handle: multi)) {
            ccurl_perform(multi, handle, { TransferSink.isCancelled($0) }, sink.opaque)
        }
        let arrivedAt = ContinuousClock.now
        guard code == CURLE_OK else { return .failure(transportError(code, sink: sink, request: request)) }
        var status = 0
        let statusCode = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard statusCode == CURLE_OK, (100...999).contains(status) else {
            return .failure(.brokenAnswer("no HTTP status (\(String(cString: ccurl_easy_strerror(statusCode))))"))
        }
        return .success(
            HTTPAnswer(
                status: status, contentType: contentType, body: sink.body, wireTime: wireTime, arrivedAt: arrivedAt))
    }

    private func configure(for request: HTTPRequest, sink: TransferSink) throws(TransportError) {
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)  // required with threads (libcurl-thread(3))
        try set(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout))
        try set(CURLOPT_TIMEOUT_MS, milliseconds(request.timeout))
        try set(CURLOPT_ACCEPT_ENCODING, "")  // every encoding this build decodes, gzip included
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        // Never follow redirects: a POST must not be replayed, and a GET must not leave the
        // nodes the user chose. A 3xx is just a non-node answer.
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_USERAGENT, "adm-push")
        try route(request)
        // HTTP/2 where TLS offers it; a build without nghttp2 refuses this, and HTTP/1.1 is fine.
        let http2 = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if http2 != CURLE_UNSUPPORTED_PROTOCOL { try check(http2, CURLOPT_HTTP_VERSION) }

        try set(CURLOPT_MAXFILESIZE_LARGE, offset: curl_off_t(sink.limit))  // early stop when Content-Length says so
        try check(ccurl_setopt_write(handle) { TransferSink.write($0, $1, $2, $3) }, CURLOPT_WRITEFUNCTION)
        try set(CURLOPT_WRITEDATA, sink.opaque)

        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, 1)
            try set(CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(getHeaders))
        case .post:
            let body = request.body ?? []
            try set(CURLOPT_POST, 1)
            try set(CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(postHeaders))
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
            try check(
                body.withUnsafeBytes {
                    ccurl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                }, CURLOPT_COPYPOSTFIELDS)
        }
    }

    /// The proxy, or none, set for every request: libcurl then never follows its proxy
    /// variables, and NO_PROXY cannot take a node around a proxy.
    private func route(_ request: HTTPRequest) throws(TransportError) {
        try set(CURLOPT_NOPROXY, "")
        guard let proxy = request.hop.proxy else {
            if case .environmentProxy(let variable, nil) = request.hop {
                throw .invalidRequest("\(variable) names no proxy adm-push can use")
            }
            return try set(CURLOPT_PROXY, "")  // an empty proxy turns the environment's off
        }
        try set(CURLOPT_PROXY, proxy.description)
        // An HTTP proxy tunnels every request, plain-HTTP nodes' too, rather than taking
        // them in its own hands.
        if proxy.scheme == .http { try set(CURLOPT_HTTPPROXYTUNNEL, 1) }
        guard proxy.isSOCKS, let circuit = request.circuit else { return }
        // Tor keeps streams of different SOCKS credentials on different circuits, and
        // libcurl reuses a proxied connection only for the same ones.
        try set(CURLOPT_PROXYUSERNAME, circuit)
        try set(CURLOPT_PROXYPASSWORD, "adm-push")
    }

    /// The whole transfer as libcurl timed it, from the moment this worker started it: time
    /// spent queued for a worker is not the node's latency.
    private var wireTime: Duration? {
        var microseconds: curl_off_t = 0
        guard ccurl_getinfo_off(handle, CURLINFO_TOTAL_TIME_T, &microseconds) == CURLE_OK, microseconds >= 0 else {
            return nil
        }
        return .microseconds(microseconds)
    }

    /// Whether the transfer reached a peer (a failure after this is the peer's doing).
    private var connected: Bool {
        var address: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(handle, CURLINFO_PRIMARY_IP, &address) == CURLE_OK, let address else { return false }
        return address[0] != 0
    }

    /// Whether the SOCKS proxy answered that the node refused it, or could not be reached:
    /// the proxy did its part, and the failure is the node's.
    private var refusedTheNode: Bool {
        var code = 0
        guard ccurl_getinfo_long(handle, CURLINFO_PROXY_ERROR, &code) == CURLE_OK else { return false }
        let reasons = [
            CURLPX_REPLY_CONNECTION_REFUSED, CURLPX_REPLY_HOST_UNREACHABLE, CURLPX_REPLY_NETWORK_UNREACHABLE,
            CURLPX_REPLY_TTL_EXPIRED,
        ]
        return reasons.contains { Int($0.rawValue) == code }
    }

    /// Whether an HTTP proxy answered the tunnel's CONNECT with an HTTP status.
    private var tunnelAnswered: Bool {
        var code = 0
        return ccurl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &code) == CURLE_OK && code != 0
    }

    /// Whether the last connection was refused: nothing listened.
    private var refused: Bool {
        var code = 0
        return ccurl_getinfo_long(handle, CURLINFO_OS_ERRNO, &code) == CURLE_OK && code == Int(ECONNREFUSED)
    }

    private var contentType: String? {
        var text: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &text) == CURLE_OK, let text else { return nil }
        return String(cString: text)
    }

    private func transportError(_ code: CURLcode, sink: TransferSink, request: HTTPRequest) -> TransportError {
        // Through a proxy, a failed connection is one to the proxy. CURLE_PROXY is both the
        // proxy's own failure and its word that the node could not be reached.
        let proxy = request.hop.proxy?.description ?? "the proxy"
        let text = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: ccurl_easy_strerror(code))
        // "Failed to connect to … after 3 ms: …": without the time, the same failure reads the
        // same on every node, and is said once.
        let detail = text.replacing(/\s+after \d+ ms/, with: "")
        // What sits there does not speak HTTP's CONNECT: most often a SOCKS proxy.
        if [CURLE_RECV_ERROR, CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING].contains(code),
            request.hop.proxy?.scheme == .http, !tunnelAnswered
        {
            return .proxyFailed(
                proxy: proxy,
                reason: "it does not answer HTTP's CONNECT (\(detail)); if it is a SOCKS proxy, give socks5h://")
        }
        switch code {
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_WRITE_ERROR where sink.exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: sink.limit)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_UNSUPPORTED_PROTOCOL where connected:
            return .brokenAnswer(detail)  // e.g. "Received HTTP/0.9 when not allowed": not HTTP at all
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidRequest(detail)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_BAD_CONTENT_ENCODING:
            return .brokenAnswer(detail)
        case CURLE_PROXY where refusedTheNode: return .unreachable("\(proxy) could not reach the node: \(detail)")
        case CURLE_COULDNT_CONNECT where request.hop.proxy != nil && refused:
            return .proxyFailed(proxy: proxy, reason: TransportError.proxyRefusal)
        case CURLE_COULDNT_CONNECT where request.hop.proxy != nil, CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY:
            return .proxyFailed(proxy: proxy, reason: detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            return .unreachable(detail)
        default: return .failed(detail)
        }
    }

    // MARK: Typed setopt

    private func set(_ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(ccurl_setopt_long(handle, option, value), option)
    }

    private func set(_ option: CURLoption, offset value: curl_off_t) throws(TransportError) {
        try check(ccurl_setopt_off(handle, option, value), option)
    }

    private func set(_ option: CURLoption, _ value: String) throws(TransportError) {
        try check(ccurl_setopt_string(handle, option, value), option)  // libcurl copies strings
    }

    private func set(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) throws(TransportError) {
        try check(ccurl_setopt_ptr(handle, option, value), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(TransportError) {
        guard code == CURLE_OK else {
            throw .failed("curl option \(option.rawValue): \(String(cString: ccurl_easy_strerror(code)))")
        }
    }

    /// Rounded up: a request cut to an operation's deadline must not end before it, or its
    /// timeout reads as a node failure instead of the deadline. At least 1 (0 means "no
    /// limit"), at most a day.
    private func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds < 86_400 else { return 86_400_000 }
        guard seconds >= 0, attoseconds >= 0 else { return 1 }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        return max(
            1, Int(seconds) * 1000 + Int((attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond))
    }
}
