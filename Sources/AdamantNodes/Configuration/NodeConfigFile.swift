import Foundation

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
/// `nodes` replaces the built-in list (`--node` and `ADM_NODES` replace it in turn); `nethash`
/// pins the network the nodes must be on (`--nethash` overrides it).
public struct NodeConfigFile: Sendable, Hashable {
    public var path: String
    public var nodes: [String]
    public var nethash: String?

    /// Parses the file's bytes. Unknown keys are ignored, so the file can hold other settings.
    public init(path: String, contents: [UInt8]) throws(NodeListError) {
        struct Body: Decodable {
            var nodes: [String]?
            var nethash: String?
        }
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(contents)) } catch {
            throw .configFile(path: path, reason: "expected {\"nodes\": [\"https://…\"], \"nethash\": \"…\"} (\(error))")
        }
        self.path = path
        nodes = body.nodes ?? []
        nethash = body.nethash
    }

    /// Where the file lives for this environment, or nil when neither `XDG_CONFIG_HOME` nor
    /// `HOME` is an absolute path.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/adm-push/config.json" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config/adm-push/config.json" }
        return nil
    }

    /// The parsed file, or nil when there is no file at `path`.
    public static func load(path: String) throws(NodeListError) -> NodeConfigFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configFile(path: path, reason: "cannot be read")
        }
        return try NodeConfigFile(path: path, contents: Array(data))
    }
}
