#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The user's node settings, `$XDG_CONFIG_HOME/adm-push/config.json` (or
/// `~/.config/adm-push/config.json`). Both keys are optional:
///
/// ```json
/// {
///   "nodes": ["https://clown.adamant.im", "http://192.168.1.5:36666"],
///   "nethash": "bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64"
/// }
/// ```
///
/// `nodes` replaces the built-in list, and `nethash` pins the network the nodes must be on
/// (`--nethash` overrides it). The file is read only when neither `--node` nor `ADM_NODES`
/// names the nodes.
public struct NodeConfigFile: Sendable, Hashable {
    /// Far more than a list of nodes needs; a larger file is refused unread.
    public static let maxBytes = 1 << 20

    /// Where the file was read from, for error messages.
    public var path: String
    /// nil when the file has no `nodes` key; an empty list is an error when the list is resolved.
    public var nodes: [String]?
    /// The network the nodes must be on, as written; checked when the list is resolved.
    public var nethash: String?

    /// Parses the file's bytes. Unknown keys are ignored, so the file can hold other settings.
    public init(path: String, contents: [UInt8]) throws(NodeListError) {
        struct Body: Decodable {
            var nodes: [String]?
            var nethash: String?
        }
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(contents)) } catch {
            throw .configFile(path: path, reason: "\(AnswerText.decoding(error)); expected {\"nodes\": [\"https://…\"], \"nethash\": \"…\"}")
        }
        self.path = path
        nodes = body.nodes
        nethash = body.nethash
    }

    /// Where the file lives for this environment, or nil when neither `XDG_CONFIG_HOME` nor
    /// `HOME` is an absolute path.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/adm-push/config.json" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config/adm-push/config.json" }
        return nil
    }

    /// The file at the default path for `environment`, or nil when there is none.
    public static func load(environment: [String: String]) throws(NodeListError) -> NodeConfigFile? {
        guard let path = defaultPath(environment: environment) else { return nil }
        return try load(path: path)
    }

    /// The parsed file, or nil when there is no file at `path`. Refuses anything but a regular
    /// file (a FIFO would block the read) and anything over `maxBytes`, without reading it.
    public static func load(path: String) throws(NodeListError) -> NodeConfigFile? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .configFile(path: path, reason: "cannot be opened: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .configFile(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .configFile(path: path, reason: "is not a regular file") }
        guard info.st_size <= maxBytes else { throw tooLarge(path) }

        // Read at most one byte past the cap, in case the file grew since fstat.
        var contents = [UInt8](repeating: 0, count: maxBytes + 1)
        var filled = 0
        while filled < contents.count {
            let count = contents.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count >= 0 else { throw .configFile(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
            guard count > 0 else { break }
            filled += count
        }
        guard filled <= maxBytes else { throw tooLarge(path) }
        return try NodeConfigFile(path: path, contents: Array(contents.prefix(filled)))
    }

    private static func tooLarge(_ path: String) -> NodeListError {
        .configFile(path: path, reason: "is larger than \(maxBytes >> 20) MiB; a node list is a few lines of JSON")
    }
}
