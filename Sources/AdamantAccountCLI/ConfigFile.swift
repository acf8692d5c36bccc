import AdamantCLI
public import AdamantCore
public import AdamantFetch
public import AdamantNodes

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#endif

/// The user's settings, `$XDG_CONFIG_HOME/adm-push/config.json` (or
/// `~/.config/adm-push/config.json`). Every key is optional; no other key is allowed:
///
/// ```json
/// {
///   "nodes": ["https://clown.adamant.im", "http://192.168.1.5:36666"],
///   "nethash": "bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64",
///   "proxy": "socks5h://127.0.0.1:9050",
///   "home": "~/adm-push",
///   "service": "ns",
///   "account": "U123…",
///   "accounts": [{"account": "U123…", "name": "work"}, {"passphraseFile": "~/.config/adm-push/bot", "home": "~/adm-push/bot"}],
///   "notify": true,
///   "open": "xdg-open \"$ADM_CHAT_URL\"",
///   "preview": "sender",
///   "mute": ["U123…", {"address": "U456…", "until": "2026-12-24T18:00:00Z"}],
///   "quiet": "22:00-07:00", "quietMode": "hold",
///   "kinds": ["messages", "transfers"]
/// }
/// ```
///
/// A file that is read is checked whole, whichever of its settings the command needs, so a
/// mistake is never silently ignored.
public struct ConfigFile: Sendable, Hashable {
    /// Far more than a few settings need; a larger file is refused unread.
    public static let maxBytes = 1 << 20
    public static let keys = [
        "nodes", "nethash", "proxy", "home", "service", "account", "accounts", "notify", "open", "preview", "mute",
        "quiet",
        "quietMode", "kinds",
    ]
    static let serviceKeys = ["kind", "address", "publicKey"]
    static let accountKeys = ["account", "passphraseFile", "home", "name"]

    /// An account `adm-fetch watch` follows when no --passphrase-file or --account is given.
    public struct Account: Sendable, Hashable {
        /// Where its passphrase is: the keyring's item of an account, or a file.
        public enum Passphrase: Sendable, Hashable {
            case keyring(Address)
            /// As written: absolute, or `~/…`.
            case file(String)
        }
        public var passphrase: Passphrase
        /// Its own home; nil for the file's (or the default) home.
        public var home: String?
        /// What its bubbles call it when a watch follows several accounts (at most
        /// `Account.nameLimit` characters, none of them control or format characters); nil
        /// for its short address.
        public var name: String?

        /// The most characters a `name` has: a label beside a partner's name in a bubble's title.
        public static let nameLimit = 24
    }

    public var path: String
    /// nil when the file has no `nodes` key; an empty list is an error when the list is resolved.
    public var nodes: [String]?
    /// Checked to be a nethash.
    public var nethash: String?
    /// How requests reach the nodes: a proxy, or `none`.
    public var proxy: NetworkRoute?
    /// As written: absolute, `~` or `~/…` (expanded against `HOME` when it is used).
    public var home: String?
    /// Checked: the key hashes to the address. nil when `service` names only a kind.
    public var service: NotificationService?
    /// Which service: `"service": "ans" | "ns"`, or the object's `kind` (ans when it has none).
    public var serviceKind: ServiceKind?
    /// Whose passphrase the keyring gives when it holds several.
    public var account: Address?
    /// Checked to be paths; nil when the file has no `accounts` key.
    public var accounts: [Account]?
    /// `adm-fetch` shows notifications on the desktop.
    public var notify: Bool?
    /// What a click on a desktop notification runs; checked not to be empty.
    public var open: String?
    /// How much a notification shows.
    public var preview: NotificationPolicy.Preview?
    /// Partners never notified (nil), or until a moment (Unix milliseconds).
    public var mute: [Address: Int64?]?
    /// Local hours when notifications are quiet.
    public var quiet: NotificationPolicy.QuietHours?
    /// What quiet hours do.
    public var quietMode: NotificationPolicy.QuietMode?
    /// Which notifications are shown at all.
    public var kinds: Set<NotificationPolicy.KindGroup>?

    /// What `NodeList.resolve` takes from the file.
    public var nodeSettings: NodeConfigFile { NodeConfigFile(path: path, nodes: nodes, nethash: nethash) }

    /// Parses the file's bytes.
    public init(path: String, contents: [UInt8]) throws(ConfigFileError) {
        self.path = path
        // A key given twice is refused rather than one of the two taken, and a syntax error is
        // named by its line and column.
        let rules = JSONReader.Rules(maximumDepth: JSONValue.maximumDepth, lenient: true)
        let document: JSONValue
        do {
            document = try JSONValue(document: contents, rules: rules, keyNamedTwice: .refused)
        } catch {
            let position = error.lineAndColumn(in: contents)
            throw ConfigFileError(
                path: path, problem: .malformed(line: position?.line, column: position?.column, reason: error.reason))
        }
        let body: Body
        do {
            body = try JSONCoding.decode(Body.self, from: document)
        } catch let error as UnknownKeys {
            throw ConfigFileError(path: path, problem: .unknownKeys(error.names))
        } catch let error as DecodingError {
            throw ConfigFileError(path: path, problem: Self.problem(error))
        } catch {
            throw ConfigFileError(
                path: path, problem: .malformed(line: nil, column: nil, reason: "not readable as settings"))
        }
        nodes = body.nodes
        if let nethash = body.nethash, Nethash(nethash) == nil {
            throw ConfigFileError(
                path: path, problem: .invalid(key: "nethash", reason: "is not a nethash (64 hex characters)"))
        }
        nethash = body.nethash
        if let text = body.proxy {
            do { proxy = try NetworkRoute(setting: text) } catch {
                throw ConfigFileError(path: path, problem: .invalid(key: "proxy", reason: "\(error)"))
            }
        }
        try Self.checkPath(body.home, key: "home", in: path)
        home = body.home
        serviceKind = try body.service.map { entry throws(ConfigFileError) in try Self.kind(entry, path: path) }
        service = try body.service.flatMap { entry throws(ConfigFileError) in
            try entry.address == nil ? nil : Self.service(entry, kind: serviceKind ?? .ans, path: path)
        }
        account = try body.account.map { text throws(ConfigFileError) in
            guard let address = try? Address(text) else {
                throw ConfigFileError(
                    path: path, problem: .invalid(key: "account", reason: "is not an ADAMANT address: \(text.quoted)"))
            }
            return address
        }
        accounts = try body.accounts?.enumerated().map { index, entry throws(ConfigFileError) in
            try Self.account(entry, key: "accounts[\(index)]", in: path)
        }
        notify = body.notify
        if let open = body.open, open.allSatisfy(\.isWhitespace) {
            throw ConfigFileError(
                path: path,
                problem: .invalid(key: "open", reason: "is empty: give a command, or leave the key out for xdg-open"))
        }
        open = body.open
        func invalid(_ key: String, _ reason: String) -> ConfigFileError {
            ConfigFileError(path: path, problem: .invalid(key: key, reason: reason))
        }
        if let text = body.preview {
            guard let value = NotificationPolicy.Preview(rawValue: text) else {
                throw invalid("preview", "must be \"full\", \"sender\" or \"none\", got \(text.quoted)")
            }
            preview = value
        }
        if let entries = body.mute {
            var muted: [Address: Int64?] = [:]
            for (index, entry) in entries.enumerated() {
                guard let address = try? Address(entry.address) else {
                    throw invalid("mute[\(index)]", "is not an ADAMANT address: \(entry.address.quoted)")
                }
                if let until = entry.until {
                    guard let moment = UTCTime.unixMillis(until) else {
                        throw invalid(
                            "mute[\(index)].until", "must be a UTC time as 2026-12-24T18:00:00Z, got \(until.quoted)")
                    }
                    muted[address] = .some(moment)
                } else {
                    muted[address] = .some(nil)
                }
            }
            mute = muted
        }
        if let text = body.quiet {
            guard let hours = NotificationPolicy.QuietHours(text) else {
                throw invalid("quiet", "must be local hours as \"22:00-07:00\", got \(text.quoted)")
            }
            quiet = hours
        }
        if let text = body.quietMode {
            guard let mode = NotificationPolicy.QuietMode(rawValue: text) else {
                throw invalid("quietMode", "must be \"silent\" or \"hold\", got \(text.quoted)")
            }
            quietMode = mode
        }
        if let names = body.kinds {
            // An empty list would show nothing at all, as --kinds "" would.
            guard !names.isEmpty else {
                throw invalid(
                    "kinds",
                    "is empty: list some of \"messages\", \"transfers\" and \"reactions\", or leave the key out for all"
                )
            }
            let groups = names.compactMap(NotificationPolicy.KindGroup.init(rawValue:))
            guard groups.count == names.count else {
                throw invalid(
                    "kinds",
                    "must list some of \"messages\", \"transfers\" and \"reactions\", got \(names.map(\.quoted).joined(separator: ", "))"
                )
            }
            kinds = Set(groups)
        }
    }

    /// The home, `~` expanded against `HOME`; nil when the file names none.
    public func homeDirectory(environment: [String: String]) throws(ConfigFileError) -> String? {
        try home.map { home throws(ConfigFileError) in try expanded(home, key: "home", environment: environment) }
    }

    /// `value`, written as this file allows a path, with `~` expanded against `HOME`.
    public func expanded(_ value: String, key: String, environment: [String: String]) throws(ConfigFileError) -> String
    {
        guard value.hasPrefix("~") else { return value }
        guard let user = environment["HOME"], user.hasPrefix("/") else {
            throw ConfigFileError(
                path: path,
                problem: .invalid(
                    key: key, reason: "starts with ~, but HOME is not an absolute path: write the whole path"))
        }
        return user + value.dropFirst()
    }

    /// A path is absolute or starts with `~/`; a C path ends at its first NUL, so
    /// "/tmp/x\u0000y" would quietly be /tmp/x.
    private static func checkPath(_ value: String?, key: String, in path: String) throws(ConfigFileError) {
        guard let value else { return }
        guard value.hasPrefix("/") || value == "~" || value.hasPrefix("~/") else {
            throw ConfigFileError(
                path: path,
                problem: .invalid(key: key, reason: "must be an absolute path or start with ~/, got \(value.quoted)"))
        }
        guard !value.utf8.contains(0) else {
            throw ConfigFileError(
                path: path,
                problem: .invalid(key: key, reason: "holds a NUL character, which no path can, got \(value.quoted)"))
        }
    }

    /// An entry of `accounts`: exactly one of `account` and `passphraseFile`, a home and a name.
    private static func account(_ entry: Body.Account, key: String, in path: String) throws(ConfigFileError)
        -> Account
    {
        try checkPath(entry.home, key: key + ".home", in: path)
        if let name = entry.name {
            let plain = name.unicodeScalars.allSatisfy {
                ![.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
            }
            guard plain, !name.trimmingSpaces.isEmpty, name.count <= Account.nameLimit else {
                throw ConfigFileError(
                    path: path,
                    problem: .invalid(
                        key: key + ".name",
                        reason:
                            "must be 1 to \(Account.nameLimit) characters with no control or format character, got \(name.quoted)"
                    ))
            }
        }
        switch (entry.account, entry.passphraseFile) {
        case (let text?, nil):
            guard let address = try? Address(text) else {
                throw ConfigFileError(
                    path: path,
                    problem: .invalid(key: key + ".account", reason: "is not an ADAMANT address: \(text.quoted)"))
            }
            return Account(passphrase: .keyring(address), home: entry.home, name: entry.name)
        case (nil, let file?):
            try checkPath(file, key: key + ".passphraseFile", in: path)
            return Account(passphrase: .file(file), home: entry.home, name: entry.name)
        default:
            throw ConfigFileError(
                path: path,
                problem: .invalid(
                    key: key,
                    reason: #"needs either "account" (its passphrase in the keyring) or "passphraseFile", not both"#))
        }
    }

    private static func kind(_ entry: Body.Service, path: String) throws(ConfigFileError) -> ServiceKind {
        guard let name = entry.kind else { return .ans }
        guard let kind = ServiceKind(rawValue: name) else {
            let (key, choices) =
                entry.address == nil
                ? ("service", #""ans", "ns" or an object: {"address": "U…", "publicKey": "hex"}"#)
                : ("service.kind", #""ans" or "ns""#)
            throw ConfigFileError(
                path: path, problem: .invalid(key: key, reason: "must be \(choices), got \(name.quoted)"))
        }
        return kind
    }

    private static func service(_ entry: Body.Service, kind: ServiceKind, path: String) throws(ConfigFileError)
        -> NotificationService
    {
        let address: Address
        let key: PublicKey
        do { address = try Address(entry.address ?? "") } catch {
            throw ConfigFileError(
                path: path, problem: .invalid(key: "service.address", reason: "is not an ADAMANT address: \(error)"))
        }
        do { key = try PublicKey(hex: entry.publicKey ?? "") } catch {
            throw ConfigFileError(
                path: path, problem: .invalid(key: "service.publicKey", reason: "is not a public key: \(error)"))
        }
        do { return try NotificationService(address: address, publicKey: key, kind: kind) } catch {
            throw ConfigFileError(path: path, problem: .invalid(key: "service", reason: "is inconsistent: \(error)"))
        }
    }

    /// What a decoding error says about the file: the key whose value is wrong.
    private static func problem(_ error: DecodingError) -> ConfigFileError.Problem {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context): path = context.codingPath
        case .keyNotFound:  // only the service's keys are required
            return .invalid(key: "service", reason: #"needs both "address" and "publicKey""#)
        case .dataCorrupted(let context): path = context.codingPath
        @unknown default: return .malformed(line: nil, column: nil, reason: "not readable as settings")
        }
        let names = path.filter { $0.intValue == nil }.map(\.stringValue)
        switch names.first {
        case nil: return .notAnObject
        case "nodes": return .invalid(key: "nodes", reason: "must be a list of node URLs in double quotes")
        case "service" where names.count > 1: return .invalid(key: "service." + names[1], reason: "must be a string")
        case "service":
            return .invalid(
                key: "service", reason: #"must be "ans", "ns" or an object: {"address": "U…", "publicKey": "hex"}"#)
        case "accounts":
            return .invalid(
                key: "accounts",
                reason:
                    #"must be a list of objects: {"account": "U…"} or {"passphraseFile": "/path"}, each with an optional "home""#
            )
        case "notify": return .invalid(key: "notify", reason: "must be true or false")
        case "mute":
            return .invalid(
                key: "mute",
                reason: #"must be a list of addresses, or of {"address": "U…", "until": "2026-12-24T18:00:00Z"}"#)
        case "kinds": return .invalid(key: "kinds", reason: #"must be a list: ["messages", "transfers", "reactions"]"#)
        case let name?: return .invalid(key: name, reason: "must be a string")
        }
    }

    /// Where the file lives for this environment, or nil when neither `XDG_CONFIG_HOME` nor
    /// `HOME` is an absolute path.
    public static func defaultPath(environment: [String: String]) -> String? {
        ConfigFileSource.defaultPath(environment: environment)
    }

    /// The parsed file, or nil when there is no file at `path`. Refuses anything but a regular
    /// file (a FIFO would block the read), anything over `maxBytes`, and a file another user
    /// could have written (it names the nodes, the service and the home), without reading it.
    public static func load(path: String) throws(ConfigFileError) -> ConfigFile? {
        func unreadable(_ reason: String) -> ConfigFileError {
            ConfigFileError(path: path, problem: .unreadable(reason))
        }
        let contents: [UInt8]?
        do { contents = try SmallFile.read(atPath: path, limit: maxBytes, ownerWritesOnly: true) } catch {
            switch error {
            case .cannotOpen(let number): throw unreadable("cannot be opened: \(String(cString: strerror(number)))")
            case .cannotRead(let number): throw unreadable("cannot be read: \(String(cString: strerror(number)))")
            case .notRegular: throw unreadable("is not a regular file")
            case .tooLarge:
                throw unreadable("is larger than \(maxBytes >> 20) MiB; a config file is a few lines of JSON")
            case .othersCanWrite(let mode):
                throw unreadable(
                    "is refused: mode \(String(mode, radix: 8)) lets others change it; run chmod go-w \(path.quoted)")
            case .ownedByAnother(let uid):
                throw unreadable(
                    "is refused: it belongs to uid \(uid), not to you (uid \(geteuid())); make it yours or remove it")
            }
        }
        return try contents.map { contents throws(ConfigFileError) in try ConfigFile(path: path, contents: contents) }
    }

    /// The file's shape; unknown keys are refused, at the top and inside `service`.
    private struct Body: Decodable {
        var nodes: [String]?
        var nethash: String?
        var proxy: String?
        var home: String?
        var service: Service?
        var account: String?
        var accounts: [Account]?
        var notify: Bool?
        var open: String?
        var preview: String?
        var mute: [Mute]?
        var quiet: String?
        var quietMode: String?
        var kinds: [String]?

        /// "U…", or {"address": "U…", "until": "…Z"}.
        struct Mute: Decodable {
            var address: String
            var until: String?

            init(from decoder: any Decoder) throws {
                if let address = try? decoder.singleValueContainer().decode(String.self) {
                    self.address = address
                    return
                }
                let container = try decoder.container(keyedBy: AnyKey.self)
                try UnknownKeys.check(container, known: ["address", "until"], prefix: "mute[].")
                address = try container.decode(String.self, forKey: AnyKey("address"))
                until = try container.decodeIfPresent(String.self, forKey: AnyKey("until"))
            }
        }

        struct Account: Decodable {
            var account: String?
            var passphraseFile: String?
            var home: String?
            var name: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                try UnknownKeys.check(container, known: ConfigFile.accountKeys, prefix: "accounts[].")
                account = try container.decodeIfPresent(String.self, forKey: AnyKey("account"))
                passphraseFile = try container.decodeIfPresent(String.self, forKey: AnyKey("passphraseFile"))
                home = try container.decodeIfPresent(String.self, forKey: AnyKey("home"))
                name = try container.decodeIfPresent(String.self, forKey: AnyKey("name"))
            }
        }

        /// "ans" or "ns", or {"kind": …, "address": "U…", "publicKey": "hex"} with the kind optional.
        struct Service: Decodable {
            var kind: String?
            var address: String?
            var publicKey: String?

            init(from decoder: any Decoder) throws {
                if let kind = try? decoder.singleValueContainer().decode(String.self) {
                    self.kind = kind
                    return
                }
                let container = try decoder.container(keyedBy: AnyKey.self)
                try UnknownKeys.check(container, known: ConfigFile.serviceKeys, prefix: "service.")
                kind = try container.decodeIfPresent(String.self, forKey: AnyKey("kind"))
                address = try container.decode(String.self, forKey: AnyKey("address"))
                publicKey = try container.decode(String.self, forKey: AnyKey("publicKey"))
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            try UnknownKeys.check(container, known: ConfigFile.keys, prefix: "")
            nodes = try container.decodeIfPresent([String].self, forKey: AnyKey("nodes"))
            nethash = try container.decodeIfPresent(String.self, forKey: AnyKey("nethash"))
            proxy = try container.decodeIfPresent(String.self, forKey: AnyKey("proxy"))
            home = try container.decodeIfPresent(String.self, forKey: AnyKey("home"))
            service = try container.decodeIfPresent(Service.self, forKey: AnyKey("service"))
            account = try container.decodeIfPresent(String.self, forKey: AnyKey("account"))
            accounts = try container.decodeIfPresent([Account].self, forKey: AnyKey("accounts"))
            notify = try container.decodeIfPresent(Bool.self, forKey: AnyKey("notify"))
            open = try container.decodeIfPresent(String.self, forKey: AnyKey("open"))
            preview = try container.decodeIfPresent(String.self, forKey: AnyKey("preview"))
            mute = try container.decodeIfPresent([Mute].self, forKey: AnyKey("mute"))
            quiet = try container.decodeIfPresent(String.self, forKey: AnyKey("quiet"))
            quietMode = try container.decodeIfPresent(String.self, forKey: AnyKey("quietMode"))
            kinds = try container.decodeIfPresent([String].self, forKey: AnyKey("kinds"))
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct UnknownKeys: Error {
        let names: [String]

        static func check(_ container: KeyedDecodingContainer<AnyKey>, known: [String], prefix: String) throws {
            let unknown = container.allKeys.map(\.stringValue).filter { !known.contains($0) }
            if !unknown.isEmpty { throw UnknownKeys(names: unknown.sorted().map { prefix + $0 }) }
        }
    }
}

/// A config file that cannot be used: one line naming the file and what is wrong in it.
public struct ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        case unreadable(String)
        /// Where the JSON breaks, when it could be found.
        case malformed(line: Int?, column: Int?, reason: String)
        case notAnObject
        case unknownKeys([String])
        /// `key`: dotted inside `service` (`service.address`).
        case invalid(key: String, reason: String)
    }

    public let path: String
    public let problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .unreadable(let reason):
            "the config file \(path) \(reason)"
        case .malformed(let line?, let column?, let reason):
            "the config file has an error at \(path):\(line):\(column): \(reason)"
        case .malformed(_, _, let reason):
            "the config file \(path) is \(reason)"
        case .notAnObject:
            #"the config file \#(path) must hold one JSON object, such as {"nodes": ["https://…"]}"#
        case .unknownKeys(let names):
            "unknown key\(names.count == 1 ? "" : "s") \(names.map(\.quoted).joined(separator: ", ")) in \(path) (known: \(Self.known(names)))"
        case .invalid(let key, let reason):
            "\(key.quoted) in \(path) \(reason)"
        }
    }

    /// The keys allowed where the unknown ones are.
    private static func known(_ names: [String]) -> String {
        let (prefix, keys) =
            switch names.first {
            case let name? where name.hasPrefix("service."): ("service.", ConfigFile.serviceKeys)
            case let name? where name.hasPrefix("accounts[]."): ("accounts[].", ConfigFile.accountKeys)
            default: ("", ConfigFile.keys)
            }
        return keys.map { prefix + $0 }.joined(separator: ", ")
    }
}
