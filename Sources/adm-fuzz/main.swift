import CFuzzer
import Foundation

// adm-fuzz TARGET [ARGS…]   (adm-fuzz --list prints the targets)
// adm-fuzz --write-seeds TARGET DIRECTORY   (a target's own seeds, replacing DIRECTORY's files)
//
// Built by scripts/fuzz (-D FUZZING, libFuzzer linked), ARGS are libFuzzer's options and corpus
// directories. A normal build replays instead: each file (or each file of a directory) in ARGS
// runs once, so a saved crash can be checked without the fuzzing toolchain.

var arguments = Array(UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc)))
let first = arguments.count > 1 ? arguments[1].map { String(cString: $0) } : nil

if first == "--list" {
    print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
    exit(0)
}
if first == "--write-seeds" {
    let rest = Array(CommandLine.arguments.dropFirst(2))
    guard rest.count == 2, let seeds = FuzzTarget.named(rest[0])?.seeds else {
        FileHandle.standardError.write(
            Data(
                "usage: adm-fuzz --write-seeds TARGET DIRECTORY, TARGET one of: \(FuzzTarget.all.filter { $0.seeds != nil }.map(\.name).joined(separator: ", "))\n"
                    .utf8))
        exit(64)
    }
    writeSeeds(seeds(), to: rest[1])
    exit(0)
}
// libFuzzer re-runs this binary without the name (to minimise a crash, to merge corpora), so
// the name travels in the environment.
if let first, FuzzTarget.named(first) != nil {
    setenv(FuzzTarget.environmentKey, first, 1)
    arguments.remove(at: 1)
}
guard let target = FuzzTarget.active else {
    let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: adm-fuzz TARGET [ARGS…], TARGET one of: \(names)\n".utf8))
    exit(64)
}

#if FUZZING
    var count = CInt(arguments.count)
    arguments.append(nil)
    let status = arguments.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress
        return LLVMFuzzerRunDriver(&count, &argv) { data, size in
            FuzzTarget.active?.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
    }
    exit(status)
#else
    var replayed = 0
    for path in arguments.dropFirst().compactMap({ $0.map { String(cString: $0) } }) {
        let files =
            (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().map { "\(path)/\($0)" } ?? [path]
        for file in files {
            guard let contents = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("adm-fuzz: cannot read \(file)\n".utf8))
                exit(66)
            }
            target.run(Array(contents))
            replayed += 1
        }
    }
    print("\(target.name): \(replayed) inputs replayed, none crashed")
#endif
