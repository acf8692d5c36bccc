public import AdamantCore

/// How the emulated adamant-ns applies registration signals.
public enum NSMode: String, Sendable, CaseIterable {
    /// As adamant-ns does (docs/node-api.md §4.2): each signal when the pool admits it, as its
    /// client socket hears it, and again each time a REST poll reads its block, a poll's batch
    /// newest first, with no deduplication.
    case replay
    /// Each signal once, in chain order, when a poll first reads its block: the corrected service.
    case ordered
}

/// A device adamant-ns stores, keyed by `deviceId` alone.
public struct NSDevice: Sendable, Hashable {
    /// The client's own id for the device; whoever names it can move or delete it.
    public let deviceId: String
    /// The account pushes go for: the sender of the last `add`.
    public let address: Address
    /// The push token the device registered.
    public let token: String
    /// `FCM` or `APNS`; only FCM devices are pushed to.
    public let provider: String
}

/// A push adamant-ns would hand to Firebase for one device.
public struct NSPush: Sendable, Hashable {
    /// The device as it was registered when the push went.
    public let device: NSDevice
    /// The transfer or message the push is for.
    public let transactionID: TransactionID
    /// The FCM HTTP v1 message as JSON text: `{"message":{"token","notification","data"}}`.
    public let message: String
}

/// The TypeScript notification service (adamant-ns) as seen from the chain: it hears signals at
/// admission and by REST polls, keeps a device registry, and records one push per FCM device for
/// every confirmed transfer or chat message to the device's address. Pure state, driven by the
/// caller.
struct NSEmulator: Sendable {
    let account: DevnetAccount
    var mode: NSMode
    private(set) var devices: [NSDevice] = []
    private(set) var pushes: [NSPush] = []
    /// How many chain transactions earlier polls had in reach; `ordered` reads from here.
    private var cursor = 0
    /// The service's unique index on (transaction, device): a transaction read again pushes no more.
    private var notified: Set<[String]> = []
    /// The signals already in the signal log (`NSSignalLog`): a signal is heard again at every
    /// poll that reads its block, and is judged the same each time.
    private var logged: Set<TransactionID> = []
    private let keyPair: KeyPair
    private let profile: NodeProfile

    init(account: DevnetAccount, mode: NSMode, version: NodeVersion, nethash: String) {
        self.account = account
        self.mode = mode
        keyPair = account.keyPair
        profile = NodeProfile(version: version, nethash: nethash)
    }

    /// What the client socket hears as the pool admits: the signals to the service, in `replay`.
    mutating func admitted(_ transactions: [Transaction]) -> [String] {
        guard mode == .replay else { return [] }
        return transactions.filter(isSignalToService).flatMap { handle($0, ledger: nil) }
    }

    /// One REST poll. `replay` reads as the service does, `GET /api/transactions` with
    /// `fromHeight` = the height now (inclusive), `orderBy=timestamp:desc`, `limit=100`: the tip
    /// block, read again by every poll until the next block, and a block that was never the tip
    /// at a poll is never read. `ordered` reads every transaction since its last poll, once.
    mutating func poll(_ ledger: Ledger) -> [String] {
        let batch: [Transaction]
        switch mode {
        case .replay:
            // Newest first, ties in chain order reversed, as the node's list sorts them.
            batch = ledger.chain.filter { ($0.height ?? 0) >= ledger.height }.enumerated()
                .sorted { ($0.element.timestamp, $0.offset) > ($1.element.timestamp, $1.offset) }
                .prefix(100).map(\.element)
        case .ordered:
            batch = Array(ledger.chain[cursor...])
        }
        cursor = ledger.chain.count
        return batch.flatMap { handle($0, ledger: ledger) }
    }

    private func isSignalToService(_ transaction: Transaction) -> Bool {
        transaction.type == .chat && transaction.chat?.type == .signal && transaction.recipientId == account.address
    }

    /// A signal to the service changes the registry; any other transfer or chat, signals to
    /// others included (the service's `isChatMessage` is any type 8), may push.
    private mutating func handle(_ transaction: Transaction, ledger: Ledger?) -> [String] {
        if isSignalToService(transaction) {
            let verdict = payload(of: transaction)
            if NSSignalLog.path != nil, logged.insert(transaction.id!).inserted {
                switch verdict {
                case .success(let payload): NSSignalLog.append(transaction, service: account, applied: payload.action)
                case .failure(let reason): NSSignalLog.append(transaction, service: account, dropped: reason.text)
                }
            }
            switch verdict {
            case .success(let payload): return [apply(payload, from: transaction.senderPublicKey.address)]
            case .failure(let reason): return ["NS dropped \(transaction.id!): \(reason.text)"]
            }
        }
        guard let ledger, transaction.type == .transfer || transaction.type == .chat else { return [] }
        return notify(transaction, ledger)
    }

    private mutating func apply(_ payload: Payload, from sender: Address) -> String {
        let index = devices.firstIndex { $0.deviceId == payload.deviceId }
        guard payload.action == "add" else {
            guard let index else { return "NS remove \(payload.deviceId) for \(sender): unknown device" }
            devices.remove(at: index)
            return "NS remove \(payload.deviceId) for \(sender)"
        }
        let device = NSDevice(
            deviceId: payload.deviceId, address: sender, token: payload.token, provider: payload.provider)
        if let index { devices[index] = device } else { devices.append(device) }
        return "NS add \(payload.deviceId) \(payload.token) for \(sender)"
    }

    private mutating func notify(_ transaction: Transaction, _ ledger: Ledger) -> [String] {
        let id = transaction.id!
        var log = [String]()
        for device in devices where device.address == transaction.recipientId && device.provider == "FCM" {
            guard notified.insert([id.description, device.deviceId]).inserted else { continue }
            let txn = TransactionJSON(profile: profile, ledger: ledger).confirmed(transaction, includeAsset: true)
            pushes.append(
                NSPush(device: device, transactionID: id, message: FCMMessage.text(transaction, txn: txn, to: device)))
            log.append("NS push \(id) to \(device.address) (\(device.deviceId): FCM \(device.token))")
        }
        return log
    }

    /// `{deviceId, token, provider, action}`, each a string, provider `FCM` or `APNS`, action
    /// `add` or `remove` (the service's zod schema); other keys are ignored.
    private struct Payload {
        let deviceId: String, token: String, provider: String, action: String
    }

    private struct Dropped: Error {
        let text: String
    }

    private func payload(of transaction: Transaction) -> Result<Payload, Dropped> {
        guard let plaintext = try? transaction.decryptMessage(with: keyPair, partner: transaction.senderPublicKey)
        else { return .failure(Dropped(text: "cannot decrypt")) }
        guard let json = JSONValue(parsing: plaintext), case .object = json else {
            return .failure(Dropped(text: "not a JSON object"))
        }
        var fields = [String]()
        for key in ["deviceId", "token", "provider", "action"] {
            guard let value = json[key]?.string else { return .failure(Dropped(text: "\(key) is not a string")) }
            fields.append(value)
        }
        guard ["FCM", "APNS"].contains(fields[2]) else { return .failure(Dropped(text: "provider \(fields[2])")) }
        guard ["add", "remove"].contains(fields[3]) else { return .failure(Dropped(text: "action \(fields[3])")) }
        return .success(Payload(deviceId: fields[0], token: fields[1], provider: fields[2], action: fields[3]))
    }
}
