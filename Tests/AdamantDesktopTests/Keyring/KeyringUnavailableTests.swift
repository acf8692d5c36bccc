import Foundation
import Testing

@testable import AdamantDesktop

#if canImport(Glibc)
    import Glibc
#endif

/// No bus, no service, a service that never comes up: each an error of one line within
/// seconds, never D-Bus's 25 s.
@Suite(.serialized) struct KeyringUnavailableTests {
    @Test func noBusAtTheAddressIsNoSessionBus() async throws {
        let start = ContinuousClock.now
        let error = await #expect(throws: KeyringError.self) {
            try await Keyring.connect(address: "unix:path=/tmp/kr-nothing-" + UUID().uuidString.prefix(8))
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        guard case .noSessionBus = error else {
            throw KeyringChild.Failure("not noSessionBus: \(String(describing: error))")
        }
        #expect(error.map { !"\($0)".contains("\n") } == true)
    }

    @Test func noBusInTheEnvironmentIsNoSessionBus() async throws {
        let error = await #expect(throws: KeyringError.self) { try await Keyring.connect(environment: [:]) }
        guard case .noSessionBus = error else {
            throw KeyringChild.Failure("not noSessionBus: \(String(describing: error))")
        }
    }

    @Test func aBusWithoutTheServiceIsNoSecretService() async throws {
        try await TestKeyring.with(gnomeKeyring: false) { keyring in
            let start = ContinuousClock.now
            let error = await #expect(throws: KeyringError.self) {
                try await Keyring.connect(address: keyring.busAddress)
            }
            #expect(ContinuousClock.now - start < .seconds(3))
            guard case .noSecretService = error else {
                throw KeyringChild.Failure("not noSecretService: \(String(describing: error))")
            }
        }
    }

    /// The bus starts the service when first called, and waits for it far longer than a call
    /// may: the call gives up after its 5 s.
    @Test func aServiceTheBusStartsButNeverComesUpFailsWithinSixSeconds() async throws {
        let never = { (folder: String) in "/bin/sh \(folder)/never.sh" }
        try await TestKeyring.with(gnomeKeyring: false, services: [SecretService.name: never]) { keyring in
            // It says who it is, so that it is killed by its id with the test's processes.
            try "echo $$ > \(keyring.folder)/never.pid\nexec sleep 60\n".write(
                toFile: keyring.folder + "/never.sh", atomically: true, encoding: .utf8)
            defer {
                if let pid = (try? String(contentsOfFile: keyring.folder + "/never.pid", encoding: .utf8)).flatMap({
                    pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }) {
                    kill(pid, SIGKILL)
                }
            }
            let start = ContinuousClock.now
            let error = await #expect(throws: KeyringError.self) {
                try await Keyring.connect(address: keyring.busAddress)
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .seconds(4) && elapsed < .seconds(7), "failed after \(elapsed)")
            guard case .noSecretService = error else {
                throw KeyringChild.Failure("not noSecretService: \(String(describing: error))")
            }
            #expect(error.map { !"\($0)".contains("\n") } == true)
            #expect(FileManager.default.fileExists(atPath: keyring.folder + "/never.pid"), "the bus did start it")
        }
    }
}
