import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantFetch
import AdamantNodes

/// `adm-push config`: each setting's effective value and where it came from, as the other
/// commands would resolve it with the same flags. Never reads a passphrase or asks a node.
struct ConfigCommand: Command {
    static let json = Flag("json", help: #"Print {"settings": [{"name", "value", "origin", "source"}, ...]} as JSON."#)

    static let info = CommandInfo(
        name: "config",
        overview: "Show each setting's effective value and where it came from (flag, env, file or default).",
        options: [
            json, OutboxOptions.home, OutboxOptions.service, OutboxOptions.serviceAddress,
            OutboxOptions.servicePublicKey,
        ]
            + NodeOptions.options
            + DesktopOptions.options + AccountPassphrase.options,
        discussion: """
            \(SettingOrigin.precedence)
            The settings: home (--home, ADM_PUSH_HOME); nodes (--node, ADM_NODES); nethash
            (--nethash; the file's goes with the file's nodes or the built-in ones, never with
            --node or ADM_NODES); proxy (--proxy, ADM_PROXY: socks5h://host:port, socks5://,
            http://, or none; left unset, libcurl's https_proxy, http_proxy, ALL_PROXY and NO_PROXY
            decide, and the row says what they make of the nodes); service (--service ans|ns: the iOS
            app's service or adamant-ns), service.address and service.publicKey (--service-address with
            --service-public-key; the key must hash to the address); notify (--notify: adm-fetch
            shows notifications on the desktop) and open (--open: what a click on one runs); and
            what notifications show and when, for bubbles, --json lines and --exec hooks alike:
            preview (--preview full|sender|none), mute (--mute U…, added to the file's list),
            quiet (--quiet 22:00-07:00, local hours), quietMode (--quiet-mode silent|hold) and
            kinds (--kinds messages,transfers,reactions); account (--account, ADM_ACCOUNT: whose
            passphrase to take from the keyring when it holds several) and passphrase, where this
            run would take it from (--passphrase-file, ADM_PASSPHRASE, the keyring or the terminal),
            said without reading it. The file,
            $XDG_CONFIG_HOME/adm-push/config.json, may hold any of them:
            {"nodes": ["https://…"], "nethash": "hex", "proxy": "socks5h://127.0.0.1:9050", "home": "~/dir",
             "service": "ns" or {"kind": "ns", "address": "U…", "publicKey": "hex"}, "account": "U…",
             "notify": true, "open": "command",
             "preview": "sender", "mute": ["U…", {"address": "U…", "until": "2026-12-24T18:00:00Z"}],
             "quiet": "22:00-07:00", "quietMode": "hold", "kinds": ["messages", "transfers"]}
            Its home is absolute or starts with ~/. It is read, and checked whole, by any command
            needing a setting it holds; an unknown key, a value of the wrong type or broken JSON
            is an error naming the key or the line (exit 64). Reads no passphrase, asks no node.
            """)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional))")
        }
        _ = try OutboxOptions.service(arguments)
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let exists: Bool
        exists = try OutboxOptions.configFile(context) != nil
        let home = try OutboxOptions.homeSetting(arguments, context)
        let nodes = try NodeOptions.nodeList(arguments, context)
        let route = try NodeOptions.routeSetting(arguments, context)
        let kind = try OutboxOptions.serviceKindSetting(arguments, context)
        let service = try OutboxOptions.serviceSetting(arguments, context)
        let notify = try DesktopOptions.notifySetting(arguments, context)
        let open = try DesktopOptions.openSetting(arguments, context)
        let (policy, policyOrigins, muteOrigins) = try DesktopOptions.policy(arguments, context)
        let account = try AccountPassphrase.accountSetting(arguments, context)
        let passphrase = try await AccountPassphrase.source(arguments, context)
        let keyOrigin: SettingOrigin =
            if case .flag = service.origin { .flag("--" + OutboxOptions.servicePublicKey.spec.name) } else {
                service.origin
            }
        let rows =
            [
                Row("file", context.configFile.path.map(Value.text) ?? .none, fileOrigin(context), exists: exists),
                Row("home", .text(home.value), home.origin),
                Row("nodes", .list(nodes.endpoints.map(\.url.description)), Self.origin(of: nodes.source)),
                Row("nethash", nethash(nodes.nethash), NodeOptions.nethashOrigin(of: nodes, arguments, context)),
                proxyRow(route, nodes, context.environment),
                Row("service", .text(kind.value.rawValue), kind.origin),
                Row("service.address", .text(service.value.address.description), service.origin),
                Row("service.publicKey", .text(service.value.publicKey.hex), keyOrigin),
                Row("account", account.map { .text($0.value.description) } ?? .none, account?.origin ?? .builtIn),
                Row("passphrase", .text(passphrase.value), passphrase.origin),
                Row("notify", .text(notify.value ? "true" : "false"), notify.origin),
                Row("open", .text(open.value), open.origin),
                Row("preview", .text(policy.preview.rawValue), policyOrigins["preview"] ?? .builtIn),
            ] + Self.muteRows(policy, muteOrigins) + [
                Row("quiet", policy.quiet.map { .text($0.description) } ?? .none, policyOrigins["quiet"] ?? .builtIn),
                Row("quietMode", .text(policy.quietMode.rawValue), policyOrigins["quietMode"] ?? .builtIn),
                Row("kinds", .list(policy.kinds.sorted().map(\.rawValue)), policyOrigins["kinds"] ?? .builtIn),
            ]
        if arguments.flag(Self.json) {
            context.output.printJSON(["settings": rows])
        } else {
            for line in Row.table(rows) { context.output.print(line) }
        }
        return .success
    }

    /// One row of muted partners per origin, the file's first; one "none" row for none.
    static func muteRows(_ policy: NotificationPolicy, _ origins: [Address: SettingOrigin]) -> [Row] {
        var groups: [(origin: SettingOrigin, entries: [String])] = []
        for (address, until) in policy.muted.sorted(by: { $0.key.description < $1.key.description }) {
            let origin = origins[address] ?? .builtIn
            let entry = address.description + (until.map { " until " + UTCTime.text(unixMillis: $0) } ?? "")
            if let index = groups.firstIndex(where: { $0.origin == origin }) {
                groups[index].entries.append(entry)
            } else {
                groups.append((origin, [entry]))
            }
        }
        guard !groups.isEmpty else { return [Row("mute", .list([]), .builtIn)] }
        return groups.sorted { $0.origin.kind == "file" && $1.origin.kind != "file" }.map {
            Row("mute", .list($0.entries), $0.origin)
        }
    }

    /// The proxy as set; left to the environment, what its variables make of the nodes.
    private func proxyRow(_ route: Setting<NetworkRoute>, _ nodes: NodeList, _ environment: [String: String]) -> Row {
        guard route.value == .environment else { return Row("proxy", .text(route.value.description), route.origin) }
        let resolved = ResolvedRoute(route.value, environment: environment)
        let hops = Set(nodes.endpoints.map { resolved.hop(to: $0.url) })
        guard hops != [.direct] else { return Row("proxy", .text("none"), .builtIn) }
        let variables = hops.compactMap { if case .environmentProxy(let name, _) = $0 { name } else { nil } }.sorted()
        let shown = hops.map(\.description).sorted().joined(separator: "; ")
        return Row(
            "proxy", .text("as the environment says: " + shown),
            variables.first.map(SettingOrigin.environment) ?? .builtIn)
    }

    /// `XDG_CONFIG_HOME` when it is used (an absolute path), else the default under `HOME`.
    private func fileOrigin(_ context: Context) -> SettingOrigin {
        context.environment["XDG_CONFIG_HOME"]?.hasPrefix("/") == true ? .environment("XDG_CONFIG_HOME") : .builtIn
    }

    private func nethash(_ rule: NethashRule) -> Value {
        switch rule {
        case .pinned(let nethash): .text(nethash.hex)
        case .majority: .none
        }
    }

    static func origin(of source: NodeList.Source) -> SettingOrigin {
        switch source {
        case .arguments: .flag("--" + NodeOptions.node.spec.name)
        case .environment: .environment("ADM_NODES")
        case .configFile(let path): .file(path)
        case .builtIn: .builtIn
        }
    }

    enum Value {
        case text(String)
        case list([String])
        /// No file path (no absolute HOME), or no pinned network (the majority's is taken).
        case none
    }

    /// One setting as `config` prints it.
    struct Row: Encodable {
        let name: String
        let value: Value
        let origin: SettingOrigin
        /// Only for the file itself: whether it is there.
        let exists: Bool?

        init(_ name: String, _ value: Value, _ origin: SettingOrigin, exists: Bool? = nil) {
            self.name = name
            self.value = value
            self.origin = origin
            self.exists = exists
        }

        enum Key: String, CodingKey { case name, value, origin, source, exists }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(name, forKey: .name)
            switch value {
            case .text(let text): try container.encode(text, forKey: .value)
            case .list(let list): try container.encode(list, forKey: .value)
            case .none: try container.encodeNil(forKey: .value)
            }
            try container.encode(origin.kind, forKey: .origin)
            try container.encodeIfPresent(origin.source, forKey: .source)
            try container.encodeIfPresent(exists, forKey: .exists)
        }

        var shownValue: String {
            switch value {
            case .text(let text): text + (exists == false ? " (not found)" : "")
            case .list(let list): list.isEmpty ? "none" : list.joined(separator: ", ")
            case .none:
                switch name {
                case "nethash": "any (the majority's network)"
                case "quiet", "account": "none"
                default: "none (HOME is not an absolute path)"
                }
            }
        }

        var shownOrigin: String {
            switch origin {
            case .flag(let name): "(flag \(name))"
            case .environment(let name): "(env \(name))"
            case .file(let path): "(file \(path))"
            case .builtIn: "(default)"
            }
        }

        /// Names, values and origins in columns; a value too long to align (the built-in
        /// node list) just pushes its own origin along.
        static func table(_ rows: [Row]) -> [String] {
            let nameWidth = rows.map(\.name.count).max() ?? 0
            let valueWidth = rows.map(\.shownValue.count).filter { $0 <= 100 }.max() ?? 0
            return rows.map { row in
                row.name.padded(to: nameWidth) + "  " + row.shownValue.padded(to: valueWidth) + "  " + row.shownOrigin
            }
        }
    }
}

extension String {
    fileprivate func padded(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
