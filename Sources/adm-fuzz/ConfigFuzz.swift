import AdamantAccountCLI
import AdamantCLI
import AdamantCore
import AdamantFetch
import AdamantNodes

/// The config file's bytes (`$XDG_CONFIG_HOME/adm-push/config.json`): parsed and checked, then
/// resolved to a node list as a command without `--node` would, and to a home. A refusal is
/// one line, and a line it names is in the file.
enum ConfigFuzz {
    static func run(_ data: [UInt8]) {
        let file: ConfigFile
        do {
            file = try ConfigFile(path: "/fuzz/config.json", contents: data)
        } catch {
            invariant(!error.description.contains("\n"), "a config error of more than one line: \(error.description)")
            if case .malformed(let line?, let column?, _) = error.problem {
                let lines = data.count { $0 == UInt8(ascii: "\n") } + 1
                invariant((1...lines).contains(line) && column >= 1, "line \(line) of \(lines), column \(column)")
            }
            return
        }
        _ = "\(file.nodes ?? []) \(file.nethash ?? "") \(file.service?.address.description ?? "")"
        // A mute's end reads back as the moment it is, to the second, as `adm-push config` prints it.
        for case let until?? in (file.mute ?? [:]).values {
            invariant(
                UTCTime.unixMillis(UTCTime.text(unixMillis: until)) == until,
                "\(until) does not read back from \(UTCTime.text(unixMillis: until))")
        }
        _ = "\(file.quiet?.description ?? "") \(file.kinds?.sorted() ?? [])"
        // The proxy reads back as `adm-push config` prints it.
        if let route = file.proxy {
            invariant((try? NetworkRoute(setting: route.description)) == route, "proxy \(route) does not read back")
        }
        _ = try? file.homeDirectory(environment: ["HOME": "/home/fuzz"])
        do {
            let list = try NodeList.resolve(arguments: [], environment: [:], configFile: { file.nodeSettings })
            _ = list.endpoints.map(\.url.description)
        } catch {
            _ = error.description
        }
    }
}
