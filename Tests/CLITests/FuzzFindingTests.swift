import Testing

/// What the fuzz targets found (Fuzz/Crashes/), typed as a user would.
struct FuzzFindingTests {
    /// Fuzz/Crashes/arguments/passphrase-file-quoted-back: the passphrase itself given where
    /// its file's path goes is an easy slip, and the error must not print it back, as stray arguments holding passphrase words are withheld.
    @Test func aPassphraseGivenAsThePassphraseFileIsNotPrinted() async throws {
        let result = try await run("adm-push", ["keys", "--passphrase-file", Self.passphrase])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: cannot read --passphrase-file"))
        #expect(!result.stderr.contains("hamster"), "the passphrase is printed: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// Fuzz/Crashes/arguments/node-url-repeated, nethash-repeated, adm-nodes-repeated: the
    /// node options' errors come from AdamantNodes (`NodeURLError`, `NodeListError`), which put
    /// the value in double quotes, past the CLI's `quoted`.
    @Test(arguments: [
        (["nodes", "--node", passphrase], [String: String]()),
        (["nodes", "--nethash", passphrase], [:]),
        (["nodes"], ["ADM_NODES": passphrase]),
    ])
    func aPassphraseGivenAsANodeOptionIsNotPrinted(arguments: [String], environment: [String: String]) async throws {
        let result = try await run("adm-push", arguments, environment: environment)
        #expect(result.status == 64)
        #expect(!result.stderr.contains("hamster"), "the passphrase is printed: \(result.stderr)")
    }

    /// Fuzz/Crashes/arguments/option-joined-to-a-passphrase: a passphrase glued to an unknown
    /// option (`--x=wrap track …`) was quoted back, because the words were counted only between
    /// spaces and "--x=wrap" is not a word.
    @Test(arguments: [
        ["--t-hcksADM_NODES=wrap track jamster grocerytoashapt "], ["keys", "--passphrase-file=wrap track x"],
    ])
    func aPassphraseJoinedToAnOptionIsNotPrinted(_ arguments: [String]) async throws {
        let result = try await run("adm-push", arguments)
        #expect(result.status == 64)
        #expect(!result.stderr.contains("track"), "the passphrase is printed: \(result.stderr)")
    }

    static let passphrase = "wrap track hamster grocery casual talk theory half artist toast art essence"
}
