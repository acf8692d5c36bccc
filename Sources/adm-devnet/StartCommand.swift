import AdamantCLI
import AdamantCore
import AdamantDevnet
import Foundation

/// `adm-devnet start`: run the network until SIGINT, SIGTERM or the end of stdin.
struct StartCommand: Command {
    static let info = CommandInfo(
        name: "start",
        overview: "Run a local ADAMANT network and print its addresses as one JSON line.",
        options: StartOptions.all,
        discussion: """
            When ready it prints one line: {"nodes":[…],"control":"http://127.0.0.1:P","nethash":"…",
            "ans":{"address","publicKey","passphrase"},"ns":{"address","publicKey","passphrase"},
            "accounts":[{"passphrase","address","balance"}]}; a service --service leaves out has no key.
            It stops on SIGINT or SIGTERM, or when its standard input closes, so a test that dies leaves
            nothing behind (keep stdin open to run it in the background: sleep infinity | adm-devnet start).

            Fault kinds: refuse, blackhole, delay:MS, status:500|403|429|503, html404, garbage, truncate,
            trickle[:MS], lag:BLOCKS, nethash:HEX, version:X.Y.Z, skew:SECONDS, tamper, drop,
            timeout-after-accept; add @/path/prefix to scope one to some paths. For the node's client
            socket (its port is in /api/node/status wsClient): socket-refuse, socket-silent,
            socket-drop:SECONDS (each session forgotten that long after it opened), socket-duplicate,
            socket-forge, socket-slow:MS, socket-hold (no poll answered), socket-huge (10 MB
            answers), socket-flood (every poll answered at once with 200 events).

            Control endpoint (JSON): GET / · POST /mine · POST /fund {"address","amount"} ·
            GET|POST|DELETE /nodes/N/faults {"fault"} · GET|DELETE /nodes/N/requests ·
            GET|PUT /ans/mode {"mode"} · POST /ans/poll · GET /ans/registry · GET /ans/pushes ·
            GET|PUT /ns/mode {"mode"} · POST /ns/poll · GET /ns/registry · GET /ns/pushes
            """)

    let configuration: DevnetConfiguration
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws(CLIError) {
        // Not quoted back: an unquoted --account value spills its passphrase words here.
        guard arguments.positional.isEmpty else {
            throw .usage("start takes no arguments (quote an --account value: --account \"PASSPHRASE=ADM\")")
        }
        configuration = try DevnetOptions.configuration(arguments)
        quiet = arguments.flag(StartOptions.quiet)
    }

    func run(_ context: Context) async throws(CLIError) -> ExitCode {
        var configuration = configuration
        let output = context.output
        if !quiet { configuration.log = { output.error("adm-devnet: " + $0) } }
        // Handlers go in before the ready line, so a signal sent right after it is never fatal.
        let stop = StopSignal()
        let devnet: Devnet
        do { devnet = try Devnet(configuration) } catch {
            if case .pastTotalSupply = error { throw .usage(error.description) }
            throw CLIError(error.description, exitCode: .unavailable)
        }
        output.print(devnet.readyLine)
        await stop.wait()
        devnet.stop()
        return .success
    }
}

/// Resolves once SIGINT or SIGTERM arrives or standard input reaches its end.
private final class StopSignal {
    private let stopped = AsyncStream<Void>.makeStream()
    private let sources: [any DispatchSourceSignal]

    init() {
        let continuation = stopped.continuation
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(STDIN_FILENO, &buffer, buffer.count) > 0 {}
            continuation.yield()
        }
    }

    func wait() async {
        for await _ in stopped.stream { return }
    }
}
