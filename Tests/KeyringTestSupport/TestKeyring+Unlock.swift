import AdamantBus
import AdamantKeyring

extension TestKeyring {
    /// Unlocks the login keyring with its password, as the desktop's login does, and with no
    /// prompt: through gnome-keyring's own interface for its tools (the Secret Service's
    /// `Unlock` would ask a prompter, and a test has none).
    public func unlockWithPassword() async throws {
        let bus = try await SessionBus.connect(address: busAddress)
        let session = try await SecretSession.openPlain(on: bus)
        try await bus.secretCall(
            SecretService.path, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
            "UnlockWithMasterPassword",
            [.objectPath(SecretService.path + "/collection/login"), try session.encode(Array(Self.password.utf8))]
        ) { _ throws(BusError) in () }
    }
}

extension TestKeyring {
    /// Locks the default collection through the Secret Service's own `Lock`.
    public func lock() async throws {
        try await Keyring.connect(address: busAddress).lockDefaultCollection()
    }
}
