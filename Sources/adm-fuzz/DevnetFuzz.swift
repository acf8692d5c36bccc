/// Placeholder until the devnet's request entry point is reachable.
enum DevnetFuzz {
    static func run(_ data: [UInt8]) {}
}
