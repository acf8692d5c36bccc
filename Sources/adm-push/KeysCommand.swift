import AdamantAccountCLI
import AdamantCLI
import AdamantCore

/// `adm-push keys`: the address and public key of a passphrase, nothing secret printed.
struct KeysCommand: Command {
    static let info = CommandInfo(
        name: "keys",
        overview: "Show the address and public key of your passphrase.",
        options: AccountPassphrase.options + [json],
        discussion: AccountPassphrase.help)
    static let json = Flag("json", help: "Print {\"address\",\"publicKey\"} as JSON.")

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        try PassphraseInput.refuseArguments(arguments, of: "keys")
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let keys = try await AccountPassphrase.keys(arguments, context, derivingHere: true).keyPair
        if arguments.flag(Self.json) {
            context.output.printJSON(["address": keys.address.description, "publicKey": keys.publicKey.hex])
        } else {
            context.output.print("address     \(keys.address)")
            context.output.print("public key  \(keys.publicKey.hex)")
        }
        return .success
    }
}
