@testable import AdamantCLI
import Foundation
import Testing

@Suite struct EnvironmentTests {
    @Test func readsTheSameVariablesAsFoundation() {
        let variables = Tool.environment()
        #expect(variables["PATH"] != nil)
        #expect(variables == ProcessInfo.processInfo.environment)
    }
}
