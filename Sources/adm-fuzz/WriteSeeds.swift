import Foundation

/// Replaces the files of `directory` with `seeds`, named as Fuzz/make_corpus.py names them.
/// Only plain files are removed, so a mistyped directory loses no tree.
func writeSeeds(_ seeds: [Seed], to directory: String) {
    let files = FileManager.default
    for name in (try? files.contentsOfDirectory(atPath: directory)) ?? [] {
        var info = stat()
        if lstat("\(directory)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            unlink("\(directory)/\(name)")
        }
    }
    do { try files.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
        FileHandle.standardError.write(Data("adm-fuzz: cannot make \(directory): \(error)\n".utf8))
        exit(73)
    }
    var used = Set<String>()
    for seed in seeds {
        let words = seed.name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : " " }
        let stem = String(String(words).split(separator: " ").joined(separator: "-").prefix(60))
        var name = stem.isEmpty ? "seed" : stem
        var copy = 1
        while used.contains(name) {
            copy += 1
            name = "\(stem)-\(copy)"
        }
        used.insert(name)
        guard files.createFile(atPath: "\(directory)/\(name)", contents: Data(seed.bytes)) else {
            FileHandle.standardError.write(Data("adm-fuzz: cannot write \(directory)/\(name)\n".utf8))
            exit(74)
        }
    }
    print("\(directory): \(seeds.count) seeds")
}
