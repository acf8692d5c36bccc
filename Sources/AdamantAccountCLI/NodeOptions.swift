public import AdamantCLI
public import AdamantCore
public import AdamantNodes

/// The node options every networked command shares, and the node list they resolve to.
public enum NodeOptions {
    public static let node = RepeatableOption(
        "node", valueName: "url",
        help:
            "A node to use (repeatable). Else ADM_NODES (comma-separated), the config file, or the built-in mainnet list."
    )
    public static let nethash = SingleOption(
        "nethash", valueName: "hex",
        help:
            "Accept only nodes of this network (else the config file's; default: mainnet for the built-in list, else the majority)."
    )
    public static let proxy = SingleOption(
        "proxy", valueName: "url",
        help:
            "Send every request through this proxy: socks5h://127.0.0.1:9050 for Tor, socks5:// or http://; none for no proxy, "
            + "not even the environment's. Else ADM_PROXY, the config file's, or libcurl's proxy variables.")
    public static let options: [any DeclaredOption] = [node, nethash, proxy]
    public static let proxyVariable = "ADM_PROXY"

    public static let help = """
        Nodes come from --node, else ADM_NODES, else $XDG_CONFIG_HOME/adm-push/config.json
        ({"nodes": ["https://…"], "nethash": "…"}), else the built-in list of mainnet nodes.
        No other host is ever contacted. Requests go through --proxy, else ADM_PROXY, else the
        file's "proxy", else as libcurl's https_proxy, http_proxy, ALL_PROXY and NO_PROXY say;
        with socks5h:// (Tor), node names are resolved by the proxy, and each account's
        requests carry a SOCKS username of their own, so accounts never share a Tor circuit.
        """

    /// How requests reach the nodes, and where that was set.
    public static func routeSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<
        NetworkRoute
    > {
        func parsed(_ text: String, _ origin: SettingOrigin) throws(CLIError) -> Setting<NetworkRoute> {
            do throws(ProxyError) { return Setting(try NetworkRoute(setting: text), origin) } catch {
                throw .usage("\(origin.source ?? "proxy"): \(error)")
            }
        }
        if let text = arguments.value(proxy) { return try parsed(text, .flag("--" + proxy.spec.name)) }
        if let text = context.environment[proxyVariable] { return try parsed(text, .environment(proxyVariable)) }
        if let file = try OutboxOptions.configFile(context), let route = file.proxy {
            return Setting(route, .file(file.path))
        }
        return Setting(.environment, .builtIn)
    }

    /// The route, libcurl's proxy variables read by libcurl's rules when no proxy is set:
    /// what every request is then told, and what `nodes` and `config` show.
    public static func route(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> ResolvedRoute {
        ResolvedRoute(try routeSetting(arguments, context).value, environment: context.environment)
    }

    /// Whether each account needs a pool of its own: through a SOCKS proxy, its requests carry
    /// a username of their own, which no connection of another account's may share.
    public static func separatesAccounts(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Bool {
        try route(arguments, context).proxies(for: nodeList(arguments, context)).contains { $0.isSOCKS }
    }

    /// The pool a networked command uses: the configured nodes on the configured route, ranked
    /// as the last run in `home` found them on that route. Through a SOCKS proxy, the requests
    /// carry the account's circuit name (its key is awaited for it); `warn` hears of a route
    /// that leaks node names to the local resolver.
    public static func pool(
        _ arguments: ParsedArguments, _ context: Context, home: String? = nil, account: AccountKeys? = nil,
        warn: (String) -> Void
    ) async throws(CLIError) -> NodePool {
        let list = try nodeList(arguments, context)
        let route = try route(arguments, context)
        if let refusal = route.refusal(of: list) { throw .invalidInput(refusal) }
        var configuration = NodePool.Configuration(route: route, proxied: route.isProxied(for: list))
        let proxies = route.proxies(for: list)
        for proxy in proxies.sorted(by: { $0.description < $1.description }) where proxy.scheme == .socks5 {
            warn(
                "\(proxy) resolves node names here, so the local resolver learns each one; socks5h:// leaves them to the proxy"
            )
        }
        if proxies.contains(where: \.isSOCKS), let account { configuration.circuit = await account.keyPair.circuitName }
        return HealthCache.pool(for: list, configuration: configuration, home: home, clocks: context.clocks)
    }

    /// The node list. The built-in one, through a proxy that resolves names (Tor's kind), has
    /// ADAMANT's onion services too.
    public static func nodeList(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> NodeList {
        var list = try givenOrBuiltInList(arguments, context)
        if list.source == .builtIn {
            let route = try route(arguments, context)
            list.endpoints += NodeEndpoint.mainnetOnion.filter { route.reaches($0.url) }
        }
        return list
    }

    private static func givenOrBuiltInList(_ arguments: ParsedArguments, _ context: Context) throws(CLIError)
        -> NodeList
    {
        do throws(NodeListError) {
            return try NodeList.resolve(
                arguments: arguments.values(node), nethash: arguments.value(nethash), environment: context.environment
            ) { () throws(NodeListError) in
                do throws(ConfigFileError) { return try context.configFile.file()?.nodeSettings } catch {
                    throw .configFile(path: error.path, reason: error.description)
                }
            }
        } catch {
            switch error {
            case .configFile, .noNodes(source: .configFile), .invalidURL(_, source: .configFile):
                throw .invalidInput("\(error)")
            default: throw .usage("\(error)")
            }
        }
    }

    /// Where the network `list` accepts came from: `--nethash`, else the config file's when its
    /// nodes or the built-in ones are used (it goes with those), else the default.
    public static func nethashOrigin(of list: NodeList, _ arguments: ParsedArguments, _ context: Context)
        -> SettingOrigin
    {
        if arguments.value(nethash) != nil { return .flag("--" + nethash.spec.name) }
        switch list.source {
        case .arguments, .environment:
            return .builtIn
        case .configFile, .builtIn:
            guard let file = try? context.configFile.file(), file.nethash != nil else { return .builtIn }
            return .file(file.path)
        }
    }
}
