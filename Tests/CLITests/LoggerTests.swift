import AdamantNodes
import Foundation
import Testing

@testable import AdamantCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite("log lines")
struct LoggerTests {
    /// 2026-12-01T14:30:00.123Z
    static let instant: Int64 = 1_796_135_400_123

    @Test func journalLinesCarryThePriorityPrefixAndNoTime() {
        let lines = LogLevel.allLevels.map {
            Logger.line($0, "flush: pass 1: 2 applied", style: .journal, unixMillis: Self.instant)
        }
        #expect(
            lines == [
                "<7>flush: pass 1: 2 applied", "<6>flush: pass 1: 2 applied", "<4>flush: pass 1: 2 applied",
                "<3>flush: pass 1: 2 applied",
            ])
    }

    @Test func otherLinesStartWithTheUTCTimeAndTheLevel() {
        #expect(
            Logger.line(.info, "flush: 2 sent", style: .timestamped, unixMillis: Self.instant)
                == "2026-12-01T14:30:00.123Z info  flush: 2 sent")
        #expect(
            Logger.line(.warning, "x", style: .timestamped, unixMillis: Self.instant)
                == "2026-12-01T14:30:00.123Z warn  x")
        #expect(Logger.line(.debug, "x", style: .timestamped, unixMillis: 5) == "1970-01-01T00:00:00.005Z debug x")
        #expect(Logger.line(.error, "x", style: .timestamped, unixMillis: -1) == "1969-12-31T23:59:59.999Z error x")
    }

    /// A node's text with a newline or an escape cannot start a line of its own or hide one.
    @Test func aMessageStaysOneLine() {
        #expect(Logger.line(.info, "a\n<3>b\u{1B}[2K", style: .journal, unixMillis: 0) == "<6>a\\n<3>b\\u{1B}[2K")
    }

    @Test func linesBelowTheThresholdAreNeitherBuiltNorWritten() throws {
        let pipe = Pipe()
        let logger = Logger(
            threshold: .warning, style: .journal,
            output: Output(standardError: pipe.fileHandleForWriting.fileDescriptor))
        func built() -> String {
            Issue.record("a dropped line was built")
            return ""
        }
        logger.log(.debug, built())
        logger.log(.info, "quiet")
        logger.log(.warning, "loud")
        logger.log(.error, "louder")
        try pipe.fileHandleForWriting.close()
        #expect(
            String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "<4>loud\n<3>louder\n")
        #expect(!logger.logs(.info) && logger.logs(.warning))
    }

    @Test(arguments: [
        ([String: String](), false, LogLevel.info), (["ADM_LOG": "debug"], false, .debug),
        (["ADM_LOG": "warning"], false, .warning),
        (["ADM_LOG": "ERROR"], false, .error), (["ADM_LOG": ""], false, .info), (["ADM_LOG": "warning"], true, .debug),
    ])
    func theThresholdComesFromTheFlagThenTheEnvironment(
        _ environment: [String: String], _ verbose: Bool, _ expected: LogLevel
    ) throws {
        let arguments = try ParsedArguments(verbose ? ["-v"] : [], options: [LogOptions.verbose.spec])
        #expect(try LogOptions.threshold(arguments, environment) == expected)
    }

    @Test(arguments: ["verbose", "warn", "7", "debug "])
    func anUnknownLevelIsExit64NamingTheAcceptedOnes(_ value: String) throws {
        let arguments = try ParsedArguments(["--verbose"], options: [LogOptions.verbose.spec])
        #expect {
            try LogOptions.threshold(arguments, ["ADM_LOG": value])
        } throws: { error in
            let error = error as? CLIError
            return error?.exitCode == .usage
                && error?.message == "ADM_LOG must be one of debug, info, warning, error, got '\(value)'"
        }
    }

    /// The journal's stream is recognised by its device and inode; the variable inherited
    /// with stderr sent elsewhere, or garbled, means timestamps.
    @Test func theJournalIsStandardErrorsDeviceAndInode() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())").path
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        let stream = "\(status.st_dev):\(status.st_ino)"
        #expect(Logger.style(environment: ["JOURNAL_STREAM": stream], standardError: descriptor) == .journal)
        #expect(Logger.style(environment: [:], standardError: descriptor) == .timestamped)
        for other in [
            "\(status.st_dev):\(status.st_ino + 1)", "\(status.st_dev + 1):\(status.st_ino)", "\(stream):1", "x:y", ":",
            "",
        ] {
            #expect(
                Logger.style(environment: ["JOURNAL_STREAM": other], standardError: descriptor) == .timestamped,
                "\(other)")
        }
        #expect(Logger.style(environment: ["JOURNAL_STREAM": stream], standardError: -1) == .timestamped)
    }

    /// Only a terminal that is not the journal gets a progress line; a pipe never does.
    @Test func progressIsOnlyForATerminal() throws {
        let pipe = Pipe()
        #expect(
            ProgressLine.onTerminal(
                Output(standardError: pipe.fileHandleForWriting.fileDescriptor), style: .timestamped) == nil)
        var master: Int32 = -1
        var replica: Int32 = -1
        try #require(openpty(&master, &replica, nil, nil, nil) == 0)
        defer {
            close(master)
            close(replica)
        }
        #expect(ProgressLine.onTerminal(Output(standardError: replica), style: .timestamped) != nil)
        #expect(ProgressLine.onTerminal(Output(standardError: replica), style: .journal) == nil)
    }

    /// Redraws are throttled; a log line clears the progress line first; clear erases it, and
    /// the next update draws at once.
    @Test func progressRedrawsInPlaceAndIsThrottled() throws {
        let pipe = Pipe()
        let output = Output(standardError: pipe.fileHandleForWriting.fileDescriptor)
        // the second update is always too soon
        let progress = ProgressLine(output: output, redrawInterval: .seconds(3600))
        let logger = Logger(threshold: .info, style: .journal, output: output, progress: progress)
        progress.update("one")
        progress.update("dropped: too soon")
        logger.log(.info, "event")
        progress.clear()
        progress.update("two")
        progress.clear()
        progress.clear()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(written == "\rone\u{1B}[K\r\u{1B}[K<6>event\n\rtwo\u{1B}[K\r\u{1B}[K")
    }
}

extension LogLevel {
    static let allLevels: [LogLevel] = [.debug, .info, .warning, .error]
}
