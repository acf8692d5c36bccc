import AdamantCLI
import Testing

/// A program's two outputs read apart, line by line, and how it ended.
@Suite("piped process")
struct PipedProcessTests {
    @Test func eachOutputIsReadApartAndTheEndIsTold() async throws {
        let run = try await PipedProcess.run(
            "/bin/sh", ["-c", "echo one; echo two >&2; printf 'three'; exit 3"], environment: [:])
        #expect(run.outcome == .exited(3))
        #expect(run.output == "one\nthree\n")
        #expect(run.error == "two\n")
    }

    @Test func aProgramThatCannotStartSaysWhy() async {
        #expect(throws: ChildProcess.SpawnError.refused(path: "/nonexistent/program", errno: 2)) {
            _ = try PipedProcess("/nonexistent/program", [], environment: [:])
        }
    }

    @Test func terminateStopsAProgramThatWaits() async throws {
        let process = try PipedProcess("/bin/sh", ["-c", "echo ready; exec sleep 60"], environment: [:])
        var lines = process.lines.makeAsyncIterator()
        #expect(await lines.next()?.text == "ready")
        process.terminate()
        #expect(await process.wait() == .signalled(15))
    }
}
