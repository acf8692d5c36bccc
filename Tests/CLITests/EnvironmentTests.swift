import Foundation
import Testing

@testable import AdamantCLI

@Suite struct EnvironmentTests {
    @Test func readsTheSameVariablesAsFoundation() {
        let variables = Tool.environment()
        #expect(variables["PATH"] != nil)
        #expect(variables == ProcessInfo.processInfo.environment)
    }
}
