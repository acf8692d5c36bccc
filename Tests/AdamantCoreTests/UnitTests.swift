import AdamantCore
import Foundation
import Testing

@Suite("Passphrases")
struct PassphraseTests {
    /// The embedded list is the published one, and the same file the Python cross-check reads.
    @Test func theWordListIsTheStandardOne() throws {
        let embedded = Array(BIP39.wordList.map { $0 + "\n" }.joined().utf8)
        #expect(
            Hex.encode(Digest.sha256(embedded)) == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
        #expect(try Data(contentsOf: Vectors.folder.appendingPathComponent("bip39-english.txt")) == Data(embedded))
    }

    /// The reference BIP39 vector ("abandon" × 11 + "about", empty extra password).
    @Test func seedMatchesTheBIP39ReferenceVector() throws {
        let passphrase = try Passphrase(validating: String(repeating: "abandon ", count: 11) + "about")
        passphrase.withSeed {
            #expect(
                Hex.encode($0)
                    == "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"
            )
        }
    }

    @Test func generatedPhrasesAreValidAndDistinct() throws {
        let phrases = (0..<200).map { _ in BIP39.randomMnemonic() }
        for phrase in phrases { _ = try Passphrase(validating: phrase) }
        #expect(Set(phrases).count == phrases.count)
    }

    @Test func secretsNeverPrint() throws {
        let passphrase = try Passphrase(
            validating: "wrap track hamster grocery casual talk theory half artist toast art essence")
        let keys = KeyPair(passphrase: passphrase)
        for text in [
            "\(passphrase)", String(reflecting: passphrase), "\(keys.secretKey)", String(reflecting: keys.secretKey),
        ] {
            #expect(!text.contains("wrap") && !text.contains("24a26e6c") && text.contains("redacted"))
        }
    }

    @Test func validationZeroesTheCallersBytes() throws {
        var bytes = Array("wrap track hamster grocery casual talk theory half artist toast art essence".utf8)
        _ = try Passphrase(validating: &bytes)
        #expect(bytes.allSatisfy { $0 == 0 })
        var bad = Array("wrap track".utf8)
        #expect(throws: PassphraseError.wrongWordCount(2)) { try Passphrase(validating: &bad) }
        #expect(bad.allSatisfy { $0 == 0 }, "wiped on failure too")
    }

    /// A suggestion for a typo is the real secret word, so no error names any word at all.
    @Test func messagesNeverNameAWordNotEvenACorrectedOne() throws {
        let typo = "wrap track hamstr grocery casual talk theory half artist toast art essence"
        let error = try #require(throws: PassphraseError.self) { try Passphrase(validating: typo) }
        #expect(error == .unknownWord(position: 3))
        #expect(
            error.description
                == "word 3 of the passphrase is not in the BIP39 English list: check its spelling (lowercase a-z)")
        for word in typo.split(separator: " ").map(String.init) + ["hamster"] {
            #expect(!error.description.contains(word), "names \(word)")
        }
    }

    /// Tools that never checked BIP39 still derive keys; NFKD is applied as everywhere else.
    @Test func unvalidatedTextStillDerivesKeys() {
        let composed = KeyPair(passphrase: Passphrase(unvalidated: "caf\u{e9} au lait"))
        let decomposed = KeyPair(passphrase: Passphrase(unvalidated: "cafe\u{301} au lait"))
        #expect(composed.publicKey == decomposed.publicKey)
        // Compatibility forms too (the K of NFKD): a ligature and full-width letters.
        let compatible = KeyPair(passphrase: Passphrase(unvalidated: "\u{FB01}x \u{FF21}\u{FF22}"))
        let plain = KeyPair(passphrase: Passphrase(unvalidated: "fix AB"))
        #expect(compatible.publicKey == plain.publicKey)
        #expect(composed.publicKey != KeyPair(passphrase: Passphrase(unvalidated: "cafe au lait")).publicKey)
    }

    /// Words typed apart, as a passphrase is, are withheld wherever they stand; words run into
    /// a path or an identifier are not. A UUID's hex often spells one ('2FEE5CE5' holds
    /// 'fee'), and 'adm-push' holds 'push': a CI run once withheld such a path from an error.
    @Test(arguments: [
        (["wrap track"], true), (["wrap", "track"], true), (["--passphrase-file=wrap track"], true),
        (["wrap,track"], true), (["Wrap\nTrack."], true), (["\"wrap\" \"track\""], true),
        (["extra"], false), (["extra", "nodes"], false),
        (["/tmp/adm-push-cli-2FEE5CE5-0D2B/80ACE579-0E0E"], false), (["/home/alice/wallet/secret"], false),
        (["push-fee"], false), (["push_fee.txt"], false),
    ])
    func wordsThatMayBeAPassphraseAreTheOnesTypedApart(texts: [String], withheld: Bool) {
        #expect(BIP39.mayHoldAPassphrase(texts) == withheld)
        #expect((texts[0].quoted == "(withheld: resembles a passphrase)") == (withheld && texts.count == 1))
    }
}

@Suite("Trimming")
struct TrimmingTests {
    /// Spaces and tabs go, including Unicode space separators; line breaks stay.
    @Test(arguments: [
        ("  node  ", "node"), ("\t\u{A0}a b\u{2003} ", "a b"), ("\nx\n", "\nx\n"), (" \t ", ""), ("", ""),
    ])
    func trimsSpacesAndTabsOnly(_ text: String, _ trimmed: String) {
        #expect(text.trimmingSpaces == trimmed)
    }
}

@Suite("Addresses, ids and hex")
struct EncodingTests {
    @Test(arguments: [
        ("U1", UInt64(1)), ("U18446744073709551615", .max), ("U10629337621822775991", 10_629_337_621_822_775_991),
    ])
    func addressesParse(_ text: String, _ number: UInt64) throws {
        #expect(try Address(text).number == number)
        #expect(Address(number: number).description == text)
    }

    /// iOS's "public key 0" test: hex "0" decodes to nothing, so this is SHA-256 of no bytes.
    @Test func addressOfTheEmptyKeyMatchesIOS() {
        let digest = Digest.sha256([])
        let number = (0..<8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(digest[$1]) }
        #expect(Address(number: number).description == "U1449310910991872227")
    }

    @Test func idsAreCanonicalDecimals() {
        #expect(TransactionID("12154642911137703318")?.number == 12_154_642_911_137_703_318)
        for bad in ["", "0123", "-1", "18446744073709551616", "1e5", " 1"] {
            #expect(TransactionID(bad) == nil, "\(bad)")
        }
    }

    @Test func hexIsStrict() {
        #expect(Hex.decode("00ff7a") == [0, 255, 122])
        #expect(Hex.encode([0, 255, 122]) == "00ff7a")
        for bad in ["0", "FF", "0g", "0x00", " 00"] { #expect(Hex.decode(bad) == nil, "\(bad)") }
    }
}

@Suite("Amounts and fees")
struct AmountTests {
    @Test(arguments: [
        ("0", Int64(0)), ("1", 100_000_000), ("0.49", 49_000_000), ("0.00000001", 1),
        ("98000000", 9_800_000_000_000_000),
    ])
    func amountsParseAndPrint(_ text: String, _ units: Int64) throws {
        #expect(try ADMAmount(text).units == units)
        #expect(ADMAmount(units: units).description == text)
    }

    /// docs/protocol.md §5.1: 0.001 ADM up to 764 ciphertext bytes, 0.002 up to 1147, 0.026 for
    /// the maximum.
    @Test(arguments: [
        (1, Int64(100_000)), (764, 100_000), (765, 200_000), (1147, 200_000), (1148, 300_000), (10_240, 2_600_000),
    ])
    func messageFees(_ ciphertext: Int, _ fee: Int64) {
        #expect(Fee.message(ciphertextLength: ciphertext) == fee)
        #expect(Fee.message(ciphertextLength: ciphertext, type: .legacy) == fee * 5)
    }
}

@Suite("Time")
struct TimeTests {
    @Test func epochAndKnownDate() {
        #expect(AdamantTime.timestamp(unixMillis: 1_504_371_600_000) == 0)
        #expect(AdamantTime.timestamp(unixMillis: 1_613_606_400_000) == 109_234_800)  // 2021-02-18T00:00Z
        #expect(AdamantTime.timestamp(unixMillis: 1_504_371_599_999) == -1, "rounds down, not toward zero")
    }

    @Test func aNodeClockCorrectsAWrongLocalClock() throws {
        let nodeMillis: Int64 = 230_021_386_123
        let localUnix = AdamantTime.epochUnixMillis + nodeMillis + 120_000  // local clock 2 minutes fast
        let clock = try #require(
            NodeClock(localUnixMillis: localUnix, nodeTimestampMs: nodeMillis, nodeTimestamp: 230_021_386))
        let stamp = clock.stamp(localUnixMillis: localUnix)
        #expect(stamp.timestampMs == nodeMillis - 250)
        #expect(Int64(stamp.timestamp) == (nodeMillis - 250) / 1000)
        #expect(
            TimestampPolicy.v0_10.check(
                type: .chat, timestamp: Int64(stamp.timestamp), timestampMs: stamp.timestampMs,
                nowEpochMillis: nodeMillis) == nil)
    }

    /// What a hostile node reports as its clock (these trapped on overflow once) is no clock.
    @Test(
        arguments: [
            (Int64.max, Int64?.none), (9_300_000_000_000_000, nil), (-1, nil), (Int64(Int32.max) + 1, nil),
            (230_021_386, Int64.min), (230_021_386, Int64.max), (230_021_386, -1), (230_021_386, 1_000),
        ] as [(Int64, Int64?)])
    func anImpossibleNodeClockIsRefused(_ nodeTimestamp: Int64, _ nodeTimestampMs: Int64?) {
        let local = AdamantTime.epochUnixMillis + 230_021_386_000
        #expect(
            NodeClock(localUnixMillis: local, nodeTimestampMs: nodeTimestampMs, nodeTimestamp: nodeTimestamp) == nil)
        #expect(
            NodeClock(localUnixMillis: .min, nodeTimestampMs: 230_021_386_500, nodeTimestamp: 230_021_386) != nil,
            "saturates")
    }

    @Test func aTimestampsUnixTimeRoundTripsAndSaturates() {
        #expect(AdamantTime.unixMillis(timestamp: 0) == AdamantTime.epochUnixMillis)
        #expect(AdamantTime.timestamp(unixMillis: AdamantTime.unixMillis(timestamp: 23_284_514)) == 23_284_514)
        #expect(AdamantTime.unixMillis(timestamp: .max) == .max)
        #expect(AdamantTime.unixMillis(timestamp: .min) <= Int64.min + AdamantTime.epochUnixMillis)
    }

    /// Every stamp, however far the clocks are apart, is the whole seconds of its milliseconds,
    /// held to int32 at both ends.
    @Test func stampsSaturateInsteadOfTrapping() {
        for delta in [Int64.min, .max, 0] {
            for local in [Int64.min, .max, 0] {
                let stamp = NodeClock(deltaMillis: delta).stamp(localUnixMillis: local)
                let seconds = stamp.timestampMs / 1000 - (stamp.timestampMs % 1000 < 0 ? 1 : 0)
                #expect(Int64(stamp.timestamp) == min(max(seconds, Int64(Int32.min)), Int64(Int32.max)))
            }
        }
        #expect(NodeClock(deltaMillis: .min).stamp(localUnixMillis: .max).timestamp == .max)
        #expect(NodeClock(deltaMillis: .max).stamp(localUnixMillis: .min).timestamp == .min)
    }

    /// A submitted body can carry any integer: every policy answers, none traps.
    @Test(arguments: [TimestampPolicy.v0_9, .v0_10])
    func thePolicyIsDefinedForEveryInteger(_ policy: TimestampPolicy) {
        let extremes: [Int64] = [.min, -1, 0, 1_000_000, 10_000_000_000_000_000, .max]
        for timestamp in extremes {
            for millis in extremes.map(Optional.some) + [nil] {
                for now in extremes {
                    _ = policy.check(type: .chat, timestamp: timestamp, timestampMs: millis, nowEpochMillis: now)
                }
            }
        }
        #expect(policy.check(type: .chat, timestamp: .max, timestampMs: nil, nowEpochMillis: 1_000) == .inFuture)
    }

    /// 0.10: a later slot is refused only when more than 500 ms ahead; chats 5–10 s old at most.
    @Test func version010Windows() {
        let policy = TimestampPolicy.v0_10
        let now: Int64 = 1_000_004_900  // slot 200000, 4.9 s into it (ms since epoch)
        #expect(policy.check(type: .chat, timestamp: 1_000_005, timestampMs: 1_000_005_300, nowEpochMillis: now) == nil)
        #expect(
            policy.check(type: .chat, timestamp: 1_000_005, timestampMs: 1_000_005_401, nowEpochMillis: now)
                == .inFuture)
        #expect(policy.check(type: .chat, timestamp: 999_995, timestampMs: nil, nowEpochMillis: now) == nil)
        #expect(policy.check(type: .chat, timestamp: 999_994, timestampMs: nil, nowEpochMillis: now) == .tooOld)
        #expect(
            policy.check(type: .transfer, timestamp: 0, timestampMs: nil, nowEpochMillis: now) == nil,
            "no past window for transfers")
        #expect(
            TimestampPolicy.Rejection.tooOld.message(under: policy)
                == "Transaction timestamp is more than 5 seconds in the past")
    }

    @Test func version09RefusesAnyLaterSlotAndHasNoPastWindow() {
        let policy = TimestampPolicy.v0_9
        #expect(
            policy.check(type: .chat, timestamp: 1_000_005, timestampMs: nil, nowEpochMillis: 1_000_004_999)
                == .inFuture)
        #expect(policy.check(type: .chat, timestamp: 1_000_004, timestampMs: nil, nowEpochMillis: 1_000_000_000) == nil)
        #expect(policy.check(type: .chat, timestamp: 0, timestampMs: nil, nowEpochMillis: 1_000_000_000) == nil)
        #expect(
            TimestampPolicy.Rejection.inFuture.message(under: policy)
                == "Invalid transaction timestamp. Timestamp is in the future")
    }
}

@Suite("Signals")
struct SignalTests {
    @Test func theIOSServiceKeyHashesToItsAddress() {
        #expect(NotificationService.adamantIOS.address.description == "U10629337621822775991")
    }

    @Test func plaintextHasAFixedShape() throws {
        let signal = try PushSignal(
            token: String(repeating: "ab", count: 32), provider: .apnsSandbox, action: .remove, deviceId: "phone-1")
        #expect(
            signal.plaintext
                == #"{"token":"\#(String(repeating: "ab", count: 32))","provider":"apns-sandbox","action":"remove","deviceId":"phone-1"}"#
        )
    }

    /// The services lower-case provider and action and ignore key order and whitespace.
    @Test func parsingIsAsTolerantAsTheServices() throws {
        let token = String(repeating: "0f", count: 32)
        let signal = try PushSignal(plaintext: #" { "action": "ADD", "provider": "APNS", "token": "\#(token)" } "#)
        #expect(signal == (try PushSignal(token: token, provider: .apns, action: .add)))
        #expect(throws: SignalError.notASignal) {
            try PushSignal(plaintext: #"{"token":"\#(token)","provider":"apns"}"#)
        }
    }
}
