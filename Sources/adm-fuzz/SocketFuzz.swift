import AdamantCore
import AdamantNodes

/// A poll's answer from a node's socket, to a session that is live (so events are taken). What
/// the framing reads, written back, reads the same; a session never delivers what no
/// `newTrans` event in the answer carried, and ends on what it cannot take instead of trapping.
enum SocketFuzz {
    static let open = Array(#"0{"sid":"fuzz","upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#.utf8)

    static func run(_ data: [UInt8]) {
        // An answer of binary packets only holds none this client reads, and no body holds none.
        if let packets = try? EnginePacket.packets(inPollingBody: data), !packets.isEmpty {
            invariant(
                try! EnginePacket.packets(inPollingBody: EnginePacket.pollingBody(packets)) == packets,
                "packets read back differ")
        }

        var session = SocketSession(addresses: [], types: [0, 8], random: SeededGenerator(seed: 1))
        _ = session.start()
        _ = session.pollAnswered(epoch: 1, status: 200, body: open)
        _ = session.pollAnswered(epoch: 1, status: 200, body: Array("40".utf8))
        invariant(session.isLive, "the fixed handshake did not go live")
        let actions = session.pollAnswered(epoch: 1, status: 200, body: data)
        let delivered = actions.filter { if case .received = $0 { true } else { false } }.count
        invariant(
            delivered <= data.count / "42[\"newTrans\",{}]".utf8.count,
            "more transactions delivered than the answer can hold")
        let ended = actions.contains { if case .down = $0 { true } else { false } }
        let polled = actions.contains { if case .poll = $0 { true } else { false } }
        invariant(ended != polled, "a session must either poll again or end: \(actions)")
        invariant(ended == !session.isLive, "a session that ended is still live, or one that polls is not")

        // What the traffic hands on, of the answer read twice: only what verifies and is to
        // or from the account, once each, whatever the answer holds.
        let received = actions.compactMap { if case .received(let transaction) = $0 { transaction } else { nil } }
        guard let account = received.first?.recipientId else { return }
        var traffic = SocketTraffic(addresses: [account], window: .seconds(10), limit: 500)
        var taken: [TransactionID] = []
        for second in 0..<2 {
            let (handed, verdict) = traffic.answered(with: received, at: AnyClock.Instant(offset: .seconds(second)))
            taken += handed.map(\.1)
            for (transaction, id) in handed {
                invariant((try? transaction.verify()) == id, "a transaction handed on does not verify as its id")
                invariant(
                    transaction.recipientId == account || transaction.senderId == account,
                    "another account's transaction handed on")
            }
            if case .abandon = verdict { break }
        }
        invariant(Set(taken).count == taken.count, "a transaction handed on twice")
    }
}
