internal import AdamantBus

/// Why the desktop's keyring could not be used, in a sentence that says what to do.
/// Compared by case: each holds the detail it was thrown with (the bus's or the service's own
/// words), which `description` ends with.
public enum KeyringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No session bus to reach: not a desktop session, or its bus is gone or hung.
    case noSessionBus(String)
    /// Nobody on the bus serves `org.freedesktop.secrets`, or it did not answer in time (a
    /// service the bus tried to start and that never came up included).
    case noSecretService(String)
    /// What was asked is locked, and stays so: the unlock prompt was dismissed, or could not
    /// be shown (no prompter, no display), or was not answered in time.
    case locked(String)
    /// The item is not there (any more).
    case noSuchItem(String)
    /// The service answered the call with an error.
    case refused(String)
    /// The service's answer is not what the Secret Service API says it is, or a secret it
    /// sent could not be decrypted.
    case malformedAnswer(String)
    /// An item holds what it should not: an account's item something other than that
    /// account's passphrase (edited by hand, or by another program).
    case notAPassphrase(String)
    /// A library the encrypted session needs (libcrypto) could not be loaded.
    case missingLibrary(String)

    /// What went wrong and what to do about it, on one line.
    public var description: String {
        switch self {
        case .noSessionBus(let detail):
            "no session bus to reach the keyring: \(detail) (run this in the desktop session, or set DBUS_SESSION_BUS_ADDRESS)"
        case .noSecretService(let detail):
            "no keyring (Secret Service) answers on the session bus: \(detail) (start gnome-keyring-daemon, KeePassXC or another Secret Service)"
        case .locked(let detail):
            "the keyring is locked: \(detail) (unlock it in the desktop's keyring manager, such as Seahorse, and try again)"
        case .noSuchItem(let detail):
            "the keyring has no such item: \(detail) (it was deleted meanwhile; store it again)"
        case .refused(let detail):
            "the keyring refused: \(detail)"
        case .malformedAnswer(let detail):
            "the keyring answered what the Secret Service API does not allow: \(detail) (report it to the keyring's authors)"
        case .notAPassphrase(let detail):
            "the keyring's item is wrong: \(detail) (run adm-push login again with the account's passphrase)"
        case .missingLibrary(let detail):
            "the keyring's encrypted session cannot be set up: \(detail)"
        }
    }
}
