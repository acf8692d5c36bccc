import AdamantNodes

/// The config file's bytes (`$XDG_CONFIG_HOME/adm-push/config.json`), resolved to a node list
/// as a command without `--node` would.
enum ConfigFuzz {
    static func run(_ data: [UInt8]) {
        guard let file = try? NodeConfigFile(path: "/fuzz/config.json", contents: data) else { return }
        _ = "\(file.nodes ?? []) \(file.nethash ?? "")"
        do {
            let list = try NodeList.resolve(arguments: [], environment: [:], configFile: { file })
            _ = list.endpoints.map(\.url.description)
        } catch {
            _ = error.description
        }
    }
}
