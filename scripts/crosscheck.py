#!/usr/bin/env python3
"""Re-derives every vector in Vectors/ from its inputs, independently of make_vectors.py.

Written from docs/protocol.md (§ numbers below) without sharing code with the generator:
keys come from nacl.signing rather than the raw bindings, the X25519 keys for chat are computed
by hand (SHA-512 + clamp, and u = (1+y)/(1-y)), and byte layouts are written out again. Invalid
vectors are run through a model of the Swift checks (decode, validate(), verify()) to confirm
each fails first for its stated reason.

    python3 scripts/crosscheck.py        # prints failures, then "crosscheck: N passed, M failed"

It also judges every signal the devnet's adamant-ns emulator heard in a test run, as logged by
scripts/test in .build/ns-signals.jsonl (or the file given with --ns-signals FILE): each line is
decrypted again and read with a model of the service's schema, whose verdict must be the
emulator's.
"""
import argparse
import hashlib
import json
import re
import struct
import sys
import unicodedata
from pathlib import Path

import nacl.exceptions
import nacl.signing
from nacl import bindings

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "Vectors"
TOTAL = 9_800_000_000_000_000
MAX_CIPHERTEXT = 10_240
P25519 = 2**255 - 19
NS_ADDRESS = "U922832474468487910"  # adamant-ns on mainnet (docs/node-api.md §4.2)
NS_PUBLIC_KEY = "e62976484f30862e26765ad98a5835fbccc43a50de59c56bd2e0b4989ee2e0af"


def h256(data):
    return hashlib.sha256(data).digest()


def u64le_of_hash(data):
    return struct.unpack("<Q", h256(data)[:8])[0]


def address(public_key):
    return "U" + str(u64le_of_hash(public_key))


def is_hex(text, length=None):
    """Canonical hex: lowercase, even length (and `length` bytes when given)."""
    if not isinstance(text, str) or len(text) % 2 or re.fullmatch("[0-9a-f]*", text) is None:
        return False
    return length is None or len(text) == 2 * length


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# --- BIP39 (§1.1, §1.5) -----------------------------------------------------------------------

def word_list():
    """The BIP39 English list shipped with the vectors, pinned by its published SHA-256."""
    data = (ROOT / "Vectors" / "bip39-english.txt").read_bytes()
    if hashlib.sha256(data).hexdigest() != "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda":
        sys.exit("crosscheck: Vectors/bip39-english.txt is not the BIP39 English list")
    words = data.decode().split()
    assert len(words) == 2048
    return words


WORDS = word_list()
INDEX = {w: i for i, w in enumerate(WORDS)}



def passphrase_problem(text):
    """None if valid, else (kind, extra fields) in the Swift order of checks."""
    raw = text.encode()
    if raw == b"":
        return "empty", {}
    words = raw.split(b" ")
    if b"" in words or re.search(rb"[\t\n\v\f\r]", raw):
        return "strayWhitespace", {}
    if len(words) != 12:
        return "wrongWordCount", {"count": len(words)}
    for position, word in enumerate(words, 1):
        word = word.decode("utf-8", "replace")
        if word not in INDEX:
            return "unknownWord", {"position": position}
    bits = "".join(format(INDEX[w.decode()], "011b") for w in words)
    entropy = int(bits[:128], 2).to_bytes(16, "big")
    if int(bits[128:], 2) != h256(entropy)[0] >> 4:
        return "badChecksum", {}
    return None


# --- keys (§1) --------------------------------------------------------------------------------

class Keys:
    def __init__(self, passphrase):
        nfkd = unicodedata.normalize("NFKD", passphrase)
        self.seed = hashlib.pbkdf2_hmac("sha512", nfkd.encode("utf-8"), b"mnemonic", 2048, 64)
        self.ed_seed = h256(self.seed)
        self.signer = nacl.signing.SigningKey(self.ed_seed)
        self.public = bytes(self.signer.verify_key)
        self.secret = self.ed_seed + self.public
        self.address = address(self.public)


_keys_cache = {}


def keys(passphrase):
    if passphrase not in _keys_cache:
        _keys_cache[passphrase] = Keys(passphrase)
    return _keys_cache[passphrase]


# --- chat crypto, by hand where practical (§6) ------------------------------------------------

def x25519_secret(ed_seed):
    """SHA-512 of the Ed25519 seed, first half, clamped."""
    s = bytearray(hashlib.sha512(ed_seed).digest()[:32])
    s[0] &= 248
    s[31] = (s[31] & 127) | 64
    return bytes(s)


def x25519_public(ed_public):
    """The Montgomery u = (1 + y) / (1 - y) mod p of the Edwards point."""
    y = int.from_bytes(ed_public, "little") & ((1 << 255) - 1)
    u = (1 + y) * pow((1 - y) % P25519, P25519 - 2, P25519) % P25519
    return u.to_bytes(32, "little")


def shared_key(my_ed_seed, their_ed_public):
    return bindings.crypto_box_beforenm(x25519_public(their_ed_public), x25519_secret(my_ed_seed))


def seal(plaintext_bytes, nonce, key):
    return bindings.crypto_box_afternm(plaintext_bytes, nonce, key)


def open_box(ciphertext, nonce, key):
    """Plaintext bytes, or None when authentication fails."""
    try:
        return bindings.crypto_box_open_afternm(ciphertext, nonce, key)
    except nacl.exceptions.CryptoError:
        return None


# --- transaction model: decode, bytes, validate, verify (§4, §5) ------------------------------

class Rejected(Exception):
    """A vector failed a check; `kind` is the stable Swift error name."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


def address_problem(text):
    if not isinstance(text, str) or not re.fullmatch(r"U[0-9]{1,20}", text):
        return "addressFormat"
    if len(text) > 2 and text[1] == "0":
        return "addressLeadingZero"
    if int(text[1:]) >= 2**64:
        return "addressOutOfRange"
    return None


def flexible_int(value):
    """An Int64 given as a JSON integer, or as a string the Swift Int64(text) initializer takes."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value):
        value = int(value)
    if not is_int(value) or not -2**63 <= value < 2**63:
        raise Rejected("decoding")
    return value


def hex_field(obj, key, length=None, optional=False):
    value = obj.get(key)
    if optional and (value is None or value == ""):
        return None
    if not is_hex(value, length):
        raise Rejected("decoding")
    return bytes.fromhex(value)


def decode_chat(asset):
    if asset is None:
        return None
    if not isinstance(asset, dict):
        raise Rejected("decoding")
    chat = asset.get("chat")
    if chat is None:
        return None
    if not isinstance(chat, dict) or not is_int(chat.get("type")) or chat["type"] not in (0, 1, 2, 3):
        raise Rejected("decoding")
    nonce = chat.get("own_message")
    if nonce is not None and not is_hex(nonce):
        raise Rejected("decoding")
    return {"message": hex_field(chat, "message"), "nonce": bytes.fromhex(nonce or ""), "type": chat["type"]}


def decode_state(asset):
    """asset.state as the Swift decoder reads it: string value, optional string key, int32 type."""
    if not isinstance(asset, dict) or asset.get("state") is None:
        return None
    state = asset["state"]
    key = state.get("key") if isinstance(state, dict) else None
    if (not isinstance(state, dict) or not isinstance(state.get("value"), str) or not isinstance(key or "", str)
            or not is_int(state.get("type")) or not -2**31 <= state["type"] < 2**31):
        raise Rejected("decoding")
    return {"key": key or "", "value": state["value"], "type": state["type"]}


def decode_transaction(obj):
    """The fields the Swift decoder reads, with its strictness (canonical hex, int32 timestamp)."""
    if not isinstance(obj, dict) or not is_int(obj.get("type")):
        raise Rejected("decoding")
    tx = {"type": obj["type"], "amount": flexible_int(obj.get("amount")),
          "senderPublicKey": hex_field(obj, "senderPublicKey", 32)}
    recipient = obj.get("recipientId")
    if recipient not in (None, "") and address_problem(recipient):
        raise Rejected("decoding")
    tx["recipientId"] = recipient or None
    if not is_int(obj.get("timestamp")) or not -2**31 <= obj["timestamp"] < 2**31:
        raise Rejected("decoding")
    tx["timestamp"] = obj["timestamp"]
    tx["chat"] = decode_chat(obj.get("asset"))
    tx["state"] = decode_state(obj.get("asset"))
    tx["requester"] = hex_field(obj, "requesterPublicKey", 32, optional=True)
    tx["signature"] = hex_field(obj, "signature", 64)
    tx["signSignature"] = hex_field(obj, "signSignature", 64, optional=True)
    if obj.get("senderId") is not None and address_problem(obj["senderId"]):
        raise Rejected("decoding")
    tx["senderId"] = obj.get("senderId")
    tx["timestampMs"] = None if obj.get("timestampMs") is None else flexible_int(obj["timestampMs"])
    tx_id = obj.get("id")
    if tx_id is not None and not (isinstance(tx_id, str) and re.fullmatch(r"0|[1-9][0-9]{0,19}", tx_id)
                                  and int(tx_id) < 2**64):
        raise Rejected("decoding")
    tx["id"] = obj.get("id")
    for key in ("fee", "height", "block_timestamp", "confirmations"):
        if obj.get(key) is not None:
            flexible_int(obj[key])
    if obj.get("recipientPublicKey") is not None:
        hex_field(obj, "recipientPublicKey", 32)
    return tx


def signed_bytes(tx):
    """§4.1: type, timestamp LE, sender key, [requester], recipient BE, amount LE, asset."""
    out = bytearray([tx["type"]])
    out += tx["timestamp"].to_bytes(4, "little", signed=True)
    out += tx["senderPublicKey"]
    out += tx["requester"] or b""
    out += int(tx["recipientId"][1:]).to_bytes(8, "big") if tx["recipientId"] else b"\0" * 8
    out += tx["amount"].to_bytes(8, "little", signed=True)
    if tx["type"] == 8 and tx["chat"] is not None:
        out += tx["chat"]["message"] + tx["chat"]["nonce"] + tx["chat"]["type"].to_bytes(4, "little")
    if tx["type"] == 9 and tx["state"] is not None:  # §4.2: the text itself, not hex-decoded
        state = tx["state"]
        out += state["value"].encode("utf-8") + state["key"].encode("utf-8")
        out += state["type"].to_bytes(4, "little", signed=True)
    return bytes(out)


def computed_id(tx):
    return str(u64le_of_hash(signed_bytes(tx) + tx["signature"] + (tx["signSignature"] or b"")))


def node_fee(tx):
    """§5.1, in the node's own arithmetic: floor(n * 100 / 150 / 255), at least one unit."""
    if tx["type"] == 9:
        # §5.1: Buffer.from(value, 'hex') keeps the leading run of whole hex pairs.
        n = len(re.match(r"(?:[0-9a-fA-F]{2})*", tx["state"]["value"]).group(0)) // 2
        return max(1, int(n * 100 / 150 / 255)) * 100_000
    if tx["type"] == 0 or tx["amount"] > 0:
        return 50_000_000
    units = max(1, int(len(tx["chat"]["message"]) * 100 / 150 / 255))
    return units * (500_000 if tx["chat"]["type"] == 0 else 100_000)


def validate(tx):
    """The Swift validate() order."""
    if not 0 <= tx["amount"] <= TOTAL:
        raise Rejected("amountOutOfRange")
    if tx["recipientId"] is None and tx["type"] != 9:
        raise Rejected("missingRecipient")
    if tx["type"] == 9:
        validate_state(tx)
    elif tx["type"] == 0:
        if tx["amount"] <= 0:
            raise Rejected("amountOutOfRange")
    elif tx["type"] == 8:
        chat = tx["chat"]
        if chat is None:
            raise Rejected("missingChatAsset")
        if not chat["message"]:
            raise Rejected("emptyMessage")
        if len(chat["message"]) > MAX_CIPHERTEXT:
            raise Rejected("messageTooLong")
        if len(chat["nonce"]) != 24:
            raise Rejected("nonceLength")
    else:
        raise Rejected("unsupportedType")
    ms = tx["timestampMs"]
    if ms is not None and (ms < 0 or ms // 1000 != tx["timestamp"]):
        raise Rejected("timestampMsMismatch")


def validate_state(tx):
    """logic/state.js's checks as the Swift validate() orders them, plus no amount or recipient."""
    state = tx["state"]
    if state is None:
        raise Rejected("missingStateAsset")
    if tx["amount"] != 0:
        raise Rejected("amountOutOfRange")
    if tx["recipientId"] is not None:
        raise Rejected("unexpectedRecipient")
    if state["type"] not in (0, 1):
        raise Rejected("invalidStateType")
    if not state["value"].strip() or state["value"].strip() != state["value"]:
        raise Rejected("blankStateValue")
    if len(state["value"].encode("utf-16-le")) // 2 > 20_480:
        raise Rejected("stateValueTooLong")
    if len(state["key"]) > 20:
        raise Rejected("stateKeyTooLong")


def verify(tx):
    """The Swift verify() order: signature, then senderId, then id. Returns the id."""
    try:
        nacl.signing.VerifyKey(tx["senderPublicKey"]).verify(h256(signed_bytes(tx)), tx["signature"])
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError):
        raise Rejected("invalidSignature")
    if tx["senderId"] is not None and tx["senderId"] != address(tx["senderPublicKey"]):
        raise Rejected("senderMismatch")
    if tx["id"] is not None and tx["id"] != computed_id(tx):
        raise Rejected("idMismatch")
    return computed_id(tx)


def transaction_problem(obj):
    """The first Swift error for this JSON: decoding, then validate(), then verify()."""
    try:
        tx = decode_transaction(obj)
        validate(tx)
        verify(tx)
    except Rejected as rejection:
        return rejection.kind
    return None


# --- signals and services (§7) ----------------------------------------------------------------

TOKEN_CHARS = re.compile(r"[A-Za-z0-9:_-]*")


def signal_problem(payload):
    if payload.get("provider") not in ("apns", "apns-sandbox", "fcm"):
        return "unknownProvider"
    if payload.get("action") not in ("add", "remove"):
        return "unknownAction"
    token = payload.get("token")
    if payload["provider"] == "fcm":
        if not 20 <= len(token.encode()) <= 4096 or not TOKEN_CHARS.fullmatch(token):
            return "invalidFCMToken"
    elif not is_hex(token) or not 32 <= len(token) <= 200:
        return "invalidAPNsToken"
    device = payload.get("deviceId")
    if device is not None and (not 1 <= len(device.encode()) <= 128 or
                               not re.fullmatch(r"[A-Za-z0-9:_.-]*", device)):
        return "invalidDeviceID"
    return None


def signal_text(payload):
    """The exact plaintext the Swift code encrypts (key order token, provider, action, deviceId)."""
    parts = ['"%s":"%s"' % (k, payload[k]) for k in ("token", "provider", "action", "deviceId") if k in payload]
    return "{" + ",".join(parts) + "}"


def ns_payload_problem(payload):
    """adm-push's own refusals for adamant-ns, after the signal itself is valid: the service keys
    devices by id, and has no Apple sandbox."""
    if payload.get("deviceId") is None:
        return "deviceIDRequired"
    if payload["provider"] not in ("fcm", "apns"):
        return "providerNotTaken"
    return None


NS_PROVIDER = {"fcm": "FCM", "apns": "APNS"}


def ns_signal_text(payload):
    """The plaintext for adamant-ns: four fields, deviceId first, the provider as its schema spells it."""
    fields = (("deviceId", payload["deviceId"]), ("token", payload["token"]),
              ("provider", NS_PROVIDER[payload["provider"]]), ("action", payload["action"]))
    return "{" + ",".join('"%s":"%s"' % field for field in fields) + "}"


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)  # JSON.parse knows no NaN or Infinity


def ns_schema(plaintext):
    """adamant-ns reading a decrypted signal: JSON.parse, then its zod schema (all of deviceId,
    token, provider and action strings, provider exactly FCM or APNS, action exactly add or
    remove, other keys ignored). Returns ("accepted", fields) or ("refused", why)."""
    if isinstance(plaintext, bytes):
        try:
            plaintext = plaintext.decode("utf-8")
        except UnicodeDecodeError:
            return "refused", "not UTF-8"
    try:
        obj = json.loads(plaintext, parse_constant=_no_constant)
    except ValueError:
        return "refused", "not JSON"
    if not isinstance(obj, dict):
        return "refused", "not an object"
    for key in ("deviceId", "token", "provider", "action"):
        if not isinstance(obj.get(key), str):
            return "refused", "%s is not a string" % key
    if obj["provider"] not in ("FCM", "APNS"):
        return "refused", "provider %r" % obj["provider"]
    if obj["action"] not in ("add", "remove"):
        return "refused", "action %r" % obj["action"]
    return "accepted", {k: obj[k] for k in ("deviceId", "token", "provider", "action")}


def ns_signal_problem(payload):
    """adm-push reading a plaintext in adamant-ns's grammar, as SignalError kinds: the schema
    first (anything it refuses reads as no signal, a wrong provider or action as such), then the
    fields as for any signal."""
    verdict, fields = ns_schema(json.dumps(payload))
    if verdict == "refused":
        if fields.startswith("provider '"):
            return "unknownProvider"
        if fields.startswith("action '"):
            return "unknownAction"
        return "notASignal"
    provider = {"FCM": "fcm", "APNS": "apns"}[fields["provider"]]
    return signal_problem({"token": fields["token"], "provider": provider, "action": fields["action"],
                           "deviceId": fields["deviceId"]})


def service_problem(value):
    if address_problem(value["address"]) or not is_hex(value["publicKey"], 32):
        return "decoding"
    if address(bytes.fromhex(value["publicKey"])) != value["address"]:
        return "serviceKeyMismatch"
    return None


def chat_problem(value):
    recipient = keys(value["recipientPassphrase"])
    nonce = bytes.fromhex(value["nonce"])
    if len(nonce) != 24:
        return "nonceLength"
    key = shared_key(recipient.ed_seed, bytes.fromhex(value["senderPublicKey"]))
    plain = open_box(bytes.fromhex(value["message"]), nonce, key)
    if plain is None:
        return "authenticationFailed"
    try:
        plain.decode("utf-8")
    except UnicodeDecodeError:
        return "invalidUTF8"
    return None


# --- per-file checks: each returns a list of problems -----------------------------------------

def agree(problems, what, stated, derived):
    """Records a problem when the vector's value differs from the re-derived one."""
    if stated != derived:
        problems.append("%s: vector has %s, derived %s" % (what, _short(stated), _short(derived)))


def _short(value):
    text = value.hex() if isinstance(value, bytes) else repr(value)
    return text if len(text) < 90 else text[:60] + "…(%d chars)" % len(text)


def check_key(v):
    p = []
    agree(p, "passphrase validity", None, passphrase_problem(v["passphrase"]))
    k = keys(v["passphrase"])
    agree(p, "seed", v["seed"], k.seed.hex())
    agree(p, "publicKey", v["publicKey"], k.public.hex())
    agree(p, "privateKey", v["privateKey"], k.secret.hex())
    agree(p, "address", v["address"], k.address)
    return p


def check_chat_fields(p, tx, vector):
    """Chat transactions with a known plaintext: both parties decrypt, the sender re-encrypts."""
    chat = tx["chat"]
    recipient = keys(vector["recipientPassphrase"])
    agree(p, "recipientId", tx["recipientId"], recipient.address)
    opened = open_box(chat["message"], chat["nonce"], shared_key(recipient.ed_seed, tx["senderPublicKey"]))
    agree(p, "plaintext (recipient decrypts)", vector["plaintext"].encode(), opened)
    if "passphrase" in vector:
        sender_key = shared_key(keys(vector["passphrase"]).ed_seed, recipient.public)
        agree(p, "asset.chat.message (sender encrypts)", chat["message"],
              seal(vector["plaintext"].encode(), chat["nonce"], sender_key))


def check_transaction(v):
    p = []
    obj = v["transaction"]
    tx = decode_transaction(obj)
    validate(tx)
    agree(p, "bytes", v["bytes"], signed_bytes(tx).hex())
    agree(p, "hash", v["hash"], h256(signed_bytes(tx)).hex())
    agree(p, "signature", v["signature"], obj["signature"])
    agree(p, "id", v["id"], verify(tx))
    agree(p, "fee", v["fee"], node_fee(tx))
    for field in ("id", "fee"):
        if field in obj:
            agree(p, "transaction." + field, obj[field], v[field])
    if obj.get("recipientPublicKey") is not None and "recipientPassphrase" in v:
        agree(p, "recipientPublicKey", obj["recipientPublicKey"], keys(v["recipientPassphrase"]).public.hex())
    if "passphrase" in v:
        signer = keys(v["passphrase"])
        agree(p, "senderPublicKey", tx["senderPublicKey"], signer.public)
        agree(p, "signature (re-signed)", tx["signature"], signer.signer.sign(h256(signed_bytes(tx))).signature)
    if "plaintext" in v:
        check_chat_fields(p, tx, v)
    return p


def kvs_secret(secret_key):
    """§9 by hand: SHA-256 of the 64-byte secret key, then SHA-512 of that digest, clamped."""
    return x25519_secret(h256(secret_key))


def check_kvs(v):
    p = []
    k = keys(v["passphrase"])
    agree(p, "address", v["address"], k.address)
    key = kvs_secret(k.secret)
    agree(p, "secretboxKey", v["secretboxKey"], key.hex())
    stored = json.loads(v["value"])
    agree(p, "value fields", sorted(stored), ["message", "nonce"])
    agree(p, "value.message", stored["message"], v["message"])
    agree(p, "value.nonce", stored["nonce"], v["nonce"])
    opened = bindings.crypto_secretbox_open(bytes.fromhex(v["message"]), bytes.fromhex(v["nonce"]), key)
    text = opened.decode("utf-8")
    agree(p, "plaintext", v["plaintext"], text)
    for side, padding in (("prefix", v["prefix"]), ("suffix", v["suffix"])):
        agree(p, side + " is lower-case letters", True, re.fullmatch("[a-z]*", padding) is not None)
    agree(p, "padding around the JSON", v["prefix"] + "{" + text[len(v["prefix"]) + 1:], text)
    inner = text[text.index("{"):text.rindex("}") + 1]  # how the clients find the JSON
    agree(p, "payload", v["payload"], json.loads(inner)["payload"])
    agree(p, "payloadJSON", json.loads(v["payloadJSON"]), v["payload"])
    agree(p, "plaintext layout", v["plaintext"], v["prefix"] + '{"payload":' + v["payloadJSON"] + "}" + v["suffix"])
    return p


def check_chat(v):
    p = []
    if "senderPassphrase" in v:
        sender_seed = keys(v["senderPassphrase"]).ed_seed
    else:
        secret = bytes.fromhex(v["senderSecretKey"])
        sender_seed = secret[:32]
        agree(p, "senderSecretKey's public half", v["senderPublicKey"], secret[32:].hex())
    sender_public = bytes(nacl.signing.SigningKey(sender_seed).verify_key)
    agree(p, "senderPublicKey", v["senderPublicKey"], sender_public.hex())
    recipient = keys(v["recipientPassphrase"])
    agree(p, "recipientPublicKey", v["recipientPublicKey"], recipient.public.hex())
    nonce, plaintext, message = bytes.fromhex(v["nonce"]), v["plaintext"].encode(), bytes.fromhex(v["message"])
    agree(p, "message", message, seal(plaintext, nonce, shared_key(sender_seed, recipient.public)))
    agree(p, "message length", len(message), len(plaintext) + 16)
    by_recipient = open_box(message, nonce, shared_key(recipient.ed_seed, sender_public))
    by_sender = open_box(message, nonce, shared_key(sender_seed, recipient.public))  # §6.3: the key is symmetric
    agree(p, "plaintext (recipient decrypts)", plaintext, by_recipient)
    agree(p, "plaintext (sender decrypts)", plaintext, by_sender)
    return p


def check_signal(v):
    p = []
    ns = v.get("service", "ans") == "ns"
    agree(p, "service absent (the ANS) or ns", v.get("service") in (None, "ns"), True)
    agree(p, "payload validity", None, signal_problem(v["payload"]))
    if ns:
        agree(p, "payload validity for adamant-ns", None, ns_payload_problem(v["payload"]))
        if ns_payload_problem(v["payload"]) is None:
            expected = {**v["payload"], "provider": NS_PROVIDER[v["payload"]["provider"]]}
            agree(p, "plaintext", v["plaintext"], ns_signal_text(v["payload"]))
            agree(p, "plaintext read by the adamant-ns schema", ns_schema(v["plaintext"]), ("accepted", expected))
    else:
        agree(p, "plaintext", v["plaintext"], signal_text(v["payload"]))
    service_key = bytes.fromhex(v["servicePublicKey"])
    agree(p, "serviceAddress", v["serviceAddress"], address(service_key))
    obj = v["transaction"]
    tx = decode_transaction(obj)
    validate(tx)
    agree(p, "type / amount / chat type", (tx["type"], tx["amount"], tx["chat"]["type"]), (8, 0, 3))
    agree(p, "transaction.recipientId", tx["recipientId"], v["serviceAddress"])
    sender = keys(v["senderPassphrase"])
    agree(p, "transaction.senderId", obj.get("senderId"), sender.address)
    agree(p, "nonce", v["nonce"], tx["chat"]["nonce"].hex())
    agree(p, "asset.chat.message", tx["chat"]["message"],
          seal(v["plaintext"].encode(), tx["chat"]["nonce"], shared_key(sender.ed_seed, service_key)))
    if "servicePassphrase" in v:
        service = keys(v["servicePassphrase"])
        agree(p, "servicePublicKey", service_key, service.public)
        opened = open_box(tx["chat"]["message"], tx["chat"]["nonce"], shared_key(service.ed_seed, sender.public))
        agree(p, "plaintext (service decrypts)", v["plaintext"].encode(), opened)
        if ns:
            agree(p, "what the service decrypts passes its schema", ns_schema(opened)[0], "accepted")
    agree(p, "bytes", v["bytes"], signed_bytes(tx).hex())
    agree(p, "id", v["id"], verify(tx))
    agree(p, "transaction.id", obj.get("id"), v["id"])
    agree(p, "fee", v["fee"], node_fee(tx))
    agree(p, "transaction.fee", obj.get("fee"), v["fee"])
    return p


def amount_problem(text):
    """The Swift ADMAmount parser: digits[.digits], ≤ 8 decimals, ≤ total supply."""
    whole, point, fraction = text.partition(".")
    if not re.fullmatch("[0-9]+", whole) or not re.fullmatch("[0-9]*", fraction) or (point and not fraction):
        return "amountFormat"
    if len(fraction) > 8:
        return "amountTooPrecise"
    if len(whole) > 8 or int(whole) * 10**8 + int(fraction.ljust(8, "0")) > TOTAL:
        return "amountOutOfRange"
    return None


CLASSIFIERS = {
    "address": address_problem,
    "amount": amount_problem,
    "publicKey": lambda text: None if is_hex(text, 32) else "nonCanonicalHex",
    "transaction": transaction_problem,
    "chat": chat_problem,
    "signal": signal_problem,
    "nsSignal": ns_signal_problem,
    "service": service_problem,
}


def check_invalid(v):
    p = []
    if v["category"] == "passphrase":
        kind, extra = passphrase_problem(v["input"]) or (None, {})
        agree(p, "error", v["error"], kind)
        for field, value in extra.items():
            agree(p, field, v.get(field), value)
        return p
    agree(p, "error", v["error"], CLASSIFIERS[v["category"]](v["input"]))
    if "plaintextHex" in v:
        value = v["input"]
        key = shared_key(keys(value["recipientPassphrase"]).ed_seed, bytes.fromhex(value["senderPublicKey"]))
        opened = open_box(bytes.fromhex(value["message"]), bytes.fromhex(value["nonce"]), key)
        agree(p, "plaintextHex", v["plaintextHex"], opened.hex() if opened is not None else None)
    return p


# --- anchors from the spec and coverage of the brief ------------------------------------------

def anchor_checks(files):
    """Values printed in docs/protocol.md, so the generator and this checker can't share a mistake."""
    by_name = lambda f: {v.get("passphrase") or v.get("name"): v for v in files[f]}
    keys_by_phrase, txs = by_name("keys.json"), files["transactions.json"]
    worked = keys_by_phrase.get("wrap track hamster grocery casual talk theory half artist toast art essence", {})
    ids = {v["id"] for v in txs}
    docs_bytes = ("00" "b4cbc403" "8cd9631f9f634a361ea3b85cbd0df882633e39e7d26d7bc615bbcf75e41524ef"
                  "e7250dff810b6692" "00e1f50500000000")  # §4.1, field by field
    return {
        "§1.3 worked example seed": worked.get("seed", "")[:16] == "28b0203861315522",
        "§1.3 worked example privateKey = hash || publicKey":
            worked.get("privateKey", "").startswith("24a26e6cd6283528f6e2637dcf834434176cf8696647bd4aa6223f349882dc96"),
        "§1.3 worked example address": worked.get("address") == "U6687642817984673870",
        "§1.5 process gospel and bring hurry keys present": {
            "process gospel angry height between flat always clock suit refuse shove verb",
            "bring hurry funny hamster fever observe cat property crawl mule course lizard"} <= set(keys_by_phrase),
        "§3.1/§3.3 docs ids present": {"6146865104403680934", "2515012750420367858", "12154642911137703318"} <= ids,
        "§4.1 docs transfer bytes": any(v["bytes"] == docs_bytes for v in txs),
        "§6.3 common vector": any(v["message"] == "09af1ce7e5ed484ddca3c6d1410cbf4f793ea19210e7"
                                  and v["plaintext"] == "common" for v in files["chat.json"]),
        "KVS docs ids present": {"13920471299012339255", "3888802408802922744"} <= ids,
        "§9 contact_list stored as a type 9 value": any(
            v["transaction"].get("asset", {}).get("state", {}).get("value") == k["value"]
            for v in txs for k in files["kvs.json"]),
        "§7.3 ANS address": address(bytes.fromhex("188b24bd116a556ac8ba905bbbdaa16e237dfb14269f5a4f9a26be77537d977c"))
                            == "U10629337621822775991",
        "node-api §4.2 adamant-ns address": address(bytes.fromhex(NS_PUBLIC_KEY)) == NS_ADDRESS,
        **ns_schema_anchors(),
    }


def ns_schema_anchors():
    """The schema model against the service's rules as written, so it cannot pass whatever it is given."""
    good = {"deviceId": "d1", "token": "t1", "provider": "FCM", "action": "add"}
    text = lambda **changes: json.dumps({k: v for k, v in {**good, **changes}.items() if v is not None})
    refused = {
        "lowercase provider": text(provider="fcm"), "apns-sandbox": text(provider="APNS-SANDBOX"),
        "no deviceId": text(deviceId=None), "numeric deviceId": text(deviceId=7), "no token": text(token=None),
        "action Add": text(action="Add"), "no action": text(action=None), "an array": "[%s]" % text(),
        "not JSON": text()[:-1], "NaN token": text().replace('"t1"', "NaN"), "bytes not UTF-8": b"\xff{}",
    }
    out = {"adamant-ns schema refuses %s" % name: ns_schema(value)[0] == "refused" for name, value in refused.items()}
    out["adamant-ns schema takes extra keys and any key order"] = ns_schema(
        '{"action":"remove","extra":1,"provider":"APNS","token":"","deviceId":"x"}')[0] == "accepted"
    return out


def coverage_checks(files):
    txs, fees = files["transactions.json"], {v["fee"] for v in files["transactions.json"]}
    shapes = [v["transaction"] for v in txs]
    chat_types = {t["asset"]["chat"]["type"] for t in shapes if t.get("asset", {}).get("chat")}
    return {
        "≥ 25 keys": len(files["keys.json"]) >= 25,
        "≥ 45 generated transactions": sum("passphrase" in v for v in txs) >= 45,
        "fees 0.001 … 0.026 ADM, legacy 0.005 and 0.5 exercised": {100_000, 200_000, 300_000, 500_000, 2_600_000,
                                                                  50_000_000} <= fees,
        "chat types 0-3": chat_types == {0, 1, 2, 3},
        "node shapes: confirmed, chats/get, pool, submit": all(any(f(t) for t in shapes) for f in (
            lambda t: t.get("height") is not None, lambda t: "requesterPublicKey" in t,
            lambda t: "relays" in t, lambda t: "id" not in t)),
        "≥ 21 chat vectors": len(files["chat.json"]) >= 21,
        "≥ 10 state (type 9) transactions": sum(t["type"] == 9 for t in shapes) >= 10,
        "≥ 4 kvs vectors": len(files["kvs.json"]) >= 4,
        "≥ 12 signal vectors": len(files["signals.json"]) >= 12,
        **ns_coverage(files["signals.json"]),
        "≥ 60 invalid vectors": len(files["invalid.json"]) >= 60,
    }


def ns_coverage(signals):
    ns = [v for v in signals if v.get("service") == "ns"]
    payloads = {(v["payload"]["provider"], v["payload"]["action"]) for v in ns}
    devices = [v["payload"].get("deviceId") or "" for v in ns]
    return {
        "≥ 4 ns signal vectors": len(ns) >= 4,
        "ns: fcm add, fcm remove, apns add, apns remove": {
            ("fcm", "add"), ("fcm", "remove"), ("apns", "add"), ("apns", "remove")} <= payloads,
        "ns: a 128-character deviceId": 128 in map(len, devices),
        "ns: a deviceId of 32 hex digits, as adm-push makes them": any(is_hex(d, 16) for d in devices),
        "ns: to the mainnet adamant-ns identity": any(v["serviceAddress"] == NS_ADDRESS
                                                      and v["servicePublicKey"] == NS_PUBLIC_KEY for v in ns),
        "ns: to a service the check decrypts as": any("servicePassphrase" in v for v in ns),
        "no ANS signal's plaintext passes the adamant-ns schema": not any(
            ns_schema(v["plaintext"])[0] == "accepted" for v in signals if v.get("service", "ans") == "ans"),
    }


# --- signals the devnet's adamant-ns heard in a test run --------------------------------------

NS_SIGNAL_LOG = ROOT / ".build" / "ns-signals.jsonl"


def check_ns_signal(entry):
    """One line of the emulator's log: the transaction, the service's passphrase (or secret key)
    and the emulator's verdict, "applied" (the action) or "dropped" (why). The service decrypts
    with its key and the sender's; its schema then accepts the signal exactly when the emulator
    applied it, with the same action."""
    if ("applied" in entry) == ("dropped" in entry) or entry.get("applied", "add") not in ("add", "remove"):
        return ["the line's verdict is not one of applied add, applied remove or dropped"]
    p = []
    obj = entry["transaction"]
    tx = decode_transaction(obj)
    validate(tx)
    agree(p, "transaction.id", obj.get("id"), verify(tx))
    if "servicePassphrase" in entry:
        service = keys(entry["servicePassphrase"])
        seed, public = service.ed_seed, service.public
    else:
        secret = bytes.fromhex(entry["serviceSecretKey"])
        seed, public = secret[:32], secret[32:]
    agree(p, "type / chat type", (tx["type"], tx["chat"]["type"]), (8, 3))
    agree(p, "recipientId is the service", tx["recipientId"], address(public))
    opened = open_box(tx["chat"]["message"], tx["chat"]["nonce"], shared_key(seed, tx["senderPublicKey"]))
    verdict, detail = ns_schema(opened) if opened is not None else ("refused", "cannot decrypt")
    mine = ("applied", detail["action"]) if verdict == "accepted" else ("dropped",)
    emulators = ("applied", entry["applied"]) if "applied" in entry else ("dropped",)
    if mine != emulators:  # the reasons for a drop may be worded apart
        p.append("the emulator %s, the schema's model %s" % (
            " ".join(emulators) + (" (%s)" % entry.get("dropped") if "dropped" in entry else ""),
            " ".join(mine) + ("" if verdict == "accepted" else " (%s)" % detail)))
    return p


def ns_signal_results(path, required):
    """(label, problems) for each line of the log, then for "at least one applied". An empty log
    found in its usual place is a run that sent adamant-ns nothing (a filtered one): no checks."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines and not required:
        print("ns signals: %s is empty" % path)
        return []
    results, applied = [], 0
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except ValueError as error:
            results.append(("line %d" % number, ["not JSON: %s" % error]))
            continue
        applied += "applied" in entry
        label = "line %d (%s)" % (number, (entry.get("transaction") or {}).get("id"))
        results.append((label, run_one(check_ns_signal, entry)))
    results.append(("at least one signal applied", [] if applied else ["no line says applied"]))
    print("ns signals: %d from %s, %d applied" % (len(lines), path, applied))
    return [("%s: %s" % (path.name, label), problems) for label, problems in results]


# --- runner -----------------------------------------------------------------------------------

CHECKS = {"keys.json": check_key, "transactions.json": check_transaction, "chat.json": check_chat,
          "signals.json": check_signal, "kvs.json": check_kvs, "invalid.json": check_invalid}


def run_one(check, vector):
    try:
        return check(vector)
    except Rejected as rejection:
        return ["the transaction is rejected: %s" % rejection.kind]
    except Exception as error:  # a malformed vector must be reported, not crash the run
        return ["%s: %s" % (type(error).__name__, error)]


def main():
    parser = argparse.ArgumentParser(description="Re-derives every vector in Vectors/ independently.")
    parser.add_argument("--ns-signals", metavar="FILE", type=Path,
                        help="the adamant-ns emulator's signal log (default: %s, when it exists)"
                             % NS_SIGNAL_LOG.relative_to(ROOT))
    args = parser.parse_args()
    if args.ns_signals is not None and not args.ns_signals.is_file():
        sys.exit("crosscheck: no signal log at %s" % args.ns_signals)
    files = {name: json.loads((VECTORS / name).read_text(encoding="utf-8")) for name in CHECKS}
    passed = failed = 0
    for name, check in CHECKS.items():
        for vector in files[name]:
            problems = run_one(check, vector)
            if problems:
                failed += 1
                print("FAIL %s: %s: %s" % (name, vector.get("name") or vector.get("passphrase"), "; ".join(problems)))
            else:
                passed += 1
    for label, ok in {**anchor_checks(files), **coverage_checks(files)}.items():
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s" % label)
    log = args.ns_signals or (NS_SIGNAL_LOG if NS_SIGNAL_LOG.exists() else None)
    for label, problems in ns_signal_results(log, args.ns_signals is not None) if log else []:
        if problems:
            failed += 1
            print("FAIL %s: %s" % (label, "; ".join(problems)))
        else:
            passed += 1
    print("crosscheck: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
