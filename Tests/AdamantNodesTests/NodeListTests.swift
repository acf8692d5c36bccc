import AdamantCore
@testable import AdamantNodes
import Foundation
import Testing

@Suite struct NodeListTests {
    let config = try! NodeConfigFile(path: "/cfg/config.json", contents: Array(#"{"nodes":["https://c.example"],"theme":"dark"}"#.utf8))

    @Test func argumentsWinOverEverything() throws {
        let list = try NodeList.resolve(arguments: ["https://a.example"], environment: ["ADM_NODES": "https://b.example"]) { config }
        #expect(list.endpoints.map(\.url.description) == ["https://a.example"])
        #expect(list.source == .arguments && list.nethash == .majority)
    }

    @Test func environmentThenConfigThenBuiltIn() throws {
        let env = try NodeList.resolve(arguments: [], environment: ["ADM_NODES": " https://b.example, ,http://10.0.0.1:36666,https://b.example/"]) { config }
        #expect(env.endpoints.map(\.url.description) == ["https://b.example", "http://10.0.0.1:36666"])
        #expect(env.source == .environment)

        let file = try NodeList.resolve(arguments: [], environment: [:]) { config }
        #expect(file.source == .configFile(path: "/cfg/config.json"))

        let builtIn = try NodeList.resolve(arguments: [], environment: [:])
        #expect(builtIn == .mainnet && builtIn.nethash == .pinned(.mainnet))
    }

    /// A variable that is set but names no node is a mistake (a script that failed to fill it
    /// in, say), never a reason to fall back to other nodes, least of all to mainnet.
    @Test func anEmptyADMNodesIsAnError() {
        for value in ["", "  ", " , "] {
            #expect(throws: NodeListError.noNodes(source: .environment)) {
                try NodeList.resolve(arguments: [], environment: ["ADM_NODES": value]) { config }
            }
        }
    }

    @Test func nethashPinning() throws {
        let pinnedConfig = try NodeConfigFile(path: "/c", contents: Array(#"{"nethash":"\#(String(repeating: "AB", count: 32))"}"#.utf8))
        let fromConfig = try NodeList.resolve(arguments: [], environment: [:]) { pinnedConfig }
        #expect(fromConfig.nethash == .pinned(Nethash(String(repeating: "ab", count: 32))!) && fromConfig.source == .builtIn)

        let fromFlag = try NodeList.resolve(arguments: [], nethash: Nethash.mainnet.hex, environment: [:]) { pinnedConfig }
        #expect(fromFlag.nethash == .pinned(.mainnet) && fromFlag.source == .builtIn)

        // The config file goes with its own nodes: --node follows the majority unless --nethash pins it.
        let arguments = try NodeList.resolve(arguments: ["https://a.example"], environment: [:]) { pinnedConfig }
        #expect(arguments.nethash == .majority)

        #expect(throws: NodeListError.invalidNethash("xyz")) { try NodeList.resolve(arguments: [], nethash: "xyz", environment: [:]) }
    }

    @Test func invalidURLNamesItsSource() {
        #expect {
            try NodeList.resolve(arguments: [], environment: ["ADM_NODES": "clown.adamant.im"])
        } throws: { error in
            (error as? NodeListError)?.description.hasSuffix("(from ADM_NODES)") == true
        }
    }

    /// `--node` or `ADM_NODES` given: the config file is never read, however large or broken.
    @Test func theConfigFileIsReadOnlyWhenNeeded() throws {
        let unreadable: () throws(NodeListError) -> NodeConfigFile? = { () throws(NodeListError) in
            throw .configFile(path: "/cfg/config.json", reason: "read although not needed")
        }
        #expect(try NodeList.resolve(arguments: ["https://a.example"], environment: [:], configFile: unreadable).source == .arguments)
        #expect(try NodeList.resolve(arguments: [], environment: ["ADM_NODES": "https://b.example"], configFile: unreadable).source == .environment)
        #expect(throws: NodeListError.configFile(path: "/cfg/config.json", reason: "read although not needed")) {
            try NodeList.resolve(arguments: [], environment: [:], configFile: unreadable)
        }
    }

    /// `{"nodes": []}` names no node: an error, like an empty ADM_NODES, never mainnet.
    @Test(arguments: [#"{"nodes":[]}"#, #"{"nodes":[" ",""]}"#])
    func aConfigFileWithNoNodesIsAnError(json: String) throws {
        let empty = try NodeConfigFile(path: "/cfg/config.json", contents: Array(json.utf8))
        #expect(throws: NodeListError.noNodes(source: .configFile(path: "/cfg/config.json"))) {
            try NodeList.resolve(arguments: [], environment: [:]) { empty }
        }
    }

    @Test func builtInListIsTheIOSDefaults() {
        #expect(NodeEndpoint.mainnet.count == 18)
        #expect(NodeEndpoint.mainnet.count { $0.alternate != nil } == 8)
        #expect(NodeEndpoint.mainnet[2] == NodeEndpoint(url: try! NodeURL("https://endless.adamant.im"), alternate: try! NodeURL("http://149.102.157.15:36666")))
    }

    @Test func configFilePath() {
        #expect(NodeConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/adm-push/config.json")
        #expect(NodeConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/adm-push/config.json")
        #expect(NodeConfigFile.defaultPath(environment: [:]) == nil)
    }

    @Test func configFileLoading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-nodes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.json").path

        #expect(try NodeConfigFile.load(path: path) == nil)
        try Data(#"{"nodes":["http://127.0.0.1:36666"]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try NodeConfigFile.load(path: path)?.nodes == ["http://127.0.0.1:36666"])
        try Data("nodes = [x]".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: NodeListError.self) { try NodeConfigFile.load(path: path) }
        #expect(try NodeConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path + "/nothing-here"]) == nil)
    }

    /// A 2 GiB file (sparse, so the test is cheap) is refused unread, as is anything but a
    /// regular file: a FIFO would block the read forever.
    @Test(.timeLimit(.minutes(1))) func theConfigFileIsCappedAndMustBeARegularFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adm-nodes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let huge = directory.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: huge, contents: Data(#"{"nodes":["http://127.0.0.1:1"]}"#.utf8)))
        #expect(truncate(huge, 2 << 30) == 0)
        #expect(throws: NodeListError.configFile(path: huge, reason: "is larger than 1 MiB; a node list is a few lines of JSON")) {
            try NodeConfigFile.load(path: huge)
        }

        let fifo = directory.appendingPathComponent("fifo.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: NodeListError.configFile(path: fifo, reason: "is not a regular file")) { try NodeConfigFile.load(path: fifo) }
        #expect(throws: NodeListError.configFile(path: directory.path, reason: "is not a regular file")) {
            try NodeConfigFile.load(path: directory.path)
        }
    }
}
