import AdamantBus
import Foundation
import KeyringTestSupport
import Testing

@testable import AdamantKeyring

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
        try await TestKeyring.with(gnomeKeyring: false, neverStarting: [SecretService.name]) { keyring in
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
            #expect(keyring.started(SecretService.name), "the bus did start it")
        }
    }

    /// gnome-keyring asks its prompter, which the bus starts and which never comes up: the
    /// unlock waits no longer than its prompt timeout, and takes the prompt down.
    @Test func aPrompterThatNeverComesUpIsLockedAfterThePromptTimeout() async throws {
        try await TestKeyring.with(neverStarting: ["org.gnome.keyring.SystemPrompter"]) { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress, promptTimeout: .seconds(2))
            try await client.lockDefaultCollection()
            let start = ContinuousClock.now
            let error = await #expect(throws: KeyringError.self) { try await client.unlockDefaultCollection() }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .seconds(2) && elapsed < .seconds(4), "failed after \(elapsed)")
            guard case .locked = error else { throw KeyringChild.Failure("not locked: \(String(describing: error))") }
            #expect(keyring.started("org.gnome.keyring.SystemPrompter"), "gnome-keyring asked for its prompter")
        }
    }
}
