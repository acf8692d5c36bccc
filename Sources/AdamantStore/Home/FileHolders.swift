import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who has a file open, so that a lock held too long can be blamed on someone. Read from
/// `/proc` (Linux only; elsewhere no one is named), and only processes this user may look into
/// are seen, which is every adm-push or adm-fetch of theirs.
enum FileHolders {
    /// `process 1234 (adm-fetch)` for each other process with `path` open, at most `limit`.
    static func processes(holding path: String, limit: Int = 3) -> [String] {
        #if os(Linux)
            var found: [String] = []
            let me = getpid()
            for name in entries(of: "/proc") where found.count < limit {
                guard let pid = Int32(name), pid != me else { continue }
                let descriptors = "/proc/\(name)/fd"
                guard entries(of: descriptors).contains(where: { link(descriptors + "/" + $0) == path }) else {
                    continue
                }
                // The name is the other process's to choose: only printable ASCII of it is shown.
                let command = (try? SmallFile.read(atPath: "/proc/\(name)/comm", limit: 64)).flatMap { $0 }.map {
                    String(decoding: $0.prefix { $0 != 0x0A }.filter { (0x20..<0x7F).contains($0) }, as: UTF8.self)
                }
                found.append("process \(pid)" + (command.map { " (\($0))" } ?? ""))
            }
            return found
        #else
            return []
        #endif
    }

    /// The names in `directory`; none when it cannot be read.
    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func link(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
