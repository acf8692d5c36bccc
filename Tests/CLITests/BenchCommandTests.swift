import Foundation
import Testing

/// `adm-bench`'s command line and report. The debug build measures only briefly, so nothing
/// here checks a figure's size: only that the report says what it measured consistently.
@Suite("adm-bench", .timeLimit(.minutes(1)))
struct BenchCommandTests {
    @Test func helpListsTheBenchmarks() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let help = try await run("adm-bench", arguments)
            #expect(help.status == 0 && help.stderr.isEmpty)
            #expect(help.stdout.contains("\nUSAGE: adm-bench [--json] [<benchmark> ...]\n"), "\(help.stdout)")
            for name in [
                "keys", "verify-decrypt", "outbox", "read", "fetch", "nodes", "register", "watch-scale", "outbox-scale",
                "watch-accounts",
            ] {
                #expect(help.stdout.contains("\n  \(name) "), "\(name)")
            }
        }
    }

    @Test func anUnknownBenchmarkIsAUsageErrorAndNothingRuns() async throws {
        let typo = try await run("adm-bench", ["keys", "kyes"])
        #expect(typo.status == 64 && typo.stdout.isEmpty)
        #expect(
            typo.stderr == """
                Error: unknown benchmark 'kyes' (did you mean 'keys'?)
                Usage: adm-bench [--json] [<benchmark> ...]
                  See 'adm-bench --help' for the benchmarks.

                """)

        let option = try await run("adm-bench", ["--fast"])
        #expect(option.status == 64 && option.stdout.isEmpty)
        #expect(option.stderr.hasPrefix("Error: unknown option '--fast'\n"))
    }

    /// Every figure has every field; the ratio is the value over the floor; `met` is the goal
    /// applied to the ratio or the value, as the goal says.
    @Test func theJSONReportIsConsistent() async throws {
        let result = try await run("adm-bench", ["keys", "verify-decrypt", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let machine = try #require(report["machine"] as? [String: Any])
        #expect(
            (machine["cpus"] as? Int ?? 0) > 0 && machine["cpu"] is String && machine["build"] as? String == "debug")

        let figures = try #require(report["figures"] as? [[String: Any]])
        let fields: Set = ["benchmark", "figure", "unit", "value", "floor", "ratio", "goal", "met", "status", "note"]
        for figure in figures {
            #expect(Set(figure.keys) == fields, "\(figure)")
            #expect(figure["status"] as? String == "measured", "\(figure)")
            let value = try #require(figure["value"] as? Double)
            #expect(value > 0)
            if let floor = figure["floor"] as? [String: Any] {
                let floorValue = try #require(floor["value"] as? Double)
                #expect(floor["name"] is String && floorValue > 0)
                let ratio = try #require(figure["ratio"] as? Double)
                #expect(abs(ratio - value / floorValue) <= 1e-9 * ratio, "\(figure)")
            } else {
                #expect(figure["floor"] is NSNull && figure["ratio"] is NSNull)
            }
            if let goal = figure["goal"] as? [String: Any] {
                let subject = try #require(goal["subject"] as? String)
                let limit = try #require(goal["limit"] as? Double)
                let measured = try #require(
                    subject == "ratio" ? figure["ratio"] as? Double : subject == "value" ? value : nil)
                let holds: Bool? =
                    switch goal["comparison"] as? String {
                    case "<=": measured <= limit
                    case ">=": measured >= limit
                    default: nil
                    }
                #expect(holds != nil && figure["met"] as? Bool == holds, "\(figure)")
            } else {
                #expect(figure["goal"] is NSNull && figure["met"] is NSNull)
            }
        }

        // The figures docs/performance.md sets for these two, with their goals.
        let shapes = figures.map { figure -> String in
            let goal = figure["goal"] as? [String: Any]
            let limit = (goal?["limit"] as? Double).map { "\($0)" } ?? "-"
            return [figure["benchmark"], figure["unit"], goal?["subject"], goal?["comparison"]].map {
                $0 as? String ?? "-"
            }.joined(separator: " ") + " " + limit
        }
        #expect(
            shapes == [
                "keys ms ratio <= 1.1", "verify-decrypt tx/s ratio >= 0.9", "verify-decrypt tx/s value >= 15000.0",
            ])
    }

    @Test func theTableHasARowPerFigure() async throws {
        let result = try await run("adm-bench", ["keys"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("adm-bench, debug build, ") == true)
        let header = try #require(lines.first { $0.hasPrefix("BENCHMARK") })
        #expect(
            header.split(separator: " ", omittingEmptySubsequences: true) == [
                "BENCHMARK", "FIGURE", "OURS", "FLOOR", "OR", "PEER", "RATIO", "GOAL", "MET",
            ])
        let row = try #require(lines.first { $0.hasPrefix("keys ") })
        #expect(
            row.contains("passphrase → key pair") && row.contains(" ms libsodium ") && row.contains("≤ 1.10×"), "\(row)"
        )
        #expect(row.hasSuffix(" yes") || row.hasSuffix(" NO"), "\(row)")
        // Columns line up under the header.
        #expect(row.distance(of: "≤ 1.10×") == header.distance(of: "GOAL"), "\(header)\n\(row)")
    }
}

extension String {
    /// Characters from the start to the first `text`.
    fileprivate func distance(of text: String) -> Int? {
        range(of: text).map { distance(from: startIndex, to: $0.lowerBound) }
    }
}
