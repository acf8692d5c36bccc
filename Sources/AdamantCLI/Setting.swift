import Synchronization

/// A setting's effective value and where it came from.
public struct Setting<Value: Sendable>: Sendable {
    public let value: Value
    public let origin: SettingOrigin

    public init(_ value: Value, _ origin: SettingOrigin) {
        self.value = value
        self.origin = origin
    }
}

/// Where a setting came from; `adm-push config` shows it.
public enum SettingOrigin: Sendable, Hashable {
    /// `--home`.
    case flag(String)
    /// `ADM_PUSH_HOME`.
    case environment(String)
    /// The config file, by its path.
    case file(String)
    case builtIn

    /// The one order every setting follows, as the help and the man page say it.
    public static let precedence =
        "Precedence, the same for every setting: flag, environment variable, config file, default."

    /// `flag`, `env`, `file` or `default`, for `--json`.
    public var kind: String {
        switch self {
        case .flag: "flag"
        case .environment: "env"
        case .file: "file"
        case .builtIn: "default"
        }
    }

    /// The flag, the variable or the file's path; nil for a default.
    public var source: String? {
        switch self {
        case .flag(let name), .environment(let name), .file(let name): name
        case .builtIn: nil
        }
    }
}

/// Where the config file of one command run is, and what reading it gave: read at most once,
/// and only when a setting needs it (`--node` given, nodes never make a command read it). The
/// file's keys are the settings' (AdamantAccountCLI reads it), so this holds the result as it
/// was read, whatever its type: a command with no settings (adm-devnet's) links none of them.
public final class ConfigFileSource: Sendable {
    /// nil when neither `XDG_CONFIG_HOME` nor `HOME` is an absolute path.
    public let path: String?
    private let loaded = Mutex<(any Sendable)?>(nil)

    public init(environment: [String: String]) {
        path = Self.defaultPath(environment: environment)
    }

    /// `$XDG_CONFIG_HOME/adm-push/config.json`, else `~/.config/adm-push/config.json`; nil
    /// when neither is an absolute path.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/adm-push/config.json" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config/adm-push/config.json" }
        return nil
    }

    /// What `read` gave the first time it was asked for, from then on: a run reads its file
    /// once, whoever asks. Every caller reads it into the same type.
    public func once<Read: Sendable>(_ read: () -> Read) -> Read {
        loaded.withLock { loaded in
            if let kept = loaded as? Read { return kept }
            let result = read()
            loaded = result
            return result
        }
    }
}
