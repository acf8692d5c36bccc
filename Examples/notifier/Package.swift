// swift-tools-version: 6.0
import PackageDescription

// A program built on the libraries alone, as an app or a bot would use them: it depends on
// this repository by path and on none of its commands' code (AdamantCLI).
let package = Package(
    name: "notifier",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // Named: a package by path is otherwise known by its folder's name, which each checkout
    // (a clone, a worktree) chooses.
    dependencies: [.package(name: "adm-push", path: "../..")],
    targets: [
        .executableTarget(
            name: "notifier",
            dependencies: [
                .product(name: "AdamantCore", package: "adm-push"),
                .product(name: "AdamantNodes", package: "adm-push"),
                .product(name: "AdamantStore", package: "adm-push"),
                .product(name: "AdamantFetch", package: "adm-push"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
