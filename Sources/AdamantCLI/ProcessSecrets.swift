import AdamantCore
import CSpawn
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What keeps a passphrase that reached this process out of other hands, as ssh-agent and
/// gpg-agent keep theirs: no core dump, no debugger of the same user, and `ADM_PASSPHRASE` in
/// no ordinary string.
enum ProcessSecrets {
    /// The name of the variable a passphrase may come in.
    static let variable = "ADM_PASSPHRASE"

    /// Not dumpable, and a soft core limit of 0. Either alone leaves a gap: a process that is
    /// not dumpable is still dumped, readable by root, where `fs.suid_dumpable` is 2 (systemd
    /// sets it), and systemd-coredump, reached through a pipe the kernel gives no limit to,
    /// keeps the core unless the limit it is told is 0. Children inherit the limit (a hook
    /// that wants a core raises its own soft limit); an exec resets the rest.
    static func forbidCores() {
        _ = cspawn_forbid_dumping()
        var limit = rlimit()
        #if os(Linux)
            let core = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
            let core = RLIMIT_CORE
        #endif
        guard getrlimit(core, &limit) == 0 else { return }
        limit.rlim_cur = 0
        _ = setrlimit(core, &limit)
    }

    /// The value of `ADM_PASSPHRASE` in the process's environment, copied into memory that is
    /// zeroed on release, and then overwritten in place in `environ` (whose bytes lie in
    /// every core and, for the user's other processes, in /proc/PID/environ): read once, at
    /// start, before any other thread could read the environment.
    static func takePassphraseVariable() -> SecretText? {
        let prefix = Array((variable + "=").utf8)
        var entry = environ
        while let pointer = entry.pointee {
            if strncmp(pointer, prefix.map { CChar(bitPattern: $0) }, prefix.count) == 0 {
                let value = UnsafeMutableRawPointer(pointer + prefix.count)
                let length = strlen(pointer + prefix.count)
                let text = SecretText(copying: UnsafeRawBufferPointer(start: value, count: length))
                SecureMemory.zero(UnsafeMutableRawBufferPointer(start: value, count: length))
                return text
            }
            entry += 1
        }
        return nil
    }
}

/// A secret given as text (the passphrase of `ADM_PASSPHRASE`), held in memory that is zeroed
/// when it is released, and read once: the first reader takes the bytes and the memory is
/// wiped then, so a process that runs for days (a watch) keeps no copy of the passphrase
/// past the moment its keys are derived.
public final class SecretText: Sendable {
    private let bytes: Mutex<SecureBytes?>

    /// The bytes of `buffer`, which the caller wipes.
    init(copying buffer: UnsafeRawBufferPointer) {
        bytes = Mutex(SecureBytes(count: buffer.count) { $0.copyMemory(from: buffer) })
    }

    /// `text`'s bytes: for an environment a test gives as a dictionary, whose string cannot be
    /// wiped anyway.
    init(_ text: String) {
        var copy = Array(text.utf8)
        bytes = Mutex(SecureBytes(consuming: &copy))
    }

    /// The bytes, for the caller to zero (`SecureMemory.zero`), the first time; nil after.
    func take() -> [UInt8]? {
        let taken = bytes.withLock { held in
            defer { held = nil }
            return held
        }
        return taken?.withUnsafeBytes { Array($0) }
    }
}
