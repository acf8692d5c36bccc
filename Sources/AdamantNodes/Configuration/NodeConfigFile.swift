/// What the user's config file says about nodes, as `NodeList.resolve` takes it (the file is
/// read and checked by the command-line layer, with its other settings):
///
/// ```json
/// {
///   "nodes": ["https://clown.adamant.im", "http://192.168.1.5:36666"],
///   "nethash": "bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64"
/// }
/// ```
///
/// `nodes` replaces the built-in list, and `nethash` pins the network the nodes must be on
/// (`--nethash` overrides it). The file is needed only when neither `--node` nor `ADM_NODES`
/// names the nodes.
public struct NodeConfigFile: Sendable, Hashable {
    /// Where the file was read from, for error messages.
    public var path: String
    /// nil when the file has no `nodes` key; an empty list is an error when the list is resolved.
    public var nodes: [String]?
    /// The network the nodes must be on, as written; checked when the list is resolved.
    public var nethash: String?

    /// The file's node settings, as the caller read them from `path`.
    public init(path: String, nodes: [String]? = nil, nethash: String? = nil) {
        self.path = path
        self.nodes = nodes
        self.nethash = nethash
    }
}
