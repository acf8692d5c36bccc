public import AdamantCLI

extension ConfigFileSource {
    /// The file, or nil when there is none.
    public func file() throws(ConfigFileError) -> ConfigFile? {
        try once {
            Result { () throws(ConfigFileError) in
                try path.flatMap { path throws(ConfigFileError) in try ConfigFile.load(path: path) }
            }
        }.get()
    }
}

extension CLIError {
    /// A config file that cannot be used is bad input; the command line is not to blame.
    public init(_ error: ConfigFileError) {
        self = .invalidInput(error.description)
    }
}
