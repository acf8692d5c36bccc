// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "adm-push",
    products: [
        .library(name: "AdamantCore", targets: ["AdamantCore"]),
        .executable(name: "adm-push", targets: ["adm-push"]),
    ],
    targets: [
        // C system libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // Pure protocol logic: keys, transactions, chat crypto, signals. No I/O.
        .target(name: "AdamantCore", dependencies: ["CSodium"]),
        // What every command shares: argument parsing, passphrase input, output and exit codes.
        .target(name: "AdamantCLI", dependencies: ["AdamantCore"]),

        .executableTarget(name: "adm-push", dependencies: ["AdamantCore", "AdamantCLI"]),

        .testTarget(name: "AdamantCoreTests", dependencies: ["AdamantCore"]),
        .testTarget(name: "CLITests", dependencies: ["AdamantCore", "AdamantCLI", "adm-push"]),
    ],
    swiftLanguageModes: [.v6]
)

// One strict bar for every target.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
