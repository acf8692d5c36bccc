#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/) from Vectors/*.json and
the node answers of docs/node-api.md (§1.1–§1.6), in the input formats documented in
Sources/adm-fuzz/. The seeds are committed; run this again after the vectors change:

    python3 Fuzz/make_corpus.py

The seeds of own-signals and outbox-store need the project's own signing and stores, so adm-fuzz
writes them:

    swift run adm-fuzz --write-seeds TARGET Fuzz/Corpus/TARGET
"""
import ctypes
import ctypes.util
import json
import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"
MAX_SEED = 6000  # larger seeds make libFuzzer try larger inputs everywhere, for little gain


def vectors(name):
    return json.loads((ROOT / "Vectors" / f"{name}.json").read_text())


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Seeds:
    def __init__(self, target):
        self.dir = CORPUS / target
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.count = 0

    def add(self, name, data):
        data = data.encode() if isinstance(data, str) else bytes(data)
        if len(data) > MAX_SEED:
            return
        self.count += 1
        stem = "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())[:60] or "seed"
        path, copy = self.dir / stem, 1
        while path.exists():
            copy += 1
            path = self.dir / f"{stem}-{copy}"
        path.write_bytes(data)


TRANSACTIONS = vectors("transactions")
SIGNALS = vectors("signals")
INVALID = vectors("invalid")
TRANSFER = TRANSACTIONS[0]  # the docs' transfer; NodeAnswersFuzz looks it up by this id
NETHASH = "bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64"
ANS_ADDRESS, ANS_KEY = "U10629337621822775991", "188b24bd116a556ac8ba905bbbdaa16e237dfb14269f5a4f9a26be77537d977c"  # the iOS ANS


def as_node_sends(vector, confirmed=True):
    """A vector transaction with what a node adds to it (docs/node-api.md §1.4)."""
    tx = dict(vector["transaction"])
    tx.update(id=vector["id"], fee=vector["fee"])
    if confirmed:
        tx.update(height=3245671, blockId="13885000778367150465", block_timestamp=tx["timestamp"] + 6,
                  timestampMs=None, recipientPublicKey=None, signatures=[], confirmations=8001268)
    else:
        tx.update(blockId=None, height=None, confirmations=0, relays=1, receivedAt="2019-07-16T04:38:38.492Z")
    tx.setdefault("asset", {})
    return tx


def transaction_seeds():
    seeds = Seeds("transaction")
    for vector in TRANSACTIONS:
        seeds.add(vector["name"], compact(vector["transaction"]))
    for vector in TRANSACTIONS[:6]:
        seeds.add(vector["name"] + " confirmed", compact(as_node_sends(vector)))
        seeds.add(vector["name"] + " pooled", compact(as_node_sends(vector, confirmed=False)))
    strings = dict(as_node_sends(TRANSFER), height="3245671", fee="50000000", confirmations="12", amount="100000000")
    seeds.add("numbers as strings", compact(strings))
    for vector in SIGNALS[:3]:
        seeds.add(vector["name"], compact(vector["transaction"]))
    for vector in INVALID:
        if vector["category"] == "transaction":
            seeds.add(vector["name"], compact(vector["input"]))
    return seeds


def status(version="0.10.3", height=1034307, nethash=NETHASH, timestamp=230021386, millis=True):
    """`/api/node/status` in the shape of `version` (docs/node-api.md §1.6)."""
    body = {"success": True, "nodeTimestamp": timestamp,
            "network": {"broadhash": NETHASH, "epoch": "2017-09-02T17:00:00.000Z", "height": height,
                        "fee": 50000000, "milestone": 0, "nethash": nethash, "reward": 0,
                        "supply": 9800000000000000},
            "version": {"build": "", "commit": "c32e74", "version": version},
            "wsClient": {"enabled": True, "port": 36668}}
    if version >= "0.9":
        body["loader"] = {"loaded": True, "now": 1031082, "syncing": False, "consensus": 100, "blocks": 0,
                          "blocksCount": 0}
    if millis:
        body.update(nodeTimestampMs=timestamp * 1000 + 123, unixTimestampMs=1504371600000 + timestamp * 1000 + 123)
    return compact(body)


def ok(**fields):
    return compact({"success": True, "nodeTimestamp": 230021386, **fields})


def error(message, status_code=200, timestamp=True):
    body = {"success": False, "error": message}
    if timestamp:
        body["nodeTimestamp"] = 230021386
    text = compact(body)
    return text if status_code == 200 else f"{status_code} {text}"


def node_seeds():
    """`header ‖ answers separated by 0x1E`; see NodeAnswersFuzz for the layout."""
    seeds = Seeds("node-answers")
    rs = "\x1e"
    chat = as_node_sends(TRANSACTIONS[1])
    replies = {
        0: [""],
        1: [""],
        2: [ok(height=1034307), error("Blockchain is loading")],
        3: [ok(transaction=as_node_sends(TRANSFER)), error("Transaction not found"), "500 " + error("API error: boom", timestamp=False)],
        4: [error("Transaction not found"), ok(transaction=as_node_sends(TRANSFER, confirmed=False))],
        5: [ok(transactions=[chat], count=1), ok(transactions=[], count="0"), error("Failed to get transactions: Invalid limit. Maximum is 100")],
        6: [ok(transactions=[as_node_sends(TRANSFER)], count="12"), error("Failed to get transactions: Parameter is not supported: x")],
        7: [ok(account={"address": TRANSFER["transaction"]["senderId"], "unconfirmedBalance": "100", "balance": "100",
                        "publicKey": TRANSFER["transaction"]["senderPublicKey"], "unconfirmedSignature": 0,
                        "secondSignature": 0, "secondPublicKey": None, "multisignatures": [], "u_multisignatures": []}),
            error("Account not found")],
        8: [ok(balance="10000000000", unconfirmedBalance="9950000000"), ok(balance=0, unconfirmedBalance=0)],
        9: [ok(publicKey=TRANSFER["transaction"]["senderPublicKey"]), error("Account not found")],
        10: [ok(transactionId=TRANSFER["id"]), error(f"Transaction is already processed: {TRANSFER['id']}"),
             error("Transaction timestamp is in the future"), error("Transaction timestamp is more than 5 seconds in the past"),
             error("Account does not have enough ADM: U1 balance: 0"), error("Transaction pool is full"),
             "500 " + error("API error: Connection terminated unexpectedly", timestamp=False), "429 Too many requests"],
        11: [ok(transactionId="1"), error("Invalid transaction timestamp. Timestamp is in the future")],
    }
    statuses = [status(), status("0.9.0", millis=False), status("0.8.3", millis=False)]
    odd_statuses = [
        status(height=-5), status(height=0), status(timestamp=-1, millis=False),
        status(nethash="38f153a81332dea86751451fd992df26a9249f0834f72f58f84ac31cceb70f43"), status("0.7.0"),
        "404 <!DOCTYPE html><html><body><pre>Cannot GET /api/node/status</pre></body></html>",
        "500 " + error("API access disabled", timestamp=False), "403 " + error("API access denied", timestamp=False),
        '{"success":true,"nodeTimestamp":<!-- not json -->',
    ]
    for op, answers in replies.items():
        for index, answer in enumerate(answers):
            seeds.add(f"op{op}-one-node-{index}", bytes([op]) + (statuses[index % 3] + rs + answer).encode())
        # Three nodes (header / 12 % 3 == 2), one lagging and one on an old version.
        three = [statuses[0], answers[0], status(height=1034300), answers[-1], status("0.9.0", millis=False), answers[0]]
        seeds.add(f"op{op}-three-nodes", bytes([op + 24]) + rs.join(three).encode())
    # 0x01 ‖ (tag, delta) for height, nodeTimestamp, nodeTimestampMs ‖ flags; tag 0 is typical.
    def numbers(height=(0, 0), timestamp=(0, 0), millis=(0, 0), flags=0):
        return b"\x01" + struct.pack("<BbBbBbB", *height, *timestamp, *millis, flags)
    binary = [numbers(), numbers(height=(0, -7), flags=1), numbers(flags=4), numbers(height=(0, -100), flags=2),
              numbers(timestamp=(0, 3))]
    for index, status_bytes in enumerate(binary):
        seeds.add(f"health-numbers-{index}", bytes([0]) + status_bytes)
    for op in (0, 1, 10, 11):
        for index, status_bytes in enumerate(binary):
            seeds.add(f"op{op}-numbers-{index}", bytes([op + 12]) + status_bytes + rs.encode() + replies[op][0].encode()
                      + rs.encode() + binary[0] + rs.encode() + replies[op][0].encode())
    for index, odd in enumerate(odd_statuses):
        two = [odd, "", statuses[0], ""]
        seeds.add(f"health-odd-status-{index}", bytes([12]) + rs.join(two).encode())
    return seeds


def signal_seeds():
    seeds = Seeds("signal")
    for vector in SIGNALS:
        seeds.add(vector["name"], vector["plaintext"])
    for vector in INVALID:
        if vector["category"] == "signal":
            seeds.add(vector["name"], compact(vector["input"]))
    seeds.add("spaced mixed case", '{ "action" : "ADD", "provider": "FCM", "token": "' + "a" * 32 + '", "deviceId": "d.1" }')
    return seeds


def chat_seeds():
    """`mode ‖ [partner key] ‖ nonce length ‖ nonce ‖ message`, sealed with libsodium (as in
    ChatKey) between the chat vectors' first pair, which ChatFuzz holds."""
    sodium = ctypes.CDLL(ctypes.util.find_library("sodium"))
    assert sodium.sodium_init() >= 0
    first = vectors("chat")[0]
    secret = bytes.fromhex(first["senderSecretKey"])
    partner = bytes.fromhex(first["recipientPublicKey"])
    curve_secret, curve_partner, shared = (ctypes.create_string_buffer(32) for _ in range(3))
    assert sodium.crypto_sign_ed25519_sk_to_curve25519(curve_secret, secret) == 0
    assert sodium.crypto_sign_ed25519_pk_to_curve25519(curve_partner, partner) == 0
    assert sodium.crypto_box_beforenm(shared, curve_partner, curve_secret) == 0

    def seal(plaintext, nonce):
        out = ctypes.create_string_buffer(len(plaintext) + 16)
        assert sodium.crypto_box_easy_afternm(out, plaintext, ctypes.c_ulonglong(len(plaintext)), nonce, shared) == 0
        return out.raw

    seeds = Seeds("chat")
    nonce = bytes.fromhex(first["nonce"])
    seeds.add("common vector", bytes([2, 24]) + nonce + bytes.fromhex(first["message"]))
    plaintexts = {"empty": b"", "text": "héllo 👋".encode(), "invalid utf-8": b"\xff\xfe\xc3(",
                  "signal": SIGNALS[0]["plaintext"].encode(), "signal uppercase": SIGNALS[0]["plaintext"].upper().encode()}
    for mode, (name, plaintext) in enumerate(plaintexts.items()):
        seeds.add(name, bytes([2 * mode, 24]) + nonce + seal(plaintext, nonce))
    seeds.add("short nonce", bytes([2, 12]) + nonce[:12] + seal(b"x", nonce))
    seeds.add("tag only", bytes([2, 24]) + nonce + seal(b"", nonce)[:16])
    seeds.add("hostile partner", bytes([1]) + partner + bytes([24]) + nonce + bytes.fromhex(first["message"]))
    seeds.add("small-order partner", bytes([1]) + bytes(32) + bytes([24]) + nonce + bytes(17))
    for vector in INVALID:
        if vector["category"] == "chat":
            key = bytes.fromhex(vector["input"].get("senderPublicKey", "00" * 32))
            text_nonce = vector["input"].get("nonce", "")
            body = bytes.fromhex(text_nonce) if len(text_nonce) % 2 == 0 else b""
            seeds.add(vector["name"], bytes([3]) + key + bytes([len(body)]) + body + bytes.fromhex(vector["input"].get("message", "")))
    return seeds


def passphrase_seeds():
    seeds = Seeds("passphrase")
    for index, vector in enumerate(vectors("keys")):
        seeds.add(f"valid {index}", vector["passphrase"])
    for vector in INVALID:
        if vector["category"] == "passphrase":
            seeds.add(vector["name"], vector["input"])
    return seeds


def values_seeds():
    """`selector ‖ text`: 0 address, 1 amount, 2 id, 3 public key, 4 version, 5 nethash, 6 node URL, 7 hex."""
    seeds = Seeds("values")
    examples = {
        0: ["U6687642817984673870", "U0", "U18446744073709551615", "U18446744073709551616"],
        1: ["1", "0.5", "0.00000001", "98000000", "98000000.00000001", "00.10"],
        2: ["6146865104403680934", "0", "18446744073709551615", "18446744073709551616"],
        3: [TRANSFER["transaction"]["senderPublicKey"]],
        4: ["0.10.3", "0.8.0", "1.2", "99999999999999999999.0.0"],
        5: [NETHASH, NETHASH.upper()],
        6: ["https://clown.adamant.im", "http://127.0.0.1:36666/", "http://[::1]:8080/api", "http://u:p@h", "http://h:0"],
        7: ["", "00ff", "0F"],
    }
    category = {"address": 0, "amount": 1, "publicKey": 3}
    for vector in INVALID:
        if vector["category"] in category:
            examples[category[vector["category"]]].append(vector["input"])
    for selector, texts in examples.items():
        for index, text in enumerate(texts):
            seeds.add(f"{selector}-{index}", bytes([selector]) + text.encode())
    return seeds


def argument_seeds():
    """NUL-separated arguments; fields before an empty field are the environment."""
    seeds = Seeds("arguments")
    lines = [
        ["nodes", "--node", "http://127.0.0.1:36666", "--node=https://clown.adamant.im", "--nethash", NETHASH, "--json"],
        ["nodes", "--node", "http://a", "--node", "http://a/", "extra"],
        ["nodes", "--nethash", "zz", "--nethash", NETHASH],
        ["nodes", "--nodes", "x"], ["nodes", "--json=1"], ["nodes", "-h"], ["nodes", "--", "--json"],
        ["keys", "--passphrase-file", "/nonexistent", "--json"], ["keys", "--passphrase-file"],
        ["keys", "--passphrase-file", "passphrase.txt"], ["keys", "--passphrase-file=passphrase.txt"],
        ["wrap", "track"], ["nodes", "wrap track"], ["help", "nodes", "wrap"],
        ["help"], ["help", "keys"], ["help", "nodez", "extra"], ["--help"], ["nodz"], [],
    ]
    for index, line in enumerate(lines):
        seeds.add(f"line-{index}", "\0".join(line))
    seeds.add("environment", "ADM_NODES=http://127.0.0.1:1, http://127.0.0.1:2,\0\0nodes\0--json")
    seeds.add("blank environment", "ADM_NODES=\0\0nodes")
    return seeds


def config_seeds():
    seeds = Seeds("config")
    files = [
        {"nodes": ["https://clown.adamant.im", "http://192.168.1.5:36666"], "nethash": NETHASH},
        {"nodes": []}, {"nethash": "zz"}, {}, {"nodes": ["ftp://x"]}, {"nodes": [" http://a ", "http://A/"]},
        {"nodes": "http://a"}, {"other": {"nested": [1, 2]}, "nodes": ["http://[::1]:1"]},
        {"home": "~/adm-push", "service": {"address": ANS_ADDRESS, "publicKey": ANS_KEY}},
        {"home": "/var/lib/adm-push", "nodes": ["http://127.0.0.1:36666"]}, {"home": "relative"},
        {"service": {"address": "U1", "publicKey": ANS_KEY}}, {"service": {"address": ANS_ADDRESS}},
        {"service": {"address": ANS_ADDRESS, "publicKey": ANS_KEY, "name": "ANS"}},
        {"accounts": [{"passphraseFile": "~/.config/adm-push/alice", "home": "/h/alice"}, {"passphraseFile": "/k"}]},
        {"notify": True, "open": "xdg-open \"$ADM_CHAT_URL\"", "preview": "none", "kinds": ["messages", "reactions"]},
        {"mute": [ANS_ADDRESS, {"address": ANS_ADDRESS, "until": "2026-12-24T18:00:00Z"}], "quiet": "22:00-07:00", "quietMode": "hold"},
        {"mute": [{"address": ANS_ADDRESS, "until": "2024-02-29T23:59:59Z"}], "quiet": "24:00-07:00", "kinds": ["calls"]},
    ]
    for index, body in enumerate(files):
        seeds.add(f"config-{index}", json.dumps(body, indent=2))
    seeds.add("not json", "nodes = [http://a]")
    seeds.add("broken on line 3", '{\n  "nodes": ["http://a"],\n  "home": /srv\n}')
    seeds.add("trailing commas", '{"nodes": ["http://a",], "home": "/h",}')
    return seeds


def devnet_seeds():
    """`selector ‖ body` for the three submission paths (docs/node-api.md §1.2), `selector ‖ query` for
    the read endpoints (§1.3–§1.6); see DevnetFuzz."""
    seeds = Seeds("devnet")
    queries = {
        3: ["type=0&and:fromHeight=1&limit=1000&orderBy=height:desc", "types=0,8&senderIds=U1,U2&offset=-1", "bogus=1", "limit="],
        4: ["isIn=U1&type=3&orderBy=timestamp:desc&limit=101", "senderId=U1&recipientId=U2&includeDirectTransfers=false",
            "fromHeight=9223372036854775807&offset=18446744073709551616"],
        5: [f"id={TRANSFER['id']}&returnAsset=1", "id=&returnUnconfirmed=1"],
        6: ["address=U6687642817984673870", "publicKey=zz", ""],
        7: ["senderPublicKey=" + TRANSFER["transaction"]["senderPublicKey"] + "&address=U1"],
    }
    for selector, texts in queries.items():
        for index, text in enumerate(texts):
            seeds.add(f"get-{selector}-{index}", bytes([selector]) + text.encode())
    seeds.add("0.9 node", bytes([128]) + compact({"transaction": TRANSFER["transaction"]}).encode())
    for index, vector in enumerate(TRANSACTIONS + SIGNALS[:2]):
        seeds.add(f"{index}-{vector['name']}", bytes([index % 3]) + compact({"transaction": vector["transaction"]}).encode())
    overflow = dict(TRANSFER["transaction"], timestamp=9223372036854775807)
    seeds.add("timestamp int64 max", bytes([1]) + compact({"transaction": overflow}).encode())
    seeds.add("timestampMs int64 min", bytes([1]) + compact({"transaction": dict(TRANSFER["transaction"], timestampMs=-9223372036854775808)}).encode())
    seeds.add("timestamp 1e16", bytes([1]) + b'{"transaction":{"type":0,"timestamp":1e16,"signature":"' + b"00" * 64 + b'"}}')
    seeds.add("type as string", bytes([0]) + b'{"transaction":{"type":"8","signature":"' + b"00" * 64 + b'"}}')
    seeds.add("not json", bytes([0]) + b"{transaction:")
    return seeds


if __name__ == "__main__":
    for make in (transaction_seeds, node_seeds, signal_seeds, chat_seeds, passphrase_seeds, values_seeds,
                 argument_seeds, config_seeds, devnet_seeds):
        written = make()
        print(f"{written.dir.relative_to(ROOT)}: {written.count} seeds")
