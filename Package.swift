// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "adm-push",
    // Linux is where this is built and tested. On Apple platforms the floor is Synchronization's
    // Mutex and Atomic (macOS 15, iOS 18); docs/portability.md says what has been built where.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "AdamantCore", targets: ["AdamantCore"]),
        .library(name: "AdamantNodes", targets: ["AdamantNodes"]),
        .library(name: "AdamantDevnet", targets: ["AdamantDevnet"]),
        .library(name: "AdamantStore", targets: ["AdamantStore"]),
        .library(name: "AdamantPush", targets: ["AdamantPush"]),
        .library(name: "AdamantFetch", targets: ["AdamantFetch"]),
        .library(name: "AdamantDesktop", targets: ["AdamantDesktop"]),
        .executable(name: "adm-push", targets: ["adm-push"]),
        .executable(name: "adm-fetch", targets: ["adm-fetch"]),
        .executable(name: "adm-devnet", targets: ["adm-devnet"]),
    ],
    targets: [
        // C system libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // How the three below load their library with dlopen on first use: by a list of sonames,
        // every function resolved, and what is missing said in a sentence.
        .target(name: "CLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // libcurl (libcurl4-openssl-dev to build) is not linked but loaded with dlopen by the
        // first request: a command that makes none never pays for its 32 libraries.
        .target(
            name: "CCurl", dependencies: ["CLoader"],
            linkerSettings: [.linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // sd-bus (libsystemd-dev to build), loaded with dlopen by the first notification sent to
        // the desktop: a command without --notify never loads it.
        .target(
            name: "CSDBus", dependencies: ["CLoader"],
            linkerSettings: [.linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // libcrypto (libssl-dev to build), loaded with dlopen by the first encrypted session
        // with the desktop's keyring: its Diffie-Hellman and AES-CBC, which libsodium lacks.
        .target(
            name: "CCrypto", dependencies: ["CLoader"],
            linkerSettings: [.linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // posix_spawn's close-from action, which Swift's Glibc module does not declare.
        .target(name: "CSpawn"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // NFKD for passphrases that are not BIP39 (Linux; Foundation does it elsewhere).
        .systemLibrary(name: "CUnistring", providers: [.apt(["libunistring-dev"])]),
        // libFuzzer's driver entry, linked only by scripts/fuzz.
        .systemLibrary(name: "CFuzzer"),

        // Pure protocol logic: keys, transactions, chat crypto, signals. No I/O.
        .target(
            name: "AdamantCore",
            dependencies: ["CSodium", .target(name: "CUnistring", condition: .when(platforms: [.linux]))]),
        // Node access: libcurl transport, node pool, hedged reads, classified writes.
        .target(name: "AdamantNodes", dependencies: ["AdamantCore", "CCurl"]),
        // A simulated ADAMANT network with an ANS emulator, served by libmicrohttpd.
        .target(name: "AdamantDevnet", dependencies: ["AdamantCore", "CMicroHTTPD"]),
        // The home's files: the SQLite wrapper and the notification log, which keeps the page each
        // watch is handing over.
        .target(name: "AdamantStore", dependencies: ["AdamantCore", "CSQLite"]),
        // The registration outbox: its store, chain state, scheduler.
        .target(name: "AdamantPush", dependencies: ["AdamantCore", "AdamantNodes", "AdamantStore"]),
        // A push's transaction found, verified, decrypted and rendered; `watch`; and the delivery
        // of notifications: the policy, the machine per account and the notifier that runs it.
        .target(name: "AdamantFetch", dependencies: ["AdamantCore", "AdamantNodes", "AdamantStore"]),
        // The session bus, over sd-bus: the only code that calls D-Bus, every call bounded.
        .target(name: "AdamantBus", dependencies: ["CSDBus"]),
        // The desktop's keyring (the Secret Service) that keeps the passphrase, in an encrypted
        // session: apart from the notifications, so that adm-push uses it and links none of them.
        .target(name: "AdamantKeyring", dependencies: ["AdamantBus", "AdamantCore", "CSodium", "CCrypto"]),
        // Desktop notifications over the session bus.
        .target(name: "AdamantDesktop", dependencies: ["AdamantCore", "AdamantFetch", "AdamantBus"]),
        // What every command shares: argument parsing, help, man pages, passphrase input, output,
        // exit codes, logging and child processes. No store, outbox or watch: adm-devnet is
        // built on it alone.
        .target(name: "AdamantCLI", dependencies: ["AdamantCore", "AdamantNodes", "CSpawn"]),
        // What the commands on an account's home share (adm-push's and adm-fetch's): the config
        // file, the nodes, the home and its outbox, the desktop's options, the watch's outputs.
        // Debug builds, which the tests run, carry the hooks the crash tests kill a send with;
        // release builds, which ship, have none.
        .target(
            name: "AdamantAccountCLI",
            dependencies: [
                "AdamantCore", "AdamantNodes", "AdamantStore", "AdamantPush", "AdamantFetch", "AdamantCLI",
                "AdamantKeyring",
            ],
            swiftSettings: [.define("ADM_TEST_HOOKS", .when(configuration: .debug))]),

        .executableTarget(
            name: "adm-push",
            dependencies: [
                "AdamantCore", "AdamantNodes", "AdamantStore", "AdamantPush", "AdamantFetch", "AdamantCLI",
                "AdamantAccountCLI", "AdamantKeyring",
            ]),
        .executableTarget(
            name: "adm-fetch",
            dependencies: [
                "AdamantCore", "AdamantNodes", "AdamantStore", "AdamantPush", "AdamantFetch", "AdamantDesktop",
                "AdamantCLI", "AdamantAccountCLI",
            ]),
        // The performance targets of docs/performance.md: `swift run -c release adm-bench`.
        .executableTarget(
            name: "adm-bench",
            dependencies: [
                "AdamantCore", "AdamantNodes", "AdamantDevnet", "AdamantCLI", "AdamantAccountCLI", "AdamantStore",
                "AdamantPush", "AdamantFetch", "AdamantDesktop", "CSQLite", "CSodium",
            ]),
        // Its demo runs the adm-push and adm-fetch built or installed beside it, as processes:
        // none of their code is linked into it. (A dependency on those executables would build
        // them first, but link every library they use.)
        .executableTarget(
            name: "adm-devnet", dependencies: ["AdamantDevnet", "AdamantCore", "AdamantNodes", "AdamantCLI"]),
        // The fuzz targets: `scripts/fuzz [TARGET] [SECONDS]`; a normal build only replays inputs.
        .executableTarget(
            name: "adm-fuzz",
            dependencies: [
                "CFuzzer", "AdamantCore", "AdamantNodes", "AdamantDevnet", "AdamantCLI", "AdamantAccountCLI",
                "AdamantStore", "AdamantPush",
                "AdamantFetch", "AdamantDesktop", "AdamantBus", "CSQLite",
            ]),

        .testTarget(name: "AdamantCoreTests", dependencies: ["AdamantCore"]),
        .testTarget(name: "AdamantStoreTests", dependencies: ["AdamantStore", "AdamantCore"]),
        .testTarget(name: "AdamantNodesTests", dependencies: ["AdamantNodes", "AdamantCore", "AdamantDevnet"]),
        .testTarget(
            name: "AdamantPushTests",
            dependencies: ["AdamantStore", "AdamantPush", "AdamantCore", "AdamantNodes", "AdamantDevnet"]),
        .testTarget(
            name: "AdamantFetchTests",
            dependencies: [
                "AdamantFetch", "AdamantStore", "AdamantPush", "AdamantCore", "AdamantNodes", "AdamantDevnet",
            ]),
        .testTarget(name: "AdamantBusTests", dependencies: ["AdamantBus"]),
        // A real gnome-keyring on a private session bus, for the keyring's tests and the commands'.
        .target(
            name: "KeyringTestSupport", dependencies: ["AdamantKeyring", "AdamantBus"], path: "Tests/KeyringTestSupport"
        ),
        .testTarget(
            name: "AdamantKeyringTests",
            dependencies: ["AdamantKeyring", "AdamantBus", "AdamantCore", "KeyringTestSupport"]),
        .testTarget(
            name: "AdamantDesktopTests", dependencies: ["AdamantDesktop", "AdamantBus", "AdamantFetch", "AdamantCore"]),
        .testTarget(
            name: "AdamantDevnetTests",
            dependencies: ["AdamantDevnet", "AdamantCore", "AdamantCLI", "adm-devnet", "adm-push", "adm-fetch"]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "AdamantCore", "AdamantNodes", "AdamantCLI", "AdamantAccountCLI", "AdamantDevnet", "AdamantStore",
                "AdamantPush",
                "AdamantFetch", "AdamantDesktop", "AdamantBus", "KeyringTestSupport", "adm-push", "adm-fetch",
                "adm-devnet",
                "adm-bench",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// One strict bar for every target.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
