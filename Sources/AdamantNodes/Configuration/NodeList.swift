import Foundation

/// The nodes to use and the network to accept, from the first source that names any nodes:
/// `--node` arguments, then `ADM_NODES`, then the config file, then the built-in mainnet list.
/// A source that is given but names no node is an error, not a reason to try the next one.
public struct NodeList: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        case arguments
        case environment
        case configFile(path: String)
        case builtIn
    }

    public var endpoints: [NodeEndpoint]
    public var nethash: NethashRule
    public var source: Source

    public init(endpoints: [NodeEndpoint], nethash: NethashRule, source: Source) {
        self.endpoints = endpoints
        self.nethash = nethash
        self.source = source
    }

    /// The built-in mainnet nodes, mainnet only.
    public static let mainnet = NodeList(endpoints: NodeEndpoint.mainnet, nethash: .pinned(.mainnet), source: .builtIn)

    /// Resolves the list. `nethash` (`--nethash`) pins the network over the config file's
    /// `nethash`; without either, user-given nodes follow their majority network.
    ///
    /// - Parameters:
    ///   - arguments: each `--node URL`, in order.
    ///   - environment: the process environment; `ADM_NODES` is comma-separated.
    ///   - configFile: the parsed config file, if there is one (`NodeConfigFile.load`).
    public static func resolve(
        arguments: [String], nethash: String? = nil, environment: [String: String], configFile: NodeConfigFile? = nil
    ) throws(NodeListError) -> NodeList {
        var pinned: Nethash?
        if let text = nethash ?? configFile?.nethash {
            guard let value = Nethash(text) else { throw .invalidNethash(text) }
            pinned = value
        }
        // A source that is set but blank is an error below, never a fallback to the next one.
        let user: ([String], Source)? =
            if !arguments.isEmpty { (arguments, .arguments) }
            else if let list = environment["ADM_NODES"] { (list.split(separator: ",").map(String.init), .environment) }
            else if let configFile, !configFile.nodes.isEmpty { (configFile.nodes, .configFile(path: configFile.path)) }
            else { nil }

        guard let (texts, source) = user else {
            return NodeList(endpoints: mainnet.endpoints, nethash: pinned.map(NethashRule.pinned) ?? mainnet.nethash, source: .builtIn)
        }
        var endpoints: [NodeEndpoint] = []
        for text in texts.map({ $0.trimmingCharacters(in: .whitespaces) }) where !text.isEmpty {
            let url: NodeURL
            do { url = try NodeURL(text) } catch { throw .invalidURL(error, source: source) }
            if !endpoints.contains(where: { $0.url == url }) { endpoints.append(NodeEndpoint(url: url)) }
        }
        guard !endpoints.isEmpty else { throw .noNodes(source: source) }
        return NodeList(endpoints: endpoints, nethash: pinned.map(NethashRule.pinned) ?? .majority, source: source)
    }
}

public enum NodeListError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL(NodeURLError, source: NodeList.Source)
    case invalidNethash(String)
    case noNodes(source: NodeList.Source)
    case configFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let error, let source): "\(error) (from \(source.phrase))"
        case .invalidNethash(let text): "\"\(text)\" is not a nethash (64 hex characters)"
        case .noNodes(let source): "\(source.phrase) names no node"
        case .configFile(let path, let reason): "\(path): \(reason)"
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
