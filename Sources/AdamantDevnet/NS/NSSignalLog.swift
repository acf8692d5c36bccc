import AdamantCore
import Foundation

/// Every signal the adamant-ns emulator hears, as one JSON line in the file that
/// `ADM_DEVNET_NS_SIGNAL_LOG` names: the transaction as a node writes it, the service's
/// passphrase, and the emulator's verdict, `applied` (the action) or `dropped` (why).
/// `scripts/crosscheck.py` decrypts each line again and reads it with its own model of the
/// service's schema, so every signal the tests send is judged twice, by code that shares
/// nothing. Unset, nothing is written.
enum NSSignalLog {
    /// The file, read once: a process's lines all go to one place, whatever changes its
    /// environment later.
    static let path: String? = {
        guard let value = getenv("ADM_DEVNET_NS_SIGNAL_LOG"), value.pointee != 0 else { return nil }
        return String(cString: value)
    }()

    private struct Line: Encodable {
        let transaction: Transaction
        let servicePassphrase: String
        let applied: String?
        let dropped: String?
    }

    /// Appends the line for `transaction`, which `service` applied as `applied` or dropped for
    /// `dropped`. One `write` to a descriptor opened with `O_APPEND`: the devnets of a test process,
    /// and the processes started with its environment, append at once, and whole lines written
    /// so do not interleave. A line that cannot be written is lost, and the test goes on.
    static func append(
        _ transaction: Transaction, service: DevnetAccount, applied: String? = nil, dropped: String? = nil
    ) {
        guard let path else { return }
        let line = Line(
            transaction: transaction, servicePassphrase: service.passphrase, applied: applied, dropped: dropped)
        guard var bytes = try? JSONCoding.encode(line) else { return }
        bytes.append(UInt8(ascii: "\n"))
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
