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

/// The config file of one command run: looked for where the environment says, read at most
/// once, and only when a setting needs it (`--node` given, nodes never make a command read it).
public final class ConfigFileSource: Sendable {
    /// nil when neither `XDG_CONFIG_HOME` nor `HOME` is an absolute path.
    public let path: String?
    private let loaded = Mutex<Result<ConfigFile?, ConfigFileError>?>(nil)

    public init(environment: [String: String]) {
        path = ConfigFile.defaultPath(environment: environment)
    }

    /// The file, or nil when there is none.
    public func file() throws(ConfigFileError) -> ConfigFile? {
        try loaded.withLock { result in
            if let result { return result }
            let read = Result { () throws(ConfigFileError) in
                try path.flatMap { path throws(ConfigFileError) in try ConfigFile.load(path: path) }
            }
            result = read
            return read
        }.get()
    }
}

extension CLIError {
    /// A config file that cannot be used is bad input; the command line is not to blame.
    public init(_ error: ConfigFileError) {
        self = .invalidInput(error.description)
    }
}
