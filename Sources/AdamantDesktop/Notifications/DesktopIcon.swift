/// Where the app's icon is installed, found as icon themes are: in each XDG data directory,
/// the user's first, under `icons/hicolor`. A server gets the file's path, which every one
/// can show, rather than a name only some look up in a theme.
public enum DesktopIcon {
    /// The icon's name, as the `.desktop` file's `Icon=` says it.
    public static let name = "adm-push"

    /// The first installed icon, PNG before SVG (a server may lack an SVG loader); nil for
    /// none. `exists` is asked of each candidate path.
    public static func path(environment: [String: String], exists: (String) -> Bool) -> String? {
        var directories: [String] = []
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            directories.append(data)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            directories.append(home + "/.local/share")
        }
        let shared = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        directories += shared.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        let files = ["128x128/apps/\(name).png", "scalable/apps/\(name).svg"]
        for file in files {
            for directory in directories where exists(directory + "/icons/hicolor/" + file) {
                return directory + "/icons/hicolor/" + file
            }
        }
        return nil
    }
}
