import AdamantCLI
import AdamantCore

/// `adm-push keys`: the address and public key of a passphrase, nothing secret printed.
struct KeysCommand: Command {
    static let info = CommandInfo(
        name: "keys",
        overview: "Show the address and public key of your passphrase.",
        usage: "keys [--passphrase-file <path>] [--json]",
        options: [PassphraseInput.option, .flag("json", help: "Print {\"address\",\"publicKey\"} as JSON.")],
        discussion: PassphraseInput.help)

    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("unexpected argument '\(arguments.positional[0])' (the passphrase is never an argument)")
        }
        self.arguments = arguments
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        let keys = KeyPair(passphrase: try PassphraseInput.passphrase(arguments, context))
        if arguments.flag("json") {
            context.output.printJSON(["address": keys.address.description, "publicKey": keys.publicKey.hex])
        } else {
            context.output.print("address     \(keys.address)")
            context.output.print("public key  \(keys.publicKey.hex)")
        }
        return .success
    }
}
