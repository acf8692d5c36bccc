import AdamantCore

extension NodeVersion {
    /// 0.10 renamed the int32 range error.
    var int32RangeMessage: String {
        timestampPolicy == .v0_10
            ? "Invalid transaction timestamp. Timestamp is not within the signed int32 range"
            : "Invalid transaction timestamp. Timestamp is not in the int32 range"
    }
}
