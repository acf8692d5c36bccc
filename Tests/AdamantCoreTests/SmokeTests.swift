import AdamantCore
import Foundation
import Testing

@Test func smoke() throws {
    let p = try Passphrase(validating: "wrap track hamster grocery casual talk theory half artist toast art essence")
    let keys = KeyPair(passphrase: p)
    #expect(keys.publicKey.hex == "7db9b51bc75fed7b8e631e2efaad38305b12c6b3d3d9f6af3498fdcb7b35c284")
    #expect(keys.address.description == "U6687642817984673870")
    let json = #"{"type":8,"amount":0,"senderId":"U13246415250845952364","senderPublicKey":"a448d99d5da6907dd022c62723f30971f4c1b5b79441da7f5e67f39d545f755e","asset":{"chat":{"message":"f96383619244c7e06f39f592b55cc551acc72710","own_message":"d0801b9a647fd1469883f918ec616241c79d6f6f7914ddb0","type":1}},"recipientId":"U15677078342684640219","timestamp":63652706,"signature":"9d35f06fa5b80df650bc4bdfac25974fecacb53de67d25b485f674102f77205ac1e161b13ddad98f1dd7ae0016cceaa254f401c0ee359e45e982e32b1e4fcf0b"}"#
    let tx = try JSONDecoder().decode(Transaction.self, from: Data(json.utf8))
    #expect(try tx.verify().description == "2515012750420367858")
    let t0 = #"{"type":0,"amount":100000000,"senderId":"U14236667426471084862","senderPublicKey":"8cd9631f9f634a361ea3b85cbd0df882633e39e7d26d7bc615bbcf75e41524ef","recipientId":"U16655734187932477074","timestamp":63228852,"signature":"b3982d603be8f0246fa663e9f012bf28b198cd28f82473db1eb4a342d890f7a2a2c1845db8d256bb5bce1e64a9425822a91e10bf960a2e0b55e20b4841e4ae0b"}"#
    let tx0 = try JSONDecoder().decode(Transaction.self, from: Data(t0.utf8))
    #expect(try tx0.verify().description == "6146865104403680934")
    var sk = Hex.decode("e91ee8e6a23ac5ff9452a15a3fbd14098dc2c6a5abf6b12464b09eb033580b6d9f895a201fd92cc60ef02d2117d53f00dc2981903cb64b2f214777269b882209")!
    let sender = try KeyPair(secretKey: &sk)
    let asset = try ChatKey(secretKey: sender.secretKey, partner: PublicKey(hex: "8007a01493bb4b21ec67265769898eb19514d9427bd7b701f96bc9880a6e209f")).seal("common", nonce: Hex.decode("31caaee2d35dcbd8b614e9d6bf6095393cb5baed259e7e37")!)
    #expect(Hex.encode(asset.message) == "09af1ce7e5ed484ddca3c6d1410cbf4f793ea19210e7")
    let r = KeyPair(passphrase: try Passphrase(validating: "process gospel angry height between flat always clock suit refuse shove verb"))
    #expect(try ChatKey(secretKey: r.secretKey, partner: sender.publicKey).open(asset) == "common")
    print(String(decoding: try tx.submissionBody(), as: UTF8.self))
}
