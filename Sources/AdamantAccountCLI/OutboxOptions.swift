public import AdamantCLI
public import AdamantCore
public import AdamantNodes
public import AdamantPush
public import AdamantStore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What every outbox command shares: the home directory, the push service's identity, the
/// nodes, the passphrase, and how long to wait.
public enum OutboxOptions {
    public static let home = SingleOption(
        "home", valueName: "dir", valueKind: .directory,
        help: "Where the outbox is kept (else ADM_PUSH_HOME, the config file's home, or $XDG_STATE_HOME/adm-push).")
    public static let service = SingleOption(
        "service", valueName: "kind", allowedValues: ServiceKind.allCases.map(\.rawValue),
        help:
            "ans: the iOS app's service (the default); ns: adamant-ns, the web and Android apps' (else the config file's)."
    )
    public static let serviceAddress = SingleOption(
        "service-address", valueName: "U…",
        help: "The push service's ADAMANT address, keeping --service's rules (else the config file's, else its own).")
    public static let servicePublicKey = SingleOption(
        "service-public-key", valueName: "hex", help: "The push service's public key; must hash to its address.")
    public static let deadline = SingleOption(
        "deadline", valueName: "seconds",
        help:
            "Wait at most this long for the chain (default 30; through a proxy, longer as its measured latency needs).")
    public static let json = Flag("json", help: "Print one JSON object.")

    public static let options: [any DeclaredOption] =
        [home, service, serviceAddress, servicePublicKey] + NodeOptions.options + AccountPassphrase.options

    public static let help = """
        The outbox lives in --home, else ADM_PUSH_HOME, else the config file's "home", else
        $XDG_STATE_HOME/adm-push (mode 700; tokens are stored sealed with a key derived from your
        passphrase). 'adm-push config' shows every setting and where it came from.
        """ + "\n" + NodeOptions.help + "\n" + AccountPassphrase.help

    /// The home directory, from the option, the environment, the config file or the XDG default.
    public static func homeDirectory(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> String {
        try homeSetting(arguments, context).value
    }

    /// The home and where it came from: `--home`, `ADM_PUSH_HOME`, the config file's `home`,
    /// else `$XDG_STATE_HOME/adm-push` or `~/.local/state/adm-push`.
    public static func homeSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<String>
    {
        if let path = arguments.value(home) {
            guard !path.isEmpty else { throw .usage("--home needs a directory") }
            return Setting(path, .flag("--" + home.spec.name))
        }
        if let path = context.environment["ADM_PUSH_HOME"], !path.isEmpty {
            return Setting(path, .environment("ADM_PUSH_HOME"))
        }
        if let file = try configFile(context) {
            do throws(ConfigFileError) {
                if let path = try file.homeDirectory(environment: context.environment) {
                    return Setting(path, .file(file.path))
                }
            } catch {
                throw CLIError(error)
            }
        }
        if let state = context.environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return Setting(state + "/adm-push", .builtIn)
        }
        guard let user = context.environment["HOME"], user.hasPrefix("/") else {
            throw .invalidInput(
                "no home for the outbox: give --home DIR, set ADM_PUSH_HOME or HOME, or put \"home\" in the config file"
            )
        }
        return Setting(user + "/.local/state/adm-push", .builtIn)
    }

    /// The service identity the flags name, checked: a key that does not hash to the address is
    /// refused, so a signal is never encrypted to anyone else. nil when they name none (then
    /// the config file's or the kind's own is used: `serviceSetting`). Its kind is the ANS's
    /// until `serviceSetting` gives it the one chosen.
    @discardableResult
    public static func service(_ arguments: ParsedArguments) throws(CLIError) -> NotificationService? {
        let address = arguments.value(serviceAddress)
        let key = arguments.value(servicePublicKey)
        switch (address, key) {
        case (nil, nil):
            return nil
        case (let address?, let key?):
            do {
                return try NotificationService(address: Address(address), publicKey: PublicKey(hex: key))
            } catch let error as SignalError {
                throw .invalidInput("the service identity is inconsistent: \(error)")
            } catch {
                throw .invalidInput("invalid service identity: \(error)")
            }
        default:
            throw .usage("--service-address and --service-public-key go together")
        }
    }

    /// Which service: `--service`, else the config file's, else the ANS.
    public static func serviceKindSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError)
        -> Setting<ServiceKind>
    {
        if let name = arguments.value(service), let kind = ServiceKind(rawValue: name) {
            return Setting(kind, .flag("--" + service.spec.name))
        }
        if let file = try configFile(context), let kind = file.serviceKind { return Setting(kind, .file(file.path)) }
        return Setting(.ans, .builtIn)
    }

    /// The service to register with, of the kind chosen (`serviceKindSetting`): the flags'
    /// identity, else the config file's when it is of that kind, else the kind's own.
    public static func serviceSetting(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Setting<
        NotificationService
    > {
        let kind = try serviceKindSetting(arguments, context)
        if let service = try service(arguments) {
            return Setting(service.with(kind: kind.value), .flag("--" + serviceAddress.spec.name))
        }
        if let file = try configFile(context), let service = file.service, service.kind == kind.value {
            return Setting(service, .file(file.path))
        }
        return Setting(kind.value.standardService, kind.origin)
    }

    /// Resolves every setting an outbox command needs, so a mistake in them (a bad config file)
    /// is reported before the passphrase is asked for. A command that makes no request
    /// (`network` false) neither needs nor checks the nodes and the route.
    public static func checkSettings(_ arguments: ParsedArguments, _ context: Context, network: Bool = true)
        throws(CLIError)
    {
        _ = try serviceSetting(arguments, context)
        _ = try homeDirectory(arguments, context)
        guard network else { return }
        let nodes = try NodeOptions.nodeList(arguments, context)
        if let refusal = try NodeOptions.route(arguments, context).refusal(of: nodes) { throw .invalidInput(refusal) }
    }

    /// The config file, read and checked once per process; nil when there is none.
    public static func configFile(_ context: Context) throws(CLIError) -> ConfigFile? {
        do throws(ConfigFileError) { return try context.configFile.file() } catch { throw CLIError(error) }
    }

    /// `--deadline` as a duration: 0 to 3600 seconds.
    public static func deadline(_ arguments: ParsedArguments, default seconds: Int = 30) throws(CLIError) -> Duration {
        guard let text = arguments.value(deadline) else { return .seconds(seconds) }
        guard let duration = SingleOption.seconds(text, in: 0...3600) else {
            throw .usage("--deadline takes a number of seconds from 0 to 3600, got \(text.quoted)")
        }
        return duration
    }

    /// How long to wait for the chain: `--deadline`, else 30 s, or through a proxy as long as
    /// the outbox's route was measured to need (`NodePool.allowingDeadline(_:)`).
    public static func wait(_ arguments: ParsedArguments, for outbox: Outbox) throws(CLIError) -> Duration {
        let direct = Duration.seconds(30)
        guard arguments.value(deadline) == nil else { return try deadline(arguments) }
        return (outbox.chain as? NodeClient)?.pool.allowingDeadline(direct) ?? direct
    }

    /// The outbox of the passphrase's account. The settings are checked first, so that a broken
    /// config file is said before the passphrase is asked for. Without `network`, for a command
    /// that only reads the store, no node is ever asked. `whenLocked`: what a locked keyring
    /// does.
    public static func openForPassphrase(
        _ arguments: ParsedArguments, _ context: Context, network: Bool = true, log: any LogSink = SilentLog(),
        whenLocked: AccountPassphrase.WhenLocked = .prompt
    ) async throws(CLIError) -> Outbox {
        try checkSettings(arguments, context, network: network)
        let keys = try await AccountPassphrase.keys(arguments, context, whenLocked: whenLocked)
        return try await open(arguments, context, keys: keys, nodes: network ? nil : NoChain(), log: log)
    }

    /// The outbox for the account of `keys`, on the configured nodes; its store opens while
    /// the keys are still being derived. `nodes`: a client the caller already has (its pool's
    /// health is then shared). `log`: where the outbox tells what it does.
    public static func open(
        _ arguments: ParsedArguments, _ context: Context, keys: AccountKeys, nodes: (any SignalChain)? = nil,
        log: any LogSink = SilentLog()
    ) async throws(CLIError) -> Outbox {
        let service = try serviceSetting(arguments, context).value
        let home = try homeDirectory(arguments, context)
        let chain: any SignalChain
        if let nodes {
            chain = nodes
        } else {
            let pool = try await NodeOptions.pool(arguments, context, account: keys) {
                context.output.error("warning: " + $0)
            }
            // Each call as long as the route was measured to need, a first health check included.
            chain = NodeClient(pool: pool, deadline: pool.allowingDeadline(.seconds(10)))
        }
        var configuration = Outbox.Configuration()
        #if ADM_TEST_HOOKS
            // The crash tests make the process die at one moment of a send.
            if let point = context.environment["ADM_PUSH_TEST_KILL_AT"].flatMap(Outbox.SendCheckpoint.init(rawValue:)) {
                configuration.checkpoint = { reached in if reached == point { kill(getpid(), SIGKILL) } }
            }
        #endif
        do {
            return try await Outbox(
                home: home, keys: keys, service: service, chain: chain, configuration: configuration,
                wallClock: context.clocks.wall, log: log)
        } catch {
            throw CLIError(outboxError: error)
        }
    }
}

/// The chain of a command that only reads the store: it is never asked, and would say so.
private struct NoChain: SignalChain {
    private static let none = NodeError.noUsableNode([])
    func height() async throws(NodeError) -> Int64 { throw Self.none }
    func signals(sentBy sender: Address, afterHeight: Int64, offset: Int) async throws(NodeError) -> [Transaction] {
        throw Self.none
    }
    func locate(_ id: TransactionID) async throws(NodeError) -> TransactionLocation { throw Self.none }
    func spendableBalance(of address: Address) async throws(NodeError) -> ADMAmount { throw Self.none }
    func send(
        _ asset: ChatAsset, to recipient: Address, signedBy keyPair: KeyPair, isResend: Bool,
        willSend: @Sendable (Transaction) async throws -> Void
    ) async throws -> SentSignal { throw Self.none }
}

extension CLIError {
    /// A home, service key or token that cannot be used is bad input (64); nodes that cannot be
    /// read, unavailable (69); the store's failures as `init(storeError:)` says.
    public init(outboxError error: OutboxError) {
        switch error {
        case .store(let error): self.init(storeError: error)
        case .unusableServiceKey, .invalidSignal, .tokenReplaced: self = .invalidInput(error.description)
        case .network: self.init(error.description, exitCode: .unavailable)
        }
    }

    /// A home that cannot be used is bad input (64); a store that is damaged or newer needs
    /// the user (1); a home or file that cannot be read or written as it is, the machine (74).
    public init(storeError error: StoreError) {
        switch error {
        case .home: self = .invalidInput(error.description)
        case .homeUnwritable: self.init(error.description, exitCode: .outputFailed)
        case .newer, .damaged: self.init(error.description, exitCode: .rejected)
        case .failed: self.init(error.description, exitCode: .outputFailed)
        }
    }
}
