public import AdamantNodes

/// The node options every networked command shares, and the node list they resolve to.
public enum NodeOptions {
    public static let node = RepeatableOption(
        "node", valueName: "url",
        help: "A node to use (repeatable). Else ADM_NODES (comma-separated), the config file, or the built-in mainnet list.")
    public static let nethash = SingleOption(
        "nethash", valueName: "hex",
        help: "Accept only nodes of this network (default: mainnet for the built-in list, else the majority).")
    public static let options: [any DeclaredOption] = [node, nethash]

    public static let help = """
        Nodes come from --node, else ADM_NODES, else $XDG_CONFIG_HOME/adm-push/config.json
        ({"nodes": ["https://…"], "nethash": "…"}), else the built-in list of mainnet nodes.
        No other host is ever contacted.
        """

    public static func nodeList(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> NodeList {
        do {
            return try NodeList.resolve(
                arguments: arguments.values(node), nethash: arguments.value(nethash), environment: context.environment
            ) { () throws(NodeListError) in try NodeConfigFile.load(environment: context.environment) }
        } catch {
            throw .usage("\(error)")
        }
    }
}
