public import AdamantCore
import Synchronization

/// What `Devnet.send` makes.
public enum DevnetMessageKind: String, Sendable, Hashable, CaseIterable {
    /// Chat type 1: text.
    case message
    /// Chat type 2: a JSON object (AIP-5), sent as given.
    case rich
    /// Chat type 3: a signal to a service (AIP-6).
    case signal
    /// ADM: type 0, or type 8 with the amount when there is a comment.
    case transfer
}

extension Devnet {
    /// Signs as `from` (a devnet account, or either service emulator) and puts the transaction through
    /// node admission into the pool, as if posted to a node; it lands in the next block.
    /// Chat kinds are encrypted to `to`'s public key, known from the chain or, for devnet
    /// accounts, from the devnet itself.
    /// - Throws: `DevnetError.rejected` with the node's error, or with what is wrong.
    @discardableResult
    public func send(
        from sender: Address, to recipient: Address, kind: DevnetMessageKind, message: String? = nil,
        amount: ADMAmount? = nil
    ) throws(DevnetError) -> TransactionID {
        let keyPair = try signer(sender)
        let stamp = self.stamp()
        let transaction: Transaction
        do {
            switch (kind, message) {
            case (.transfer, let message):
                guard let amount, amount.units > 0 else {
                    throw DevnetError.rejected("a transfer needs an amount above 0 ADM")
                }
                if let message, !message.isEmpty {
                    let asset = try chatKey(keyPair, recipient).seal(message, type: .message)
                    transaction = try .chat(
                        asset, amount: amount.units, to: recipient, timestamp: stamp.timestamp,
                        timestampMs: stamp.timestampMs, signedBy: keyPair)
                } else {
                    transaction = try .transfer(
                        amount: amount.units, to: recipient, timestamp: stamp.timestamp,
                        timestampMs: stamp.timestampMs, signedBy: keyPair)
                }
            case (_, nil):
                throw DevnetError.rejected("a \(kind.rawValue) needs a message")
            case (_, let text?):
                guard amount == nil else { throw DevnetError.rejected("only a transfer carries an amount") }
                let type: ChatType = kind == .rich ? .rich : kind == .signal ? .signal : .message
                let asset = try chatKey(keyPair, recipient).seal(text, type: type)
                transaction = try .chat(
                    asset, to: recipient, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
                    signedBy: keyPair)
            }
        } catch let error as DevnetError {
            throw error
        } catch {
            throw .rejected("\(error)")
        }
        return try admit(transaction)
    }

    /// Puts a signed `transaction` into the pool as a node that skips its own checks would:
    /// a lying node, which no client may trust, handing out what no honest node admits (a
    /// chat message beyond the schema's 20,480 hex characters). Only its signature and id
    /// must hold, as a client checks those; the sender pays its fee when it is forged.
    /// - Throws: `DevnetError.rejected` when the signature or the id does not hold.
    @discardableResult
    public func admitUnchecked(_ transaction: Transaction) throws(DevnetError) -> TransactionID {
        var admitted = transaction
        do {
            admitted.id = try transaction.verify()
            admitted.fee = try Fee.of(transaction)
        } catch {
            throw .rejected("\(error)")
        }
        let now = chain.clock.unixMillis()
        chain.ledger.withLock { $0.enqueue(admitted, nowUnixMillis: now) }
        chain.log?("control: admitted \(admitted.id!) unchecked, as a lying node would")
        chain.announceAdmissions()
        return admitted.id!
    }

    /// Stores `names` as `account`'s encrypted `contact_list` (AIP-7: `{"U…":{"displayName":…}}`),
    /// as the clients do, through node admission into the pool.
    @discardableResult
    public func storeContacts(of account: Address, names: [Address: String]) throws(DevnetError) -> TransactionID {
        let keyPair = try signer(account)
        let payload = Dictionary(uniqueKeysWithValues: names.map { ($0.key.description, ["displayName": $0.value]) })
        let stamp = self.stamp()
        do {
            let value = try KVSKey(keyPair: keyPair).seal(payload: payload)
            return try admit(
                try Transaction.state(
                    key: "contact_list", value: value, timestamp: stamp.timestamp, timestampMs: stamp.timestampMs,
                    signedBy: keyPair))
        } catch let error as DevnetError {
            throw error
        } catch {
            throw .rejected("\(error)")
        }
    }

    // MARK: Helpers

    private func signer(_ address: Address) throws(DevnetError) -> KeyPair {
        if ans.address == address { return ans.keyPair }
        if ns.address == address { return ns.keyPair }
        guard let funded = accounts.first(where: { $0.account.address == address }) else {
            throw .rejected("\(address) is not a devnet account (the devnet signs only for its own)")
        }
        return funded.account.keyPair
    }

    private func chatKey(_ keyPair: KeyPair, _ recipient: Address) throws -> ChatKey {
        let known =
            chain.ledger.withLock { $0.account(recipient)?.publicKey }
            ?? accounts.first { $0.account.address == recipient }?.account.publicKey
            ?? (ans.address == recipient ? ans.publicKey : nil)
            ?? (ns.address == recipient ? ns.publicKey : nil)
        guard let partner = known else {
            throw DevnetError.rejected("the public key of \(recipient) is unknown: it has sent no transaction yet")
        }
        return try ChatKey(secretKey: keyPair.secretKey, partner: partner)
    }

    /// Now on the devnet's clock; 0.10 nodes also get the milliseconds.
    private func stamp() -> (timestamp: Int32, timestampMs: Int64?) {
        let now = chain.clock.unixMillis()
        return (
            Int32(clamping: AdamantTime.timestamp(unixMillis: now)),
            nodeVersion.timestampPolicy == .v0_10 ? AdamantTime.epochMillis(unixMillis: now) : nil
        )
    }

    /// The node's own submit path (`Ledger.submit`), body and all.
    private func admit(_ transaction: Transaction) throws(DevnetError) -> TransactionID {
        let body: JSONValue
        do { body = try JSONValue.parse(try transaction.submissionBody()) } catch { throw .rejected("\(error)") }
        let now = chain.clock.unixMillis()
        do {
            let admitted = try chain.ledger.withLock { ledger throws(Rejection) in
                try ledger.submit(
                    body, version: nodeVersion, nowUnixMillis: now, needsRecipient: transaction.type != .state)
            }
            chain.log?(
                "control: accepted \(admitted.id!) (type \(admitted.type), from \(admitted.senderPublicKey.address))")
            chain.announceAdmissions()
            return admitted.id!
        } catch {
            throw .rejected(error.message)
        }
    }
}
