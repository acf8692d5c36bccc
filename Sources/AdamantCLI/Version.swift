/// The version of adm-push, adm-fetch and adm-devnet: what `--version` prints and what the
/// Debian package carries (scripts/package-deb reads it from this line, so the two cannot differ).
public enum Version {
    public static let current = "0.1.0"
}
