import Foundation

/// The machine a run was measured on: these figures mean little without it.
struct Machine: Sendable, Encodable {
    let cpus: Int
    let cpu: String
    let build: String

    static func current() -> Machine {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = info.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        return Machine(cpus: ProcessInfo.processInfo.activeProcessorCount, cpu: model ?? "unknown", build: build)
    }
}

/// What `--json` prints: the same rows as the table.
struct ReportJSON: Encodable {
    let machine: Machine
    let figures: [Figure]
}

/// The figures as one aligned table, with the machine above it.
enum Table {
    static let header = ["BENCHMARK", "FIGURE", "OURS", "FLOOR OR PEER", "RATIO", "GOAL", "MET"]

    static func lines(_ figures: [Figure], machine: Machine) -> [String] {
        let rows = figures.map(cells)
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let table = ([header] + rows).map { row in
            var line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(
                separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
        let notes = figures.filter { $0.note != nil }.map { "  \($0.benchmark) \($0.name): \($0.note!)" }
        return ["adm-bench, \(machine.build) build, \(machine.cpus) CPUs (\(machine.cpu))", ""] + table
            + (notes.isEmpty ? [] : ["", "Notes:"] + notes)
    }

    static func cells(_ figure: Figure) -> [String] {
        let unit = figure.unit
        let ours: String
        switch figure.status {
        case .measured: ours = figure.value.map { format($0, unit) } ?? "-"
        case .skipped: ours = "skipped"
        case .failed: ours = "FAILED"
        }
        let floor = figure.floor.map { "\(format($0.value, unit)) \($0.name)" } ?? "-"
        let ratio = figure.ratio.map { String(format: "%.2f×", $0) } ?? "-"
        let goal =
            figure.goal.map { goal in
                goal.subject == .ratio
                    ? "\(goal.comparison.symbol) \(String(format: "%.2f", goal.limit))×"
                    : "\(goal.comparison.symbol) \(format(goal.limit, unit))"
            } ?? "-"
        let met = figure.met.map { $0 ? "yes" : "NO" } ?? "-"
        return [figure.benchmark, figure.name, ours, floor, ratio, goal, met]
    }

    static func format(_ value: Double, _ unit: Figure.Unit) -> String {
        switch unit {
        case .milliseconds: value >= 100 ? String(format: "%.0f ms", value) : String(format: "%.2f ms", value)
        case .perSecond: grouped(Int(value.rounded())) + " tx/s"
        case .mebibytes: String(format: "%.1f MiB", value)
        case .seconds: String(format: "%.2f s", value)
        case .count: grouped(Int(value.rounded()))
        }
    }

    /// 15000 as 15,000.
    static func grouped(_ number: Int) -> String {
        var digits = String(number.magnitude)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(Substring(digits), at: 0)
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
