import Foundation
import Testing
@testable import AdamantPush

@Test(.enabled(if: ProcessInfo.processInfo.environment["SIM_SEED"] != nil)) func debugSeed() {
    let seed = UInt64(ProcessInfo.processInfo.environment["SIM_SEED"]!)!
    let schedule = Schedule(seed: seed)
    print("mode \(schedule.mode) v010 \(schedule.version010)")
    for e in schedule.events { print(e) }
    let run = ScheduleRun(schedule, debugTrace: true)
    print(run.ourSignals)
    print("expected \(schedule.expected)\nours \(run.ours)")
}
