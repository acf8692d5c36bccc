import AdamantCore
import AdamantFetch

/// A push payload as `adm-fetch --payload` reads it (APNs or FCM JSON, perhaps carrying the
/// whole transaction). What it accepts names a transaction, and a carried one agrees with it
/// and says itself whom it is for.
enum PayloadFuzz {
    static func run(_ data: [UInt8]) {
        guard let payload = try? PushPayload(json: data) else { return }
        invariant(data.count <= PushPayload.maximumSize, "a payload past the size cap was read")
        if let carried = payload.transaction?.id {
            invariant(carried == payload.id, "the payload's id \(payload.id) is not its transaction's \(carried)")
            invariant(payload.recipient == nil, "a push-recipient was read beside a carried transaction")
        }
    }
}
