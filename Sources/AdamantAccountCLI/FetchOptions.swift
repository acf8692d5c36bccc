public import AdamantCLI
public import AdamantCore
import AdamantFetch

/// `adm-fetch TXN_ID`'s own options, their help, and what they say once parsed: the command
/// resolves them as it is made, and its run sees only typed settings.
public struct FetchOptions: Sendable {
    /// `--recipient`: the address the push was for.
    public static let recipient = SingleOption(
        "recipient", valueName: "address",
        help: "The address the push was for (push-recipient); must be this passphrase's.")
    /// `--payload`: the push as delivered, from a file.
    public static let payload = SingleOption(
        "payload", valueName: "file", valueKind: .file,
        help: "Read the push as delivered (APNs or FCM JSON) from a file, or - for standard input.")
    /// `--no-names`: no address-book lookup.
    public static let noNames = Flag(
        "no-names", help: "Title with the partner's address; skip the address-book lookup.")
    /// `--deadline`: the shared option's name and parsing, with fetch's own default.
    public static let deadline = SingleOption(
        "deadline", valueName: "seconds",
        help: "End by then, whatever the nodes do (default 25; through a proxy, longer as its measured latency needs).")
    /// `--json`: one JSON object.
    public static let json = Flag(
        "json", help: "Print one JSON object: the transaction, the notification, and on failure fallback and reason.")

    /// The transaction id given, nil with `--payload`.
    public let id: TransactionID?
    /// `--payload`'s file, `-` for standard input.
    public let payload: String?
    /// `--recipient`'s address.
    public let recipient: Address?
    /// `--deadline`; nil for the default, which depends on the route.
    public let deadline: Duration?
    /// `--json`: one JSON object.
    public let json: Bool
    /// `--no-names`: no address-book lookup.
    public let noNames: Bool

    /// The options of `arguments`, checked: bad input is a usage error (64).
    public init(_ arguments: ParsedArguments) throws(CLIError) {
        switch (arguments.positional.count, arguments.value(Self.payload)) {
        case (1, nil):
            let text = arguments.positional[0]
            guard let id = TransactionID(text) else {
                throw .usage("\(text.quoted) is not a transaction id (digits, below 2^64)")
            }
            self.id = id
        case (0, _?):
            id = nil
        case (0, nil):
            throw .usage("give a transaction id, or --payload FILE")
        default:
            throw .usage(
                arguments.value(Self.payload) == nil
                    ? "unexpected argument \(StrayArguments.quotingFirst(of: arguments.positional.dropFirst()))"
                    : "give a transaction id or --payload, not both")
        }
        if let text = arguments.value(Self.recipient) {
            do { recipient = try Address(text) } catch {
                throw .usage("--recipient \(text.quoted) is not an address: \(error)")
            }
        } else {
            recipient = nil
        }
        deadline = arguments.value(Self.deadline) == nil ? nil : try OutboxOptions.deadline(arguments)
        payload = arguments.value(Self.payload)
        (json, noNames) = (arguments.flag(Self.json), arguments.flag(Self.noNames))
    }

    /// What `adm-fetch --help` says below its options.
    public static let discussion =
        """
        Give the transaction id, or --payload with the push itself; a payload that carries the
        whole transaction (FCM's data.txn, as adamant-ns sends it) needs no node, and is
        verified all the same; it is for the transaction's recipient, and the "txn-id" and
        "push-recipient" beside it, placeholders in that service, are ignored. The transaction is
        looked for in blocks, then in the nodes' pools, until --deadline (default 25 s).
        Exits 0 when shown, 65 when it cannot be verified or is not this account's, 69 when
        no node had it by the deadline or none could be used, 64 for bad input (a push for
        another account included). On any failure the generic text is still printed.
        With --notify (or "notify": true in the config file) it is also shown on the
        desktop, as one bubble with no action (this process is gone by the time it is
        clicked); with no session bus or notification service, exit 69 once the input is
        checked and before any node is asked, and 69 when the service fails to take it. A push seen before is not shown
        again, nor one in a chat muted by a bubble's "Mute 1 hour".
        """ + "\n" + NodeOptions.help + "\n" + AccountPassphrase.help
}
