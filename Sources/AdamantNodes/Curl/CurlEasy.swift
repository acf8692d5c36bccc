import CCurl

/// One libcurl easy handle, owned by one worker thread for its whole life. Reusing it keeps
/// connections, the DNS cache and TLS sessions alive between requests (keep-alive).
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let getHeaders: UnsafeMutablePointer<curl_slist>?
    private let postHeaders: UnsafeMutablePointer<curl_slist>?

    init?() {
        _ = Curl.globalInit
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        getHeaders = curl_slist_append(nil, "Accept: application/json")
        // Its own list: curl_slist_append extends a list in place, so it cannot start from getHeaders.
        // "Expect:" stops curl from pausing for a 100-continue before larger bodies.
        var post = curl_slist_append(nil, "Accept: application/json")
        post = curl_slist_append(post, "Content-Type: application/json")
        postHeaders = curl_slist_append(post, "Expect:")
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(getHeaders)
        curl_slist_free_all(postHeaders)
        errorBuffer.deallocate()
    }

    /// Runs the exchange on the calling thread; blocks until it ends.
    func perform(_ request: HTTPRequest, sizeLimit: Int, cancellation: CancellationFlag) -> Result<HTTPAnswer, TransportError> {
        curl_easy_reset(handle)  // clears options, keeps live connections
        errorBuffer[0] = 0
        let sink = TransferSink(limit: sizeLimit, cancellation: cancellation)
        defer { withExtendedLifetime(sink) {} }  // curl holds an unretained pointer to it
        do throws(TransportError) {
            try configure(for: request, sink: sink)
        } catch {
            return .failure(error)
        }
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else { return .failure(transportError(code, sink: sink)) }
        return .success(HTTPAnswer(status: responseCode, contentType: contentType, body: sink.body))
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
        // HTTP/2 where TLS offers it; a build without nghttp2 refuses this, and HTTP/1.1 is fine.
        _ = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))

        try set(CURLOPT_MAXFILESIZE_LARGE, offset: curl_off_t(sink.limit))  // early stop when Content-Length says so
        try check(ccurl_setopt_write(handle) { TransferSink.write($0, $1, $2, $3) }, CURLOPT_WRITEFUNCTION)
        try set(CURLOPT_WRITEDATA, sink.opaque)
        try set(CURLOPT_NOPROGRESS, 0)
        try check(ccurl_setopt_xferinfo(handle) { context, _, _, _, _ in TransferSink.progress(context) }, CURLOPT_XFERINFOFUNCTION)
        try set(CURLOPT_XFERINFODATA, sink.opaque)

        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, 1)
            try set(CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(getHeaders))
        case .post:
            let body = request.body ?? []
            try set(CURLOPT_POST, 1)
            try set(CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(postHeaders))
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
            try check(body.withUnsafeBytes { ccurl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }, CURLOPT_COPYPOSTFIELDS)
        }
    }

    private var responseCode: Int {
        var code = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    private var contentType: String? {
        var text: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(handle, CURLINFO_CONTENT_TYPE, &text) == CURLE_OK, let text else { return nil }
        return String(cString: text)
    }

    private func transportError(_ code: CURLcode, sink: TransferSink) -> TransportError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_WRITE_ERROR where sink.exceededLimit, CURLE_FILESIZE_EXCEEDED: return .responseTooLarge(limit: sink.limit)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidRequest(detail)
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
            throw .failed("curl option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// Rounded up: a request cut to an operation's deadline must not end before it, or its
    /// timeout reads as a node failure instead of the deadline.
    private func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let millis = Int(seconds) * 1000 + Int((attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond)
        return max(1, millis)  // 0 would mean "no limit"
    }
}

enum Curl {
    /// Thread-safe once, before the first handle (libcurl ≥ 7.84 with "threadsafe").
    static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
}
