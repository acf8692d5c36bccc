#!/usr/bin/env python3
"""Writes the ADAMANT test vectors in Vectors/: keys, transactions, chat, signals, kvs, invalid.

Everything is deterministic. Passphrases come from fixed BIP39 entropy, nonces from SHA-256 of
a label, timestamps are constants, and Ed25519 signatures and NaCl boxes are deterministic, so
running this twice writes byte-identical files. Section numbers (§) refer to
docs/protocol.md. scripts/crosscheck.py re-derives every vector independently.

    python3 scripts/make_vectors.py
"""
import datetime
import hashlib
import json
import struct
import sys
import unicodedata
from pathlib import Path

from nacl import bindings as sodium

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Vectors"

EPOCH_UNIX = 1504371600              # §2: 2017-09-02 17:00:00 UTC
BASE_TIMESTAMP = 276_000_000         # ADAMANT seconds, mid-2026
TOTAL_SUPPLY = 9_800_000_000_000_000  # §5.2, in 1e-8 ADM
TRANSFER_FEE = 50_000_000            # §5.1
MAX_PLAINTEXT = 10_224               # §5.2: 10,240 ciphertext bytes minus the 16-byte tag
INT32_MAX = 2**31 - 1
ABSENT = object()                    # "leave this JSON key out", as opposed to null

ANS_ADDRESS = "U10629337621822775991"  # §7.3
ANS_PUBLIC_KEY = "188b24bd116a556ac8ba905bbbdaa16e237dfb14269f5a4f9a26be77537d977c"
NS_ADDRESS = "U922832474468487910"  # adamant-ns on mainnet (docs/node-api.md §4.2)
NS_PUBLIC_KEY = "e62976484f30862e26765ad98a5835fbccc43a50de59c56bd2e0b4989ee2e0af"
WORDLIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

WORKED_EXAMPLE = "wrap track hamster grocery casual talk theory half artist toast art essence"
PROCESS_GOSPEL = "process gospel angry height between flat always clock suit refuse shove verb"
BRING_HURRY = "bring hurry funny hamster fever observe cat property crawl mule course lizard"


# --- primitives -------------------------------------------------------------------------------

def sha256(data):
    return hashlib.sha256(data).digest()


def label_bytes(label, n):
    """n deterministic bytes named by a label: our stand-in for randomness."""
    return sha256(label.encode())[:n]


def nonce_for(name):
    return label_bytes("adm-push nonce " + name, 24)


def leading_u64(data):
    """First 8 bytes of SHA-256, little-endian: the address and id construction (§1.4, §4.4)."""
    return int.from_bytes(sha256(data)[:8], "little")


def address_of(public_key):
    return "U%d" % leading_u64(public_key)


def load_words():
    """The BIP39 English list shipped with the vectors; its hash pins it to the published file."""
    data = (ROOT / "Vectors" / "bip39-english.txt").read_bytes()
    if hashlib.sha256(data).hexdigest() != WORDLIST_SHA256:
        sys.exit("Vectors/bip39-english.txt is not the BIP39 English list")
    return data.decode().split("\n")[:-1]


WORDS = load_words()


def mnemonic(entropy):
    """BIP39: entropy bits, then len/32 checksum bits of SHA-256(entropy), 11 bits a word."""
    checksum_bits = len(entropy) * 8 // 32
    value = int.from_bytes(entropy, "big") << checksum_bits | sha256(entropy)[0] >> (8 - checksum_bits)
    count = (len(entropy) * 8 + checksum_bits) // 11
    return " ".join(WORDS[value >> (11 * (count - 1 - i)) & 2047] for i in range(count))


def passphrase_for(label):
    return mnemonic(label_bytes(label, 16))


# --- accounts (§1) ----------------------------------------------------------------------------

class Account:
    """A keypair and, when known, the passphrase it came from."""

    def __init__(self, public_key, secret_key, passphrase=None, seed=None):
        self.public_key, self.secret_key = public_key, secret_key
        self.passphrase, self.seed = passphrase, seed
        self.address = address_of(public_key)

    @classmethod
    def from_passphrase(cls, passphrase):
        password = unicodedata.normalize("NFKD", passphrase).encode()
        seed = hashlib.pbkdf2_hmac("sha512", password, b"mnemonic", 2048)
        public_key, secret_key = sodium.crypto_sign_seed_keypair(sha256(seed))
        return cls(public_key, secret_key, passphrase, seed)

    @classmethod
    def from_secret_key(cls, secret_key_hex):
        secret_key = bytes.fromhex(secret_key_hex)
        return cls(secret_key[32:], secret_key)


def generated(n):
    return Account.from_passphrase(passphrase_for("adm-push vector %d" % n))


# --- chat encryption (§6) ---------------------------------------------------------------------

def encrypt(plaintext, sender, recipient_public_key, nonce):
    """NaCl box over converted keys. PyNaCl returns tag || ciphertext: ADAMANT's layout."""
    data = plaintext if isinstance(plaintext, bytes) else plaintext.encode()
    return sodium.crypto_box(data, nonce,
                             sodium.crypto_sign_ed25519_pk_to_curve25519(recipient_public_key),
                             sodium.crypto_sign_ed25519_sk_to_curve25519(sender.secret_key))


def chat_asset(ciphertext, nonce, chat_type):
    return {"chat": {"message": ciphertext.hex(), "own_message": nonce.hex(), "type": chat_type}}


# --- transaction bytes, signature, id, fee (§4, §5) -------------------------------------------

def recipient_bytes(recipient_id):
    """The address number as 8 big-endian bytes; zeros when there is no recipient."""
    return int(recipient_id[1:]).to_bytes(8, "big") if recipient_id else bytes(8)


def asset_bytes(tx):
    """Type 8: message ‖ nonce (if any) ‖ chat type int32 LE. Type 9: UTF-8 value ‖ UTF-8 key (if any)
    ‖ state type int32 LE. Types 0 and 3 (no votes): nothing."""
    if tx["type"] == 9:
        state = tx["asset"]["state"]
        return state["value"].encode() + (state.get("key") or "").encode() + struct.pack("<i", state["type"])
    chat = (tx.get("asset") or {}).get("chat")
    if tx["type"] != 8 or chat is None:
        return b""
    return bytes.fromhex(chat["message"]) + bytes.fromhex(chat.get("own_message") or "") + \
        struct.pack("<i", chat["type"])


def unsigned_bytes(tx):
    return (bytes([tx["type"]]) + struct.pack("<i", tx["timestamp"]) + bytes.fromhex(tx["senderPublicKey"])
            + recipient_bytes(tx.get("recipientId")) + struct.pack("<q", tx["amount"]) + asset_bytes(tx))


def sign(unsigned, account):
    """Detached Ed25519 over SHA-256 of the bytes: the first 64 bytes of combined mode."""
    return sodium.crypto_sign(sha256(unsigned), account.secret_key)[:64]


def transaction_id(unsigned, signature):
    return str(leading_u64(unsigned + signature))


def node_hex_length(text):
    """len(Buffer.from(text, 'hex')) in Node: whole hex pairs, either case, up to the first bad one."""
    n = 0
    while 2 * n + 1 < len(text) and all(c in "0123456789abcdefABCDEF" for c in text[2 * n:2 * n + 2]):
        n += 1
    return n


def fee_of(tx):
    if tx["type"] == 9:  # §5.1: the chat formula over the Node-hex-decoded value
        return max(1, 2 * node_hex_length(tx["asset"]["state"]["value"]) // 765) * 100_000
    if tx["type"] == 0 or tx["amount"] > 0:
        return TRANSFER_FEE
    chat = tx["asset"]["chat"]
    units = max(1, 2 * (len(chat["message"]) // 2) // 765)  # floor(n·100/150/255), n = ciphertext bytes
    return units * (500_000 if chat["type"] == 0 else 100_000)


def signed_core(sender, tx_type, amount, recipient_id, timestamp, asset):
    """The submitted fields (§3.1), signed by `sender`."""
    tx = {"type": tx_type, "amount": amount, "senderId": sender.address,
          "senderPublicKey": sender.public_key.hex(), "recipientId": recipient_id,
          "timestamp": timestamp, "asset": asset}
    if recipient_id is None:
        del tx["recipientId"]
    tx["signature"] = sign(unsigned_bytes(tx), sender).hex()
    return tx


def id_of(tx):
    return transaction_id(unsigned_bytes(tx), bytes.fromhex(tx["signature"]))


# --- node JSON shapes (§3.3) ------------------------------------------------------------------

def block_facts(name, timestamp):
    """Plausible, deterministic block fields for a confirmed transaction."""
    h = sha256(("adm-push block " + name).encode())
    return {"height": 40_000_000 + int.from_bytes(h[:3], "little"),
            "blockId": str(int.from_bytes(h[8:16], "little")),
            "block_timestamp": min(timestamp + 1 + h[3] % 5, INT32_MAX),
            "confirmations": 1 + int.from_bytes(h[4:6], "little")}


def received_at(timestamp, ms):
    moment = datetime.datetime.fromtimestamp(EPOCH_UNIX + timestamp, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def node_json(core, shape, name, timestamp_ms=ABSENT, recipient_public_key=None, omit_asset=False):
    """Lays a signed transaction out as a node returns it, or as a client submits it.

    confirmed: /api/transactions/get; chats: /api/chats/get (adds the null multisig fields);
    pool: unconfirmed/queued; submit: a POST body (no id, no fee); signed: submit + id + fee.
    Only the signed fields matter to the bytes; the rest must simply decode.
    """
    if shape in ("confirmed", "chats"):
        return stored_json(core, name, shape == "chats", timestamp_ms, recipient_public_key)
    return submitted_json(core, shape, name, timestamp_ms, omit_asset)


def stored_json(core, name, from_chats_api, timestamp_ms, recipient_public_key):
    """A confirmed transaction, in the field order of the §3.3 example."""
    ts, block = core["timestamp"], block_facts(name, core["timestamp"])
    # v0.10 nodes report timestampMs on every stored transaction: null when none was sent.
    out = {"id": id_of(core), "height": block["height"], "blockId": block["blockId"], "type": core["type"],
           "block_timestamp": block["block_timestamp"], "timestamp": ts,
           "timestampMs": None if timestamp_ms is ABSENT else timestamp_ms,
           "senderPublicKey": core["senderPublicKey"]}
    if from_chats_api:
        out["requesterPublicKey"] = None
    out.update({"senderId": core["senderId"], "recipientId": core.get("recipientId"),
                "recipientPublicKey": recipient_public_key, "amount": core["amount"], "fee": fee_of(core),
                "signature": core["signature"]})
    if from_chats_api:
        out["signSignature"] = None
    out.update({"signatures": [], "confirmations": block["confirmations"], "asset": core["asset"]})
    return out


def submitted_json(core, shape, name, timestamp_ms, omit_asset):
    """A POST body, optionally with the id and fee a node adds, or as it sits in the pool."""
    ts = core["timestamp"]
    out = {k: core[k] for k in ("type", "amount", "senderId", "senderPublicKey", "recipientId") if k in core}
    out["timestamp"] = ts
    if timestamp_ms is not ABSENT:
        out["timestampMs"] = timestamp_ms
    if not omit_asset:
        out["asset"] = core["asset"]
    out["signature"] = core["signature"]
    if shape == "signed":
        out.update({"id": id_of(core), "fee": fee_of(core)})
    elif shape == "pool":
        ms = timestamp_ms if isinstance(timestamp_ms, int) else ts * 1000 + 250
        out.update({"id": id_of(core), "fee": fee_of(core), "relays": 1 + label_bytes(name, 1)[0] % 3,
                    "receivedAt": received_at(ts, ms), "blockId": None, "height": None, "confirmations": 0})
    return out


def ms_within(timestamp, name):
    """A timestampMs in the same second as timestamp (§2.3)."""
    return timestamp * 1000 + int.from_bytes(label_bytes("adm-push ms " + name, 2), "little") % 1000


def tx_vector(name, tx, signer=None):
    unsigned = unsigned_bytes(tx)
    vector = {"name": name, "transaction": tx, "bytes": unsigned.hex(), "hash": sha256(unsigned).hex(),
              "signature": tx["signature"], "id": id_of(tx), "fee": fee_of(tx)}
    if signer is not None and signer.passphrase:
        vector["passphrase"] = signer.passphrase
    return vector


# --- text fillers -----------------------------------------------------------------------------

LOREM = ("ADAMANT messages are end-to-end encrypted with NaCl box; the node only sees ciphertext. ")


def text_of_length(n, pattern=LOREM):
    """Exactly n UTF-8 bytes: `pattern` repeated, cut at a character boundary, padded with '.'."""
    chars, size = [], 0
    while True:
        for ch in pattern:
            width = len(ch.encode())
            if size + width > n:
                return "".join(chars) + "." * (n - size)
            chars.append(ch)
            size += width


def compact_json(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


# --- keys.json --------------------------------------------------------------------------------

def key_vectors():
    accounts = [Account.from_passphrase(p) for p in (WORKED_EXAMPLE, PROCESS_GOSPEL, BRING_HURRY)]
    accounts += [generated(n) for n in range(24)]
    assert accounts[0].address == "U6687642817984673870"
    return [{"passphrase": a.passphrase, "seed": a.seed.hex(), "publicKey": a.public_key.hex(),
             "privateKey": a.secret_key.hex(), "address": a.address} for a in accounts]


# --- transactions.json ------------------------------------------------------------------------

DOCS_TRANSFER = {
    "type": 0, "amount": 100000000, "senderId": "U14236667426471084862",
    "senderPublicKey": "8cd9631f9f634a361ea3b85cbd0df882633e39e7d26d7bc615bbcf75e41524ef",
    "recipientId": "U16655734187932477074", "timestamp": 63228852,
    "signature": "b3982d603be8f0246fa663e9f012bf28b198cd28f82473db1eb4a342d890f7a2"
                 "a2c1845db8d256bb5bce1e64a9425822a91e10bf960a2e0b55e20b4841e4ae0b"}
DOCS_CHAT = {
    "type": 8, "amount": 0, "senderId": "U13246415250845952364",
    "senderPublicKey": "a448d99d5da6907dd022c62723f30971f4c1b5b79441da7f5e67f39d545f755e",
    "asset": {"chat": {"message": "f96383619244c7e06f39f592b55cc551acc72710",
                       "own_message": "d0801b9a647fd1469883f918ec616241c79d6f6f7914ddb0", "type": 1}},
    "recipientId": "U15677078342684640219", "timestamp": 63652706,
    "signature": "9d35f06fa5b80df650bc4bdfac25974fecacb53de67d25b485f674102f77205a"
                 "c1e161b13ddad98f1dd7ae0016cceaa254f401c0ee359e45e982e32b1e4fcf0b"}
DOCS_CONFIRMED = {
    "id": "12154642911137703318", "height": 3245671, "blockId": "13885000778367150465", "type": 8,
    "block_timestamp": 23284520, "timestamp": 23284514,
    "senderPublicKey": "cdab95b082b9774bd975677c868261618c7ce7bea97d02e0f56d483e30c077b6",
    "senderId": "U15423595369615486571", "recipientId": "U12777528161244463452",
    "recipientPublicKey": "738a15db24bd055d65a449dee27508708a2c6b8457c3033fb5f389ac0e3b4c9e",
    "amount": 0, "fee": 100000,
    "signature": "8c846fbd41b84635283096bb5833745886760776a433bb050505aaf045efb0f9"
                 "7ce69cd9f108dc4e58392bb507848e1e75d6ea203e7c7904881c44d0f61e2901",
    "signatures": [], "confirmations": 8001268,
    "asset": {"chat": {"message": "6ef39d1034b368bd731c7bcbaa820f0e501bbfb1d1b15e2ffa4bd8421836fe87be10e32342e183d3",
                       "own_message": "a23419efa40a9e340741325d0f5db508959c330af51e37fe", "type": 1}}}


# Adamant-im/docs api-endpoints/kvs.md: a /api/states/get answer and a /api/states/store body.
DOCS_STATE_LISTED = {
    "id": "13920471299012339255", "height": 6361977, "blockId": "14557933175886918347", "type": 9,
    "block_timestamp": 39015790, "timestamp": 39015780, "timestampMs": None,
    "senderPublicKey": "8cd9631f9f634a361ea3b85cbd0df882633e39e7d26d7bc615bbcf75e41524ef",
    "requesterPublicKey": None, "senderId": "U14236667426471084862", "recipientId": None,
    "recipientPublicKey": None, "amount": 0, "fee": 100000,
    "signature": "56ac1fe17631e16197cd76398f300ab331a79469af18403d0b0f22156d03843b"
                 "f2917f46e368d72dd91962eaacc91736e2f696d41738d6b573f92bdcaf335505",
    "signSignature": None, "signatures": [], "confirmations": None,
    "asset": {"state": {"value": "0x84609a38fedbcd02b657233340e6a8cb09db61a8", "key": "eth:address", "type": 0}}}
DOCS_STATE_STORED = {
    "type": 9, "amount": 0, "senderId": "U13670390070364760381",
    "senderPublicKey": "2640b667910a362a0fac4ca3b54b90052086b63e603c4df8758b6713e70e61a2",
    "asset": {"state": {"key": "eth:address", "value": "0x00777c36204bca77569ce5ed4233d91ea92a170b", "type": 0}},
    "timestamp": 63410860, "timestampMs": None,
    "signature": "bce364378b145e79909c31bc3a77cd3b70dff8f0d410f8c791642b826bc193fa"
                 "59c154e71639d82f5b8f6ef82dc92e8f7fcb9086bb03d0f78a3d50c46b268606"}


def docs_vectors():
    """The five real transactions of §3.1, §3.3 and the KVS docs; their ids are known, so check them."""
    out = []
    for name, tx, expected in (("docs transfer (§3.1)", DOCS_TRANSFER, "6146865104403680934"),
                               ("docs chat (§3.1)", DOCS_CHAT, "2515012750420367858"),
                               ("docs confirmed chat (§3.3)", DOCS_CONFIRMED, "12154642911137703318"),
                               ("docs KVS state from /api/states/get", DOCS_STATE_LISTED, "13920471299012339255"),
                               ("docs KVS state posted to /api/states/store", DOCS_STATE_STORED,
                                "3888802408802922744")):
        assert id_of(tx) == expected, name
        out.append(tx_vector(name, tx))
    return out


class TxFactory:
    """Builds generated transaction vectors; timestamps advance with each one.

    `ms` is the timestampMs to show: ABSENT (no key; null on stored shapes), None (null),
    True (a value in the same second as the timestamp) or an exact integer.
    """

    def __init__(self):
        self.next_timestamp = BASE_TIMESTAMP
        self.vectors = []

    def timestamp(self, given):
        if given is not None:
            return given
        self.next_timestamp += 37
        return self.next_timestamp

    def transfer(self, name, sender, recipient, amount, shape, timestamp=None, ms=ABSENT, omit_asset=False):
        """Type 0. `recipient` is an Account or a bare address (an account nobody knows)."""
        ts = self.timestamp(timestamp)
        address, public_key = _recipient(recipient)
        core = signed_core(sender, 0, amount, address, ts, {})
        ms = ms_within(ts, name) if ms is True else ms
        tx = node_json(core, shape, name, ms, public_key, omit_asset)
        self.vectors.append(tx_vector(name, tx, sender))
        return self.vectors[-1]

    def chat(self, name, sender, recipient, plaintext, shape, chat_type=1, amount=0, timestamp=None, ms=ABSENT):
        """Type 8: `plaintext` boxed to the recipient under the nonce named by `name`."""
        ts = self.timestamp(timestamp)
        nonce = nonce_for(name)
        asset = chat_asset(encrypt(plaintext, sender, recipient.public_key, nonce), nonce, chat_type)
        core = signed_core(sender, 8, amount, recipient.address, ts, asset)
        ms = ms_within(ts, name) if ms is True else ms
        tx = node_json(core, shape, name, ms, recipient.public_key.hex())
        vector = tx_vector(name, tx, sender)
        vector.update({"plaintext": plaintext, "recipientPassphrase": recipient.passphrase})
        self.vectors.append(vector)
        return vector


    def state(self, name, sender, key, value, shape, state_type=0, timestamp=None, ms=ABSENT):
        """Type 9: `value` stored under `key`; no recipient, no amount."""
        ts = self.timestamp(timestamp)
        core = signed_core(sender, 9, 0, None, ts, {"state": {"key": key, "value": value, "type": state_type}})
        ms = ms_within(ts, name) if ms is True else ms
        tx = node_json(core, shape, name, ms, None)
        self.vectors.append(tx_vector(name, tx, sender))
        return self.vectors[-1]


def _recipient(recipient):
    if isinstance(recipient, str):
        return recipient, None
    return recipient.address, recipient.public_key.hex()


def transfer_vectors(f, a):
    f.transfer("transfer 1 unit", a[3], a[4], 1, "confirmed", ms=None)
    f.transfer("transfer 1 ADM", a[4], a[5], 100_000_000, "submit")
    f.transfer("transfer total supply", a[5], a[6], TOTAL_SUPPLY, "pool", ms=True)
    f.transfer("transfer odd 123456789", a[6], a[7], 123_456_789, "chats")
    f.transfer("transfer 2^32+1 units (high amount bytes)", a[7], a[8], 2**32 + 1, "submit", omit_asset=True)
    f.transfer("transfer 3 units", a[8], a[3], 3, "confirmed", ms=True)
    f.transfer("transfer 98765432109 units", a[9], a[10], 98_765_432_109, "pool")
    f.transfer("transfer 0.49 ADM", a[0], a[1], 49_000_000, "confirmed", ms=True)
    f.transfer("transfer to U1", a[10], "U1", 50_000_000, "confirmed", ms=None)
    f.transfer("transfer to U123456", a[11], "U123456", 1_000_000_000, "pool")
    f.transfer("transfer to U18446744073709551615", a[12], "U18446744073709551615", 7, "confirmed")
    f.transfer("transfer to U9", a[12], "U9", 99_999_999, "submit", omit_asset=True)
    f.transfer("transfer timestamp 0", a[13], a[14], 100_000_000, "submit", timestamp=0)
    f.transfer("transfer timestamp 0 with timestampMs 999", a[13], a[14], 5, "submit", timestamp=0, ms=999)
    f.transfer("transfer timestamp int32 max", a[14], a[15], 250_000_000, "confirmed",
               timestamp=INT32_MAX, ms=INT32_MAX * 1000 + 999)
    f.transfer("transfer with timestampMs", a[15], a[16], 12_345, "submit", ms=True)


def message_vectors(f, a):
    f.chat("chat ascii", a[3], a[4], "Hello, ADAMANT!", "confirmed", ms=None)
    f.chat("chat empty plaintext", a[4], a[5], "", "submit")
    f.chat("chat one byte", a[5], a[6], "a", "pool")
    f.chat("chat multi-line", a[6], a[7], "line one\nline two\r\n\tindented\n", "chats")
    f.chat("chat markdown", a[7], a[8], "**bold** _italic_ `code` [link](https://adamant.im)", "confirmed", ms=True)
    f.chat("chat cyrillic", a[8], a[9], "Привет! Как дела? Ёжик в тумане.", "chats")
    f.chat("chat cjk and rtl", a[9], a[10], "你好，世界 · こんにちは · مرحبا بالعالم", "confirmed")
    f.chat("chat emoji", a[10], a[11], "👍🏽🚀 family: 👨‍👩‍👧‍👦 flag: 🇪🇪", "pool", ms=True)
    f.chat("chat not normalized (e + combining acute)", a[11], a[12], "cafe\u0301 vs caf\u00e9", "submit")
    f.chat("chat 747 bytes (fee 1 unit)", a[12], a[13], text_of_length(747), "confirmed")
    f.chat("chat 748 bytes (last 1-unit size)", a[13], a[14], text_of_length(748), "submit")
    f.chat("chat 749 bytes (fee 2 units)", a[14], a[15], text_of_length(749), "chats")
    f.chat("chat 1131 bytes (last 2-unit size)", a[15], a[16], text_of_length(1131), "pool")
    f.chat("chat 1132 bytes (fee 3 units)", a[16], a[17], text_of_length(1132), "submit")
    f.chat("chat 5000 bytes", a[17], a[18], text_of_length(5000), "confirmed", ms=True)
    f.chat("chat 3001 bytes of cyrillic", a[18], a[19], text_of_length(3001, "Съешь же ещё этих мягких булок. "),
           "chats")
    f.chat("chat 10224 bytes (maximum)", a[19], a[20], text_of_length(MAX_PLAINTEXT), "submit")
    f.chat("chat 10224 bytes with emoji (maximum)", a[20], a[21],
           text_of_length(MAX_PLAINTEXT, "emoji 😀 ok ✓ "), "confirmed")
    f.chat("chat timestamp 0", a[21], a[22], "from the epoch", "submit", timestamp=0)
    f.chat("chat worked-example account to process gospel", a[0], a[1], "common ground", "chats", ms=None)
    f.chat("chat to self", a[22], a[22], "note to self", "confirmed")
    f.chat("legacy chat type 0", a[3], a[5], "123412341234", "confirmed", chat_type=0)
    f.chat("legacy chat type 0, 749 bytes (2 units)", a[4], a[6], text_of_length(749), "chats", chat_type=0)


def rich_vectors(f, a):
    eth = {"type": "eth_transaction", "amount": "0.002",
           "hash": "0x" + label_bytes("adm-push eth hash", 32).hex(), "comments": "hi"}
    btc = {"type": "btc_transaction", "amount": "0.00012", "hash": label_bytes("adm-push btc hash", 32).hex(),
           "comments": "", "text_fallback": "Sent 0.00012 BTC"}
    f.chat("rich eth transfer", a[5], a[7], compact_json(eth), "confirmed", chat_type=2)
    f.chat("rich btc transfer with text_fallback", a[6], a[8], compact_json(btc), "chats", chat_type=2)
    f.chat("rich reply", a[7], a[9], compact_json({"replyto_id": "123", "reply_message": "ok"}), "pool",
           chat_type=2)
    reply_transfer = {"replyto_id": "12154642911137703318", "reply_message": eth}
    f.chat("rich reply carrying an eth transfer", a[8], a[10], compact_json(reply_transfer), "submit", chat_type=2)
    f.chat("rich reaction", a[9], a[11], compact_json({"reactto_id": "6146865104403680934", "react_message": "👍"}),
           "confirmed", chat_type=2, ms=True)
    f.chat("rich pretty-printed json", a[10], a[12], json.dumps(eth, indent=2), "chats", chat_type=2)


def in_chat_transfer_vectors(f, a):
    f.chat("in-chat transfer 1 ADM with comment", a[11], a[13], "for coffee ☕", "confirmed", amount=100_000_000)
    f.chat("in-chat transfer 1 unit", a[12], a[14], "dust", "submit", amount=1)
    f.chat("in-chat transfer, 5000-byte comment (flat fee)", a[13], a[15], text_of_length(5000), "pool",
           amount=250_000_000)
    f.chat("in-chat transfer as a reply (chat type 2)", a[14], a[16],
           compact_json({"replyto_id": "2515012750420367858", "reply_message": "thanks!"}), "chats",
           chat_type=2, amount=42_000_000)
    f.chat("in-chat transfer of the total supply", a[15], a[17], "everything", "submit", amount=TOTAL_SUPPLY)


def signal_in_transactions(f, a, service):
    token = label_bytes("adm-push apns token tx", 32).hex()
    f.chat("signal (chat type 3) to a generated service", a[16], service,
           signal_plaintext(token, "apns", "add"), "confirmed", chat_type=3)
    f.chat("signal (chat type 3) remove", a[17], service,
           signal_plaintext(token, "apns", "remove"), "pool", chat_type=3, ms=True)


def state_vectors(f, a):
    f.state("state eth:address (non-hex value, 1 unit)", a[3], "eth:address",
            "0x" + label_bytes("adm-push eth address", 20).hex(), "chats", ms=None)
    f.state("state empty key", a[4], "", "value without a key", "submit")
    f.state("state type 1", a[5], "flag", "on", "confirmed", state_type=1)
    f.state("state unicode key and value", a[6], "ключ🔑", "значение · 値 · 🚀", "pool", ms=True)
    f.state("state 764 hex bytes (last 1-unit size)", a[7], "blob", "ab" * 764, "submit")
    f.state("state 765 hex bytes (fee 2 units)", a[8], "blob", "AB" * 765, "chats")
    f.state("state hex then junk (fee counts 500 bytes)", a[9], "blob", "cd" * 500 + "zz" + "cd" * 900, "submit")
    f.state("state 20-character key", a[10], "k" * 20, "x", "confirmed")
    contact = next(v for v in kvs_vectors(a) if v["name"] == "contact_list of the worked-example account")
    f.state("state encrypted contact_list", a[0], "contact_list", contact["value"], "chats", ms=None)


def transaction_vectors(accounts, service):
    factory = TxFactory()
    for add in (transfer_vectors, message_vectors, rich_vectors, in_chat_transfer_vectors):
        add(factory, accounts)
    signal_in_transactions(factory, accounts, service)
    state_vectors(factory, accounts)  # last, so the earlier vectors keep their timestamps
    return docs_vectors() + factory.vectors


# --- kvs.json: AIP-3 encrypted values (§9) --------------------------------------------------

def kvs_key(account):
    """ed2curve.convertSecretKey(SHA-256(secretKey)): libsodium hashes the first 32 bytes it is given."""
    return sodium.crypto_sign_ed25519_sk_to_curve25519(sha256(account.secret_key) + bytes(32))


def kvs_vector(name, account, payload, prefix, suffix):
    payload_json = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    plaintext = prefix + '{"payload":' + payload_json + "}" + suffix
    nonce = nonce_for("kvs " + name)
    message = sodium.crypto_secretbox(plaintext.encode(), nonce, kvs_key(account))
    value = json.dumps({"message": message.hex(), "nonce": nonce.hex()}, separators=(",", ":"))
    return {"name": name, "passphrase": account.passphrase, "address": account.address,
            "secretboxKey": kvs_key(account).hex(), "prefix": prefix, "suffix": suffix,
            "payloadJSON": payload_json, "payload": payload, "plaintext": plaintext,
            "nonce": nonce.hex(), "message": message.hex(), "value": value}


def kvs_vectors(a):
    contacts = {a[1].address: {"displayName": "Alice"}, a[2].address: {"displayName": "Bob 🚀"},
                a[3].address: {"displayName": "line\nbreak\u0007bell", "eth": "0x" + label_bytes("kvs eth", 20).hex()},
                a[4].address: {"avatar": "no name here"}}
    return [
        kvs_vector("contact_list of the worked-example account", a[0], contacts, "qzx", "mnbvcxzlkj"),
        kvs_vector("string payload", a[1], "0x" + label_bytes("kvs string", 20).hex(), "a", "b"),
        kvs_vector("empty object, no padding", a[2], {}, "", ""),
        kvs_vector("unicode names", a[3], {a[0].address: {"displayName": "Ёжик 霧 مرحبا"}}, "abcdefghij", "k"),
    ]


# --- chat.json --------------------------------------------------------------------------------

COMMON_SENDER_SECRET = ("e91ee8e6a23ac5ff9452a15a3fbd14098dc2c6a5abf6b12464b09eb033580b6d"
                        "9f895a201fd92cc60ef02d2117d53f00dc2981903cb64b2f214777269b882209")
COMMON_NONCE = "31caaee2d35dcbd8b614e9d6bf6095393cb5baed259e7e37"


def chat_vector(name, plaintext, sender, recipient, nonce=None):
    nonce = nonce or nonce_for("chat.json " + name)
    vector = {"name": name, "plaintext": plaintext}
    if sender.passphrase:
        vector["senderPassphrase"] = sender.passphrase
    else:
        vector["senderSecretKey"] = sender.secret_key.hex()
    vector.update({"senderPublicKey": sender.public_key.hex(), "recipientPublicKey": recipient.public_key.hex(),
                   "recipientPassphrase": recipient.passphrase, "nonce": nonce.hex(),
                   "message": encrypt(plaintext, sender, recipient.public_key, nonce).hex()})
    return vector


CHAT_TEXTS = [
    ("empty string", ""),
    ("one byte", "x"),
    ("NUL character", "\u0000"),
    ("ascii sentence", "The quick brown fox jumps over the lazy dog."),
    ("multi-line with CRLF and tab", "first\nsecond\r\nthird\tcolumn\n"),
    ("leading and trailing spaces", "  padded  "),
    ("two-byte UTF-8", "Ünïcödé: ñ ß ø å"),
    ("three-byte UTF-8", "日本語のテキスト €"),
    ("four-byte UTF-8 emoji", "😀"),
    ("emoji with ZWJ and skin tone", "👩🏾‍💻 🏳️‍🌈 👨‍👩‍👧"),
    ("combining characters, not normalized", "e\u0301 A\u030a \u1e9b\u0323"),
    ("right-to-left", "שלום עולם"),
    ("rich json", compact_json({"type": "eth_transaction", "amount": "0.002", "hash": "0x00ff", "comments": "hi"})),
    ("signal json", '{"token":"%s","provider":"apns","action":"add"}' % ("ab" * 32)),
    ("markdown", "# Title\n\n- item *one*\n- item `two`\n"),
    ("747 bytes", text_of_length(747)),
    ("748 bytes", text_of_length(748)),
    ("749 bytes", text_of_length(749)),
    ("10224 bytes (maximum)", text_of_length(MAX_PLAINTEXT)),
    ("10224 bytes of 4-byte characters", "🙂" * (MAX_PLAINTEXT // 4)),
]


def chat_vectors(accounts):
    recipient = accounts[1]  # process gospel …
    common = Account.from_secret_key(COMMON_SENDER_SECRET)
    first = chat_vector("common (§6.3)", "common", common, recipient, bytes.fromhex(COMMON_NONCE))
    assert first["message"] == "09af1ce7e5ed484ddca3c6d1410cbf4f793ea19210e7"
    out = [first]
    for i, (name, text) in enumerate(CHAT_TEXTS):
        out.append(chat_vector(name, text, accounts[3 + i % 20], accounts[4 + (i * 7) % 20]))
    out.append(chat_vector("to self", "a note kept on chain", accounts[5], accounts[5]))
    out.append(chat_vector("worked-example account to process gospel", "hello", accounts[0], recipient))
    return out


# --- signals.json (§7) ------------------------------------------------------------------------

def signal_plaintext(token, provider, action, device_id=None):
    """Exactly what the Swift PushSignal writes: fixed key order, no whitespace."""
    text = '{"token":"%s","provider":"%s","action":"%s"' % (token, provider, action)
    return text + (',"deviceId":"%s"' % device_id if device_id is not None else "") + "}"


def fcm_token(label, length):
    """An FCM-looking token of `length` characters from [A-Za-z0-9:_-]."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    stream = b"".join(sha256(("%s %d" % (label, i)).encode()) for i in range(length // 32 + 2))
    body = "".join(alphabet[b % 64] for b in stream)
    token = body[:11] + ":APA91b" + body[11:]
    return token[:length]


def ns_plaintext(token, provider, action, device_id):
    """Exactly what adm-push encrypts for adamant-ns: deviceId first, the provider in capitals
    (the service's schema takes only FCM and APNS), no whitespace."""
    return '{"deviceId":"%s","token":"%s","provider":"%s","action":"%s"}' % (
        device_id, token, {"fcm": "FCM", "apns": "APNS"}[provider], action)


def signal_vector(name, sender, service, timestamp, token, provider, action, device_id=None, ms=ABSENT,
                  kind="ans"):
    """`kind` is the service's grammar: "ans" (the C# service) or "ns" (adamant-ns). The payload
    is adm-push's logical signal either way; only the plaintext differs."""
    payload = {"token": token, "provider": provider, "action": action}
    if device_id is not None:
        payload["deviceId"] = device_id
    if kind == "ns":
        plaintext = ns_plaintext(token, provider, action, device_id)
    else:
        plaintext = signal_plaintext(token, provider, action, device_id)
    nonce = nonce_for("signal " + name)
    asset = chat_asset(encrypt(plaintext, sender, service.public_key, nonce), nonce, 3)
    core = signed_core(sender, 8, 0, service.address, timestamp, asset)
    tx = node_json(core, "signed", name, ms_within(timestamp, name) if ms is True else ms)
    vector = {"name": name}
    if kind != "ans":  # absent means the ANS, so the older vectors keep their bytes
        vector["service"] = kind
    vector.update({"payload": payload, "plaintext": plaintext, "nonce": nonce.hex(),
                   "servicePublicKey": service.public_key.hex(), "serviceAddress": service.address})
    if service.passphrase:
        vector["servicePassphrase"] = service.passphrase
    unsigned = unsigned_bytes(core)
    vector.update({"senderPassphrase": sender.passphrase, "transaction": tx, "bytes": unsigned.hex(),
                   "id": id_of(core), "fee": fee_of(core)})
    return vector


def signal_vectors(accounts, service):
    ans = Account(bytes.fromhex(ANS_PUBLIC_KEY), None)
    assert ans.address == ANS_ADDRESS
    apns = lambda n: label_bytes("adm-push apns token %d" % n, 32).hex()
    cases = [
        ("apns add", ans, apns(1), "apns", "add", None, ABSENT),
        ("apns remove", ans, apns(1), "apns", "remove", None, True),
        ("apns-sandbox add", ans, apns(2), "apns-sandbox", "add", None, ABSENT),
        ("apns-sandbox remove", ans, apns(2), "apns-sandbox", "remove", None, ABSENT),
        ("apns 32-character token", ans, label_bytes("adm-push apns short", 16).hex(), "apns", "add", None, ABSENT),
        ("apns 200-character token", ans, (sha256(b"a") * 4).hex()[:200], "apns", "add", None, ABSENT),
        ("apns add with deviceId", ans, apns(3), "apns", "add", "iPhone15.4-A1B2C3", True),
        ("fcm add", ans, fcm_token("adm-push fcm 1", 163), "fcm", "add", None, ABSENT),
        ("fcm remove", ans, fcm_token("adm-push fcm 1", 163), "fcm", "remove", None, ABSENT),
        ("fcm 20-character token (minimum)", ans, fcm_token("adm-push fcm 2", 20), "fcm", "add", None, ABSENT),
        ("fcm 4096-character token (maximum)", ans, fcm_token("adm-push fcm 3", 4096), "fcm", "add", None, ABSENT),
        ("fcm add with deviceId", ans, fcm_token("adm-push fcm 4", 152), "fcm", "add", "pixel_8:a-1.2", ABSENT),
        ("generated service: apns add", service, apns(4), "apns", "add", None, ABSENT),
        ("generated service: fcm remove", service, fcm_token("adm-push fcm 5", 142), "fcm", "remove", None, True),
        ("generated service: apns-sandbox add with deviceId", service, apns(5), "apns-sandbox", "add",
         "d" * 128, ABSENT),
    ]
    out = []
    for i, (name, svc, token, provider, action, device_id, ms) in enumerate(cases):
        sender = accounts[3 + i % 22]
        out.append(signal_vector(name, sender, svc, BASE_TIMESTAMP + 50_000 + 61 * i,
                                 token, provider, action, device_id, ms))
    for i, (name, svc, token, provider, action, device_id, ms) in enumerate(ns_cases(service), len(cases)):
        sender = accounts[3 + i % 22]
        out.append(signal_vector(name, sender, svc, BASE_TIMESTAMP + 50_000 + 61 * i,
                                 token, provider, action, device_id, ms, kind="ns"))
    return out


def new_device_id(label):
    """A device id as adm-push makes one: 128 random bits as 32 lowercase hex digits."""
    return label_bytes("adm-push device " + label, 16).hex()


def device_id_of_length(label, length):
    """A device id of `length` characters from every class the id may hold: [A-Za-z0-9.:_-]."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.:_-"
    stream = b"".join(sha256(("%s %d" % (label, i)).encode()) for i in range(length // 32 + 1))
    return "".join(alphabet[b % len(alphabet)] for b in stream)[:length]


def ns_cases(service):
    """Signals to adamant-ns: to its mainnet identity (whose key only the service holds) and to the
    generated service (whose passphrase lets the cross-check decrypt as the service would)."""
    ns = Account(bytes.fromhex(NS_PUBLIC_KEY), None)
    assert ns.address == NS_ADDRESS
    apns = lambda n: label_bytes("adm-push ns apns token %d" % n, 32).hex()
    fcm = lambda n, length=163: fcm_token("adm-push ns fcm %d" % n, length)
    return [
        ("ns: fcm add", ns, fcm(1), "fcm", "add", new_device_id("ns 1"), ABSENT),
        ("ns: fcm remove", ns, fcm(1), "fcm", "remove", new_device_id("ns 1"), True),
        ("ns: apns add", ns, apns(1), "apns", "add", new_device_id("ns 2"), ABSENT),
        ("ns: apns remove", ns, apns(1), "apns", "remove", new_device_id("ns 2"), ABSENT),
        ("ns: Firebase Installation ID as deviceId", ns, fcm(2), "fcm", "add", "cR_2vAfM3kXmY5Z8p9qL1a", ABSENT),
        ("ns generated service: fcm add", service, fcm(3), "fcm", "add", new_device_id("ns 3"), ABSENT),
        ("ns generated service: fcm remove", service, fcm(3), "fcm", "remove", new_device_id("ns 3"), True),
        ("ns generated service: apns add", service, apns(2), "apns", "add", new_device_id("ns 4"), ABSENT),
        ("ns generated service: 128-character deviceId", service, fcm(4), "fcm", "add",
         device_id_of_length("adm-push ns device 128", 128), ABSENT),
        ("ns generated service: 1-character deviceId", service, apns(3), "apns", "remove", "7", ABSENT),
        ("ns generated service: fcm 4096-character token", service, fcm(5, 4096), "fcm", "add",
         new_device_id("ns 5"), ABSENT),
    ]


# --- invalid.json -----------------------------------------------------------------------------

def invalid(name, category, value, error, **extra):
    return {"name": name, "category": category, "input": value, "error": error, **extra}



def checksum_ok(words):
    value = 0
    for word in words:
        value = value << 11 | WORDS.index(word)
    return sha256((value >> 4).to_bytes(16, "big"))[0] >> 4 == value & 15


def with_word(position, word, phrase=WORKED_EXAMPLE):
    """`phrase` with its word at 1-based `position` replaced."""
    words = phrase.split(" ")
    words[position - 1] = word
    return " ".join(words)


def passphrase_invalids():
    """One vector per rule, in the Swift order: empty, whitespace, count, words, checksum."""
    p = WORKED_EXAMPLE
    stray = [("leading space", " " + p), ("trailing space", p + " "), ("double space", p.replace(" ", "  ", 1)),
             ("tab", p.replace(" ", "\t", 1)), ("newline between words", p.replace(" ", "\n", 1)),
             ("trailing newline", p + "\n"), ("trailing CRLF", p + "\r\n"), ("only spaces", "   ")]
    counts = [("11 words", p.rsplit(" ", 1)[0]), ("13 words", p + " zoo"), ("1 word", "wrap"),
              ("24-word mnemonic with a valid checksum", mnemonic(label_bytes("adm-push 24 words", 32)))]
    unknown = [("uppercase first word", with_word(1, "Wrap"), 1),
               ("misspelled word", with_word(2, "trak"), 2),
               ("misspelled long word", with_word(12, "essense"), 12),
               ("short unknown word", with_word(11, "ar"), 11),
               ("non-ASCII letter (Greek omicron)", with_word(10, "t\u03bfast"), 10),
               ("all caps", p.upper(), 1),
               ("digit in word", with_word(4, "grocery1"), 4),
               ("two unknown words: first reported", with_word(8, "hlaf", with_word(7, "theroy")), 7),
               ("nothing close", with_word(6, "qqqqqq"), 6)]
    bad = [("last word changed", with_word(12, "zoo")),
           ("first two words swapped", with_word(1, "track", with_word(2, "wrap"))),
           ("twelve times abandon", " ".join(["abandon"] * 12))]

    out = [invalid("empty", "passphrase", "", "empty")]
    out += [invalid("stray whitespace: " + n, "passphrase", text, "strayWhitespace") for n, text in stray]
    out += [invalid("word count: " + n, "passphrase", text, "wrongWordCount", count=len(text.split(" ")))
            for n, text in counts]
    for name, text, position in unknown:
        out.append(invalid("unknown word: " + name, "passphrase", text, "unknownWord", position=position))
    for name, text in bad:
        assert not checksum_ok(text.split(" ")), name
        out.append(invalid("bad checksum: " + name, "passphrase", text, "badChecksum"))
    return out


ADDRESS_CASES = [
    ("no U", "6687642817984673870", "addressFormat"),
    ("lowercase u", "u6687642817984673870", "addressFormat"),
    ("letters", "U66876428179846738ab", "addressFormat"),
    ("no digits", "U", "addressFormat"),
    ("21 digits", "U123456789012345678901", "addressFormat"),
    ("inner space", "U6687 642817984673870", "addressFormat"),
    ("trailing space", "U6687642817984673870 ", "addressFormat"),
    ("Lisk suffix", "6687642817984673870L", "addressFormat"),
    ("leading zero", "U0123", "addressLeadingZero"),
    ("2^64", "U18446744073709551616", "addressOutOfRange"),
    ("twenty nines", "U99999999999999999999", "addressOutOfRange"),
]

AMOUNT_CASES = [
    ("negative", "-1", "amountFormat"),
    ("exponent", "1e8", "amountFormat"),
    ("comma", "1,5", "amountFormat"),
    ("no whole part", ".5", "amountFormat"),
    ("trailing point", "1.", "amountFormat"),
    ("empty", "", "amountFormat"),
    ("leading space", " 1", "amountFormat"),
    ("plus sign", "+1", "amountFormat"),
    ("two points", "1.2.3", "amountFormat"),
    ("nine decimals", "0.000000001", "amountTooPrecise"),
    ("total supply + 1 unit", "98000000.00000001", "amountOutOfRange"),
    ("100000000 ADM", "100000000", "amountOutOfRange"),
]


def simple_invalids():
    """Addresses, amounts and public keys: plain strings."""
    pk = ANS_PUBLIC_KEY
    public_keys = [("uppercase hex", pk.upper()), ("odd length", pk[:63]), ("62 characters", pk[:62]),
                   ("non-hex character", "g" + pk[1:]), ("0x prefix", "0x" + pk), ("66 characters", pk + "00")]
    out = [invalid("address: " + n, "address", text, error) for n, text, error in ADDRESS_CASES]
    out += [invalid("amount: " + n, "amount", text, error) for n, text, error in AMOUNT_CASES]
    out += [invalid("public key: " + n, "publicKey", text, "nonCanonicalHex") for n, text in public_keys]
    return out


def signal_payload(token, provider="apns", action="add", **extra):
    return {"token": token, "provider": provider, "action": action, **extra}


def signal_invalids():
    apns = label_bytes("adm-push apns token 1", 32).hex()
    fcm = fcm_token("adm-push fcm 1", 163)
    s = signal_payload
    cases = [
        ("apns token uppercase", s(apns.upper()), "invalidAPNsToken"),
        ("apns token odd length", s(apns[:63]), "invalidAPNsToken"),
        ("apns token 30 characters", s(apns[:30]), "invalidAPNsToken"),
        ("apns token 202 characters", s((apns * 4)[:202]), "invalidAPNsToken"),
        ("apns token non-hex", s(apns[:62] + "zz"), "invalidAPNsToken"),
        ("apns-sandbox token empty", s("", "apns-sandbox"), "invalidAPNsToken"),
        ("fcm token 19 characters", s(fcm[:19], "fcm"), "invalidFCMToken"),
        ("fcm token with space", s(fcm[:40] + " " + fcm[41:], "fcm"), "invalidFCMToken"),
        ("fcm token with slash", s(fcm[:40] + "/" + fcm[41:], "fcm"), "invalidFCMToken"),
        ("fcm token with equals", s(fcm[:40] + "=", "fcm"), "invalidFCMToken"),
        ("fcm token 4097 characters", s(fcm_token("adm-push fcm 3", 4097), "fcm"), "invalidFCMToken"),
        ("deviceId empty", s(apns, deviceId=""), "invalidDeviceID"),
        ("deviceId 129 characters", s(apns, deviceId="d" * 129), "invalidDeviceID"),
        ("deviceId with space", s(fcm, "fcm", deviceId="my phone"), "invalidDeviceID"),
        ("provider gcm", s(fcm, "gcm"), "unknownProvider"),
        ("action delete", s(apns, action="delete"), "unknownAction"),
    ]
    return [invalid("signal: " + n, "signal", payload, error) for n, payload, error in cases]


def ns_signal_invalids():
    """Plaintexts adamant-ns's schema drops, or whose fields no signal may hold."""
    fcm = fcm_token("adm-push fcm 1", 163)
    device = "0123456789abcdef0123456789abcdef"

    def ns(**fields):
        payload = {"deviceId": device, "token": fcm, "provider": "FCM", "action": "add"}
        payload.update(fields)
        return {k: v for k, v in payload.items() if v is not None}

    cases = [
        ("provider in lower case", ns(provider="fcm"), "unknownProvider"),
        ("provider apns-sandbox", ns(provider="APNS-SANDBOX"), "unknownProvider"),
        ("action in upper case", ns(action="Add"), "unknownAction"),
        ("no deviceId", ns(deviceId=None), "notASignal"),
        ("deviceId a number", ns(deviceId=7), "notASignal"),
        ("no action", ns(action=None), "notASignal"),
        ("deviceId with space", ns(deviceId="my phone"), "invalidDeviceID"),
        ("fcm token 19 characters", ns(token=fcm[:19]), "invalidFCMToken"),
        ("APNS token not hex", ns(provider="APNS", token="zz" * 32), "invalidAPNsToken"),
    ]
    return [invalid("adamant-ns signal: " + n, "nsSignal", payload, error) for n, payload, error in cases]


def service_invalids(service):
    return [invalid("service: ANS address with another key", "service",
                    {"address": ANS_ADDRESS, "publicKey": service.public_key.hex()}, "serviceKeyMismatch"),
            invalid("service: generated address with the ANS key", "service",
                    {"address": service.address, "publicKey": ANS_PUBLIC_KEY}, "serviceKeyMismatch")]


def flip_byte(data, index):
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1:]


def chat_invalids(accounts):
    """Messages the recipient must refuse: tampered, not for them, or not UTF-8 inside."""
    sender, recipient, stranger = accounts[6], accounts[7], accounts[8]

    def case(name, message, nonce, reader, error, **extra):
        value = {"message": message.hex(), "nonce": nonce.hex(), "recipientPassphrase": reader.passphrase,
                 "senderPublicKey": sender.public_key.hex()}
        return invalid("chat: " + name, "chat", value, error, **extra)

    nonce = nonce_for("invalid chat")
    message = encrypt("attack at dawn", sender, recipient.public_key, nonce)
    out = [case("flipped byte in the tag", flip_byte(message, 0), nonce, recipient, "authenticationFailed"),
           case("flipped byte in the ciphertext", flip_byte(message, 20), nonce, recipient, "authenticationFailed"),
           case("flipped byte in the nonce", message, flip_byte(nonce, 5), recipient, "authenticationFailed"),
           case("wrong recipient", message, nonce, stranger, "authenticationFailed"),
           case("truncated to the tag", message[:16], nonce, recipient, "authenticationFailed")]
    bad_utf8 = [("bytes ff fe", b"\xff\xfe"), ("lone continuation byte", b"ab\x80cd"),
                ("truncated 4-byte emoji", "ok ".encode() + "😀".encode()[:3]),
                ("overlong slash", b"\xc0\xaf"), ("UTF-16 surrogate", b"\xed\xa0\x80")]
    for name, data in bad_utf8:
        n = nonce_for("invalid utf8 " + name)
        out.append(case("invalid UTF-8, " + name, encrypt(data, sender, recipient.public_key, n), n, recipient,
                        "invalidUTF8", plaintextHex=data.hex()))
    return out


def resign(tx, account):
    """Signs `tx` again after an edit and refreshes its id, so only the intended flaw remains."""
    tx = dict(tx)
    tx["signature"] = sign(unsigned_bytes(tx), account).hex()
    if "id" in tx:
        tx["id"] = id_of(tx)
    return tx


def flip_hex(text, index):
    return flip_byte(bytes.fromhex(text), index).hex()


def without(tx, key):
    return {k: v for k, v in tx.items() if k != key}


def tx_invalids(accounts):
    """Node JSON that decode → validate() → verify() must refuse, each for one reason."""
    a = accounts
    transfer = node_json(signed_core(a[3], 0, 100_000_000, a[4].address, BASE_TIMESTAMP + 90_000, {}), "submit", "t")
    nonce = nonce_for("invalid tx chat")
    asset = chat_asset(encrypt("tamper with me", a[5], a[6].public_key, nonce), nonce, 1)
    chat = node_json(signed_core(a[5], 8, 0, a[6].address, BASE_TIMESTAMP + 90_100, asset), "confirmed", "c")
    vote = {**transfer, "type": 3, "amount": 0, "recipientId": a[3].address, "asset": {}}
    too_long = signed_chat(a[5], a[6], "x" * (MAX_PLAINTEXT + 1), "too long")

    cases = [("flipped byte in " + name, tx, "invalidSignature") for name, tx in flipped_transactions(transfer, chat)]
    cases += [
        ("wrong id", {**chat, "id": str((int(chat["id"]) + 1) % 2**64)}, "idMismatch"),
        ("senderId of another account", {**transfer, "senderId": a[9].address}, "senderMismatch"),
        ("senderId of the recipient", {**chat, "senderId": chat["recipientId"]}, "senderMismatch"),
    ]
    cases += [("decoding: " + name, tx, "decoding") for name, tx in decoding_failures(transfer, chat)]
    cases += [
        ("transfer of 0", resign({**transfer, "amount": 0}, a[3]), "amountOutOfRange"),
        ("amount total supply + 1", resign({**transfer, "amount": TOTAL_SUPPLY + 1}, a[3]), "amountOutOfRange"),
        ("negative amount", resign({**transfer, "amount": -1}, a[3]), "amountOutOfRange"),
        ("ciphertext of 10241 bytes", too_long, "messageTooLong"),
        ("empty message", resign(with_chat(chat, message=""), a[5]), "emptyMessage"),
        ("nonce of 23 bytes", resign(with_chat(chat, own_message=nonce[:23].hex()), a[5]), "nonceLength"),
        ("nonce missing", resign(with_chat(chat, own_message=None), a[5]), "nonceLength"),
        ("type 3 vote", resign(vote, a[3]), "unsupportedType"),
        ("type 8 without asset.chat", resign({**chat, "asset": {}}, a[5]), "missingChatAsset"),
        ("transfer without recipientId", resign(without(transfer, "recipientId"), a[3]), "missingRecipient"),
        ("transfer with empty recipientId", resign({**transfer, "recipientId": ""}, a[3]), "missingRecipient"),
    ]
    return [invalid("transaction: " + name, "transaction", tx, error) for name, tx, error in cases]


def with_chat(tx, **fields):
    """`tx` with asset.chat fields replaced; None removes the field."""
    chat = {**tx["asset"]["chat"], **fields}
    return {**tx, "asset": {"chat": {k: v for k, v in chat.items() if v is not None}}}


def signed_chat(sender, recipient, plaintext, label):
    nonce = nonce_for("invalid tx " + label)
    asset = chat_asset(encrypt(plaintext, sender, recipient.public_key, nonce), nonce, 1)
    return node_json(signed_core(sender, 8, 0, recipient.address, BASE_TIMESTAMP + 90_200, asset), "submit", label)


def flipped_transactions(transfer, chat):
    """One flipped byte per signed field; everything still decodes and validates."""
    key = flip_hex(transfer["senderPublicKey"], 0)
    recipient = "U%d" % (int(transfer["recipientId"][1:]) ^ 1)  # the last big-endian byte
    yield "signature", {**transfer, "signature": flip_hex(transfer["signature"], 10)}
    yield "message", with_chat(chat, message=flip_hex(chat["asset"]["chat"]["message"], 3))
    yield "nonce", with_chat(chat, own_message=flip_hex(chat["asset"]["chat"]["own_message"], 23))
    yield "amount", {**transfer, "amount": transfer["amount"] ^ 1}
    yield "recipientId", {**transfer, "recipientId": recipient}
    yield "timestamp", {**transfer, "timestamp": transfer["timestamp"] ^ 1}
    # senderId follows the new key, so the signature is the only thing wrong.
    yield "senderPublicKey (senderId follows the new key)", {
        **transfer, "senderPublicKey": key, "senderId": address_of(bytes.fromhex(key))}
    yield "chat type", with_chat(chat, type=2)


def decoding_failures(transfer, chat):
    """JSON the Swift decoder refuses before any check runs."""
    message, nonce = chat["asset"]["chat"]["message"], chat["asset"]["chat"]["own_message"]
    yield "uppercase signature", {**transfer, "signature": transfer["signature"].upper()}
    yield "uppercase senderPublicKey", {**transfer, "senderPublicKey": transfer["senderPublicKey"].upper()}
    yield "uppercase message", with_chat(chat, message=message.upper())
    yield "odd-length nonce", with_chat(chat, own_message=nonce[:-1])
    yield "amount as string 1.5", {**transfer, "amount": "1.5"}
    yield "missing signature", without(transfer, "signature")
    yield "signature of 63 bytes", {**transfer, "signature": transfer["signature"][:126]}
    yield "timestamp beyond int32", {**transfer, "timestamp": 2**31}
    yield "recipientId with a leading zero", {**transfer, "recipientId": "U0123"}
    yield "chat type 4", with_chat(chat, type=4)


# --- output -----------------------------------------------------------------------------------

def write(name, vectors):
    text = json.dumps(vectors, indent=2, ensure_ascii=False) + "\n"
    (OUT / name).write_text(text, encoding="utf-8")
    print("%-18s %4d vectors" % (name, len(vectors)))


def main():
    OUT.mkdir(exist_ok=True)
    keys = key_vectors()
    accounts = [Account.from_passphrase(k["passphrase"]) for k in keys]
    service = Account.from_passphrase(passphrase_for("adm-push service 0"))
    write("keys.json", keys)
    write("transactions.json", transaction_vectors(accounts, service))
    write("chat.json", chat_vectors(accounts))
    write("signals.json", signal_vectors(accounts, service))
    write("kvs.json", kvs_vectors(accounts))
    write("invalid.json", passphrase_invalids() + simple_invalids() + signal_invalids()
          + service_invalids(service) + chat_invalids(accounts) + tx_invalids(accounts) + ns_signal_invalids())


if __name__ == "__main__":
    main()
