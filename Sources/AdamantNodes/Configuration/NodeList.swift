import AdamantCore

/// The nodes to use and the network to accept, from the first source that is set: `--node`
/// arguments, then `ADM_NODES`, then the config file's `nodes`, then the built-in mainnet
/// list. A source that is set but names no node is an error, never a reason to try the next.
public struct NodeList: Sendable, Hashable {
    /// Where the list came from, for messages such as "ADM_NODES names no node".
    public enum Source: Sendable, Hashable {
        /// `--node` arguments.
        case arguments
        /// The `ADM_NODES` environment variable.
        case environment
        /// The config file at `path`.
        case configFile(path: String)
        /// The built-in mainnet list.
        case builtIn
    }

    /// The nodes, in the order given; duplicates dropped.
    public var endpoints: [NodeEndpoint]
    /// The network whose nodes are accepted.
    public var nethash: NethashRule
    /// Where the list came from.
    public var source: Source

    /// A list as given, with nothing resolved or checked.
    public init(endpoints: [NodeEndpoint], nethash: NethashRule, source: Source) {
        self.endpoints = endpoints
        self.nethash = nethash
        self.source = source
    }

    /// The built-in mainnet nodes, mainnet only.
    public static let mainnet = NodeList(endpoints: NodeEndpoint.mainnet, nethash: .pinned(.mainnet), source: .builtIn)

    /// Resolves the list. `nethash` (`--nethash`) pins the network; without it, nodes from the
    /// config file follow its `nethash`, and other user-given nodes their majority network.
    ///
    /// - Parameters:
    ///   - arguments: each `--node URL`, in order.
    ///   - nethash: `--nethash`, if given: the only network accepted.
    ///   - environment: the process environment; `ADM_NODES` is comma-separated.
    ///   - configFile: reads the config file; called only when neither `arguments` nor
    ///     `ADM_NODES` names the nodes.
    public static func resolve(
        arguments: [String], nethash: String? = nil, environment: [String: String],
        configFile: () throws(NodeListError) -> NodeConfigFile? = { nil }
    ) throws(NodeListError) -> NodeList {
        let pinned = try Self.nethash(nethash)
        if !arguments.isEmpty { return try userList(arguments, source: .arguments, pinned: pinned) }
        // A source that is set but blank is an error, never a fallback to the next one.
        if let list = environment["ADM_NODES"] {
            return try userList(list.split(separator: ",").map(String.init), source: .environment, pinned: pinned)
        }
        let file = try configFile()
        let filePinned = if let pinned { pinned } else { try Self.nethash(file?.nethash) }
        if let file, let nodes = file.nodes {
            return try userList(nodes, source: .configFile(path: file.path), pinned: filePinned)
        }
        return NodeList(
            endpoints: mainnet.endpoints, nethash: filePinned.map(NethashRule.pinned) ?? mainnet.nethash,
            source: .builtIn)
    }

    private static func nethash(_ text: String?) throws(NodeListError) -> Nethash? {
        guard let text else { return nil }
        guard let value = Nethash(text) else { throw .invalidNethash(text) }
        return value
    }

    private static func userList(_ texts: [String], source: Source, pinned: Nethash?) throws(NodeListError) -> NodeList
    {
        var endpoints: [NodeEndpoint] = []
        for text in texts.map(\.trimmingSpaces) where !text.isEmpty {
            let url: NodeURL
            do { url = try NodeURL(text) } catch { throw .invalidURL(error, source: source) }
            if !endpoints.contains(where: { $0.url == url }) { endpoints.append(NodeEndpoint(url: url)) }
        }
        guard !endpoints.isEmpty else { throw .noNodes(source: source) }
        return NodeList(endpoints: endpoints, nethash: pinned.map(NethashRule.pinned) ?? .majority, source: source)
    }
}

/// Why no node list could be made.
public enum NodeListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A URL that is not a node URL, and where it came from.
    case invalidURL(NodeURLError, source: NodeList.Source)
    /// `--nethash` or the file's `nethash` is not 64 hex characters.
    case invalidNethash(String)
    /// A source that is set but names no node.
    case noNodes(source: NodeList.Source)
    /// The config file cannot be used; `reason` is the whole message, naming the file.
    case configFile(path: String, reason: String)

    /// The reason, naming the source.
    public var description: String {
        switch self {
        case .invalidURL(let error, let source): "\(error) (from \(source.phrase))"
        case .invalidNethash(let text): "\(text.quoted) is not a nethash (64 hex characters)"
        case .noNodes(let source): "\(source.phrase) names no node"
        case .configFile(_, let reason): reason
        }
    }
}

extension NodeList.Source {
    var phrase: String {
        switch self {
        case .arguments: "--node"
        case .environment: "ADM_NODES"
        case .configFile(let path): path
        case .builtIn: "the built-in list"
        }
    }
}
