public import AdamantCLI
public import AdamantStore

/// What `adm-fetch TXN` opens in the home before it fetches.
public enum FetchSetup {
    /// The home's log of shown transactions and partners' keys. A fetch works without it (the
    /// notification matters more than the bookkeeping), saying why on stderr.
    public static func log(_ arguments: ParsedArguments, _ context: Context) -> (home: String?, log: NotificationLog?) {
        var home: String?
        do {
            let path = try OutboxOptions.homeDirectory(arguments, context)
            home = path
            return (path, try NotificationLog(home: path))
        } catch {
            context.output.error("warning: \(error); duplicates are not detected")
            return (home, nil)
        }
    }
}
