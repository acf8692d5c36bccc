public import AdamantNodes

/// The node options every networked command shares, and the node list they resolve to.
public enum NodeOptions {
    public static let node = RepeatableOption(
        "node", valueName: "url",
        help: "A node to use (repeatable). Else ADM_NODES (comma-separated), the config file, or the built-in mainnet list.")
    public static let nethash = SingleOption(
        "nethash", valueName: "hex",
        help: "Accept only nodes of this network (else the config file's; default: mainnet for the built-in list, else the majority).")
    public static let options: [any DeclaredOption] = [node, nethash]

    public static let help = """
        Nodes come from --node, else ADM_NODES, else $XDG_CONFIG_HOME/adm-push/config.json
        ({"nodes": ["https://…"], "nethash": "…"}), else the built-in list of mainnet nodes.
        No other host is ever contacted.
        """

    public static func nodeList(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> NodeList {
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
            case .configFile, .noNodes(source: .configFile), .invalidURL(_, source: .configFile): throw .invalidInput("\(error)")
            default: throw .usage("\(error)")
            }
        }
    }

    /// Where the network `list` accepts came from: `--nethash`, else the config file's when its
    /// nodes or the built-in ones are used (it goes with those), else the default.
    public static func nethashOrigin(of list: NodeList, _ arguments: ParsedArguments, _ context: Context) -> SettingOrigin {
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
