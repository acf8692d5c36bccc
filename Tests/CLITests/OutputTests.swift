import Foundation
import Testing

@testable import AdamantCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite("output")
struct OutputTests {
    /// A command that prints one line and succeeds.
    struct Hello: Command {
        static let info = CommandInfo(name: "hello", overview: "Say hello.", options: [])
        init(_ arguments: ParsedArguments) throws(CLIError) {}
        func run(_ context: Context) async throws(CLIError) -> ExitCode {
            context.output.print("hello")
            return .success
        }
    }

    static let tool = Tool(name: "t", overview: "A test tool.", commands: [Hello.self])

    @Test func aFailedWriteTurnsSuccessIntoExit74() async throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let errors = Pipe()
        let output = Output(standardOutput: full, standardError: errors.fileHandleForWriting.fileDescriptor)
        let code = await Self.tool.run(
            ["hello"], Context(environment: [:], output: output, terminal: Terminal(input: -1)))
        try errors.fileHandleForWriting.close()
        #expect(code == .outputFailed)
        #expect(output.firstFailure == Output.WriteFailure(stream: .standardOutput, errorNumber: ENOSPC))
        let printed = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "Error: cannot write to standard output: No space left on device\n")
    }

    @Test func linesHaveTheirControlCharactersEscaped() throws {
        let pipe = Pipe()
        let output = Output(standardOutput: pipe.fileHandleForWriting.fileDescriptor)
        output.print("a\u{1B}[2Jb\nc\rd")
        output.printJSON(["k": "v\n"])
        try pipe.fileHandleForWriting.close()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "a\\u{1B}[2Jb\nc\\rd\n{\"k\":\"v\\n\"}\n")
        #expect(output.firstFailure == nil)
    }
}
