import AdamantCLI
public import AdamantCore
public import AdamantNodes

/// The node health the last run measured, kept in the home directory, so a process started
/// for one push asks the best node at once (see `HealthSnapshot`). Bookkeeping only: a cache
/// that cannot be read or written is ignored.
public enum HealthCache {
    public static let fileName = "node-health.json"
    /// Older than this, it is measured again.
    public static let maximumAge: Duration = .seconds(600)
    static let maximumSize = 256 * 1024

    /// What is written: the snapshot, and the network rule it was measured under.
    struct File: Codable {
        var network: String
        var snapshot: HealthSnapshot
    }

    /// A pool for `list`, ranked as the last run found it when that is fresh and was measured
    /// for the same network rule.
    public static func pool(
        for list: NodeList, configuration: NodePool.Configuration = .init(), home: String?, clocks: Clocks
    ) -> NodePool {
        let pool = NodePool(nodes: list, configuration: configuration, clock: clocks.monotonic, wallClock: clocks.wall)
        guard let home, let data = try? SmallFile.read(atPath: home + "/" + fileName, limit: maximumSize),
            let file = try? JSONCoding.decode(File.self, from: data), file.network == network(of: pool),
            file.snapshot.isFresh(at: clocks.wall.unixMillis(), maximumAge: maximumAge)
        else { return pool }
        pool.adopt(file.snapshot)
        return pool
    }

    /// Keeps what `pool` measured in this process, if it measured anything, in an existing home.
    public static func save(_ pool: NodePool, home: String?) {
        guard let home, let snapshot = pool.healthSnapshot() else { return }
        guard SmallFile.exists(atPath: home),  // never creates the home
            let data = try? JSONCoding.encode(File(network: network(of: pool), snapshot: snapshot))
        else { return }
        SmallFile.replace(atPath: home + "/" + fileName, with: data)
    }

    /// The network rule, and the route: latencies through a proxy say nothing of the direct
    /// ones, nor the other way round.
    private static func network(of pool: NodePool) -> String {
        let rule =
            switch pool.nodes.nethash {
            case .pinned(let nethash): "pinned \(nethash)"
            case .majority: "majority"
            }
        let proxies = pool.route.proxies(for: pool.nodes).map(\.description).sorted()
        return proxies.isEmpty ? rule : "\(rule) via \(proxies.joined(separator: ", "))"
    }
}
