import AdamantCore
import Foundation
import Testing

@testable import AdamantNodes

@Suite struct NodeListTests {
    let config = NodeConfigFile(path: "/cfg/config.json", nodes: ["https://c.example"])

    @Test func argumentsWinOverEverything() throws {
        let list = try NodeList.resolve(
            arguments: ["https://a.example"], environment: ["ADM_NODES": "https://b.example"]
        ) { config }
        #expect(list.endpoints.map(\.url.description) == ["https://a.example"])
        #expect(list.source == .arguments && list.nethash == .majority)
    }

    @Test func environmentThenConfigThenBuiltIn() throws {
        let env = try NodeList.resolve(
            arguments: [], environment: ["ADM_NODES": " https://b.example, ,http://10.0.0.1:36666,https://b.example/"]
        ) { config }
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
        let pinnedConfig = NodeConfigFile(path: "/c", nethash: String(repeating: "AB", count: 32))
        let fromConfig = try NodeList.resolve(arguments: [], environment: [:]) { pinnedConfig }
        #expect(
            fromConfig.nethash == .pinned(Nethash(String(repeating: "ab", count: 32))!) && fromConfig.source == .builtIn
        )

        let fromFlag = try NodeList.resolve(arguments: [], nethash: Nethash.mainnet.hex, environment: [:]) {
            pinnedConfig
        }
        #expect(fromFlag.nethash == .pinned(.mainnet) && fromFlag.source == .builtIn)

        // The config file goes with its own nodes: --node follows the majority unless --nethash pins it.
        let arguments = try NodeList.resolve(arguments: ["https://a.example"], environment: [:]) { pinnedConfig }
        #expect(arguments.nethash == .majority)

        #expect(throws: NodeListError.invalidNethash("xyz")) {
            try NodeList.resolve(arguments: [], nethash: "xyz", environment: [:])
        }
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
        #expect(
            try NodeList.resolve(arguments: ["https://a.example"], environment: [:], configFile: unreadable).source
                == .arguments)
        #expect(
            try NodeList.resolve(arguments: [], environment: ["ADM_NODES": "https://b.example"], configFile: unreadable)
                .source == .environment)
        #expect(throws: NodeListError.configFile(path: "/cfg/config.json", reason: "read although not needed")) {
            try NodeList.resolve(arguments: [], environment: [:], configFile: unreadable)
        }
    }

    /// `{"nodes": []}` names no node: an error, like an empty ADM_NODES, never mainnet.
    @Test(arguments: [[], [" ", ""]])
    func aConfigFileWithNoNodesIsAnError(nodes: [String]) throws {
        let empty = NodeConfigFile(path: "/cfg/config.json", nodes: nodes)
        #expect(throws: NodeListError.noNodes(source: .configFile(path: "/cfg/config.json"))) {
            try NodeList.resolve(arguments: [], environment: [:]) { empty }
        }
    }

    @Test func builtInListIsTheIOSDefaults() {
        #expect(NodeEndpoint.mainnet.count == 18)
        #expect(NodeEndpoint.mainnet.count { $0.alternate != nil } == 8)
        #expect(
            NodeEndpoint.mainnet[2]
                == NodeEndpoint(
                    url: try! NodeURL("https://endless.adamant.im"),
                    alternate: try! NodeURL("http://149.102.157.15:36666")))
    }

    /// Version 3 onion names (56 base32 characters), plain HTTP: the onion service is the encryption.
    @Test func theOnionServicesAreVersion3Names() {
        #expect(NodeEndpoint.mainnetOnion.count == 5)
        for endpoint in NodeEndpoint.mainnetOnion {
            let host = endpoint.url.host
            #expect(endpoint.url.isOnion && endpoint.url.scheme == "http" && endpoint.alternate == nil)
            #expect(
                host.dropLast(".onion".count).count == 56
                    && host.dropLast(".onion".count).allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
        }
        #expect(Set(NodeEndpoint.mainnetOnion.map(\.url)).isDisjoint(with: NodeEndpoint.mainnet.map(\.url)))
    }
}
